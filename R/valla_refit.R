# Out-of-fold validation data for valla's default (docs/valla.md, "Noise and validation data"). A network's residuals on
# the data it was trained on understate its error elsewhere, and nothing computed from
# those data alone sees it (the linearized model's own leave-one-out residuals are those
# of a model whose residuals are orthogonal to its Jacobian: they barely grow). Refitting
# the network on folds - 1 of `folds` parts and predicting the part left out gives
# residuals of data each refit did not see; valla then takes them as its validation data,
# on which the core chooses the noise (noise_fit = "validation") and stops early.

# The refit function: the user's, or for an nnet fit made by nnet(x, y, ...) its own call
# with new data (trace off, fresh random weights), evaluated where valla was called.
valla_refit_fun <- function(model, refit, env, fn) {
  if (!is.null(refit)) {
    if (!is.function(refit)) stop_arg(fn, "refit", "must be a function(x, y) returning a network")
    return(refit)
  }
  cl <- if (inherits(model, "nnet") && !inherits(model, "nnet.formula")) model$call
  if (!is.call(cl) || is.null(cl$x) || is.null(cl$y)) return(NULL)
  cl[[1L]] <- quote(nnet::nnet)
  cl$trace <- FALSE
  cl$Wts <- NULL
  function(x, y) {
    cl$x <- x
    cl$y <- y
    eval(cl, env)
  }
}

# list(x, y) whose y - g(x) are the out-of-fold residuals (g: the network's outputs), or
# NULL when there is no refit function or folds is 0 (the core's val_frac hold-out).
valla_oof_validation <- function(model, x, y, refit, opts, env, fn) {
  # the options this decision reads, checked by the core first (its words)
  for (name in intersect(c("folds", "method", "closed_form", "iterations"), names(opts)))
    sgp_call(C_option_check, fn, name, opts[[name]])
  folds <- opts[["folds"]] %||% option_default(fn, "folds")
  uses_adam <- (opts[["method"]] %||% "valla") == "valla" && !isTRUE(opts[["closed_form"]]) &&
    (opts[["iterations"]] %||% 1) > 0
  if (folds < 2 || !uses_adam) return(NULL)  # folds = 1: the core's error
  f <- valla_refit_fun(model, refit, env, fn)
  if (is.null(f)) return(NULL)
  n <- nrow(x)
  if (n < 2 * folds) return(NULL)
  if (isTRUE(opts[["verbose"]]))
    message(fn, ": refitting the network on ", folds, " folds of x for validation residuals ",
            "it did not fit (folds = 0: a hold-out of x instead)")
  part <- sample(rep_len(seq_len(folds), n))  # R's RNG: set.seed() makes it reproducible
  oof <- numeric(n)
  for (k in seq_len(folds)) {
    out <- part == k
    net <- tryCatch(f(x[!out, , drop = FALSE], y[!out]), error = function(e) e)
    if (inherits(net, "error")) {
      if (!is.null(refit)) stop_arg(fn, "refit", "failed: ", conditionMessage(net))
      warning(fn, ": could not refit the nnet fit from its call (", conditionMessage(net),
              "); the noise comes from a hold-out of x, which the network was trained on ",
              "(pass validation data or refit)", call. = FALSE)
      return(NULL)
    }
    oof[out] <- y[out] - as.vector(mlp_forward(net, x[out, , drop = FALSE]))
  }
  list(x, as.vector(mlp_forward(model, x)) + oof)
}
