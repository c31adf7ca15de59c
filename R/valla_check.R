# valla_check.R -- a valla fit's fields, checked before predict, print, summary
# and plot use them: a fit is plain data and may come back from a file or from
# another program damaged. Presence (exact names: `$` would match `d` to a
# `datafit` field), types and lengths here; the core checks the values, the
# shapes and the P1 / P2 / prior combination again (sgp_valla_fit_from_data).

valla_fields <- c("model", "inducing", "tags", "P1", "P2", "prior", "prior_var", "noise",
                  "y_mean", "y_sd", "likelihood", "method", "closed_form", "n", "d", "C",
                  "n_class", "iterations", "best_iteration", "stopped_early", "clamps",
                  "history", "x_range")

valla_stop_reasons <- c("iterations", "early_stopping", "diverged", "loss_rose")

# Stops naming the first damaged field of object (returns it invisibly when sound).
valla_check_fit <- function(object, fn, arg = "object") {
  bad <- function(field, ...)
    stop_arg(fn, paste0(arg, "$", field), ..., " (the fit is damaged; refit it)")
  if (!is.list(object)) stop_arg(fn, arg, "must be a valla fit (a list)")
  miss <- setdiff(valla_fields, names(object))
  if (length(miss)) bad(miss[1L], "is missing")
  f <- function(name) object[[name]]
  one <- function(v, test) length(v) == 1L && !is.na(v) && test(v)
  for (name in c("prior", "closed_form", "stopped_early"))
    if (!is.logical(f(name)) || !one(f(name), isTRUE) && !one(f(name), isFALSE))
      bad(name, "must be TRUE or FALSE")
  for (name in c("n", "d", "C", "n_class", "iterations", "best_iteration", "clamps"))
    if (!is.numeric(f(name)) || !one(f(name), function(v) is.finite(v) && v >= 0 && v == round(v)))
      bad(name, "must be a whole number >= 0")
  for (name in c("d", "C")) if (f(name) < 1) bad(name, "must be at least 1")
  check_choice(f("likelihood"), c("gaussian", "softmax", "bernoulli"), fn, paste0(arg, "$likelihood"))
  check_choice(f("method"), c("valla", "lla", "ella"), fn, paste0(arg, "$method"))
  for (name in c("prior_var", "y_mean", "y_sd", if (f("likelihood") == "gaussian") "noise"))
    if (!is.numeric(f(name)) || !one(f(name), is.finite) || (name != "y_mean" && f(name) <= 0))
      bad(name, "must be one ", if (name != "y_mean") "positive ", "finite number")
  if (f("likelihood") != "gaussian" && !is.null(f("noise")))
    bad("noise", "must be NULL for classification")
  valla_check_arrays(object, f("d"), f("C"), bad)
  h <- f("history")
  if (!is.list(h) || !is.numeric(h$objective) || !is.data.frame(h$validation) ||
      !all(c("iteration", "nll") %in% names(h$validation)))
    bad("history", "must be list(objective, validation = data.frame(iteration, nll))")
  if (!is.null(object$test) && (!is.list(object$test) || !is.numeric(object$test$mean)))
    bad("test", "must be list(mean, var, ...)")
  st <- object[["stop_reason"]]
  if (!is.null(st) && (!is.character(st) || length(st) != 1L || !st %in% valla_stop_reasons))
    bad("stop_reason", "must be NULL or one of ",
        paste0("\"", valla_stop_reasons, "\"", collapse = ", "))
  lv <- object[["levels"]]
  if (!is.null(lv)) {
    want <- switch(f("likelihood"), gaussian = 0L, bernoulli = 2L, softmax = f("C"))
    if (!want) bad("levels", "must be NULL for a gaussian fit")
    if (!is.character(lv) || length(lv) != want || anyNA(lv) || anyDuplicated(lv))
      bad("levels", "must be NULL or ", want, " distinct class names (strings, no NA)")
  }
  if (!is.list(f("model")))
    bad("model", "must be a network as plain data (a list with weights, biases, ...)")
  mlp_spec(f("model"), fn, paste0(arg, "$model"))
  invisible(object)
}

# inducing (M x d), tags (M whole numbers in 1..C), P1 / P2 (NULL or M x M),
# layers (NULL or flags), x_range (2 x d).
valla_check_arrays <- function(object, d, C, bad) {
  Z <- object[["inducing"]]
  if (!is.numeric(Z) || !is.matrix(Z) || ncol(Z) != d)
    bad("inducing", "must be a numeric matrix with d = ", d, " columns")
  tg <- object[["tags"]]
  if (!is.numeric(tg) || length(tg) != nrow(Z) || any(!is.finite(tg)) ||
      any(tg != round(tg) | tg < 1 | tg > C))
    bad("tags", "must give one output per inducing point (", nrow(Z), " of them, each in 1..", C, ")")
  for (name in c("P1", "P2")) {
    P <- object[[name]]
    if (!is.null(P) && (!is.numeric(P) || !is.matrix(P) || any(dim(P) != nrow(Z))))
      bad(name, "must be NULL or a ", nrow(Z), " x ", nrow(Z), " numeric matrix")
  }
  ly <- object[["layers"]]
  if (!is.null(ly) && (!(is.numeric(ly) || is.logical(ly)) || anyNA(ly)))
    bad("layers", "must be NULL or one flag per layer")
  xr <- object[["x_range"]]
  if (!is.numeric(xr) || !is.matrix(xr) || any(dim(xr) != c(2L, d)))
    bad("x_range", "must be a 2 x ", d, " numeric matrix")
}

# The fields the C side reads (of a fit valla_check_fit passed), with the storage
# types it relies on (integers may come back from a file stored as doubles).
valla_plain_fit <- function(object, fn) {
  dbl <- function(v) if (is.null(v)) NULL else { storage.mode(v) <- "double"; v }
  list(model = mlp_spec(object[["model"]], fn, "object$model")$spec,
       likelihood = object[["likelihood"]], method = object[["method"]],
       inducing = dbl(object[["inducing"]]), tags = as.integer(object[["tags"]]),
       layers = if (is.null(object[["layers"]])) NULL else as.integer(object[["layers"]]),
       P1 = dbl(object[["P1"]]), P2 = dbl(object[["P2"]]), prior = object[["prior"]],
       closed_form = object[["closed_form"]],
       prior_var = as.double(object[["prior_var"]]),
       noise = if (is.null(object[["noise"]])) 0 else as.double(object[["noise"]]),
       y_mean = as.double(object[["y_mean"]]), y_sd = as.double(object[["y_sd"]]))
}
