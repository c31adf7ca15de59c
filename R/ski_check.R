# A ski_gsgp fit is plain data (it survives saveRDS/readRDS and may be edited
# by hand): predict, print, summary and plot check the fields they use first,
# by exact name, so that a damaged fit gives an error naming the field instead
# of a wrong answer (a NaN in the LOVE factor gave variance 0) or an opaque one.
# The statistics' values are checked again by the core (errors name `stats`).

ski_fit_fields <- c("grid", "weights", "iterations", "converged", "rel_residual", "stats",
                    "kernel", "lengthscale", "outputscale", "noise", "method", "variance",
                    "tol", "max_iter", "bounds_policy")

ski_check_fit <- function(object, fn, arg = "object") {
  bad <- function(field, ...)
    stop_arg(fn, paste0(arg, "$", field), ..., " (the fit is damaged; refit it)")
  if (!inherits(object, "ski_gsgp") || !is.list(object))
    stop_arg(fn, arg, "must be a ski_gsgp fit")
  miss <- setdiff(ski_fit_fields, names(object))
  if (length(miss)) bad(miss[1L], "is missing")
  f <- function(name) object[[name]]
  grid <- ski_as_grid(f("grid"), fn, paste0(arg, "$grid"))
  stats <- ski_check_stats(f("stats"), fn, paste0(arg, "$stats"))
  if (!identical(stats$grid$size, grid$size) || !identical(stats$grid$bounds, grid$bounds) ||
      !identical(stats$grid$interpolation, grid$interpolation))
    bad("grid", "differs from the grid of its statistics")
  m <- prod(grid$size)
  d <- length(grid$size)
  ski_check_model_fields(f, d, fn, arg, bad)
  w <- f("weights")
  if (!is.numeric(w) || length(w) != m || any(!is.finite(w)))
    bad("weights", "must be ", m, " finite numbers (one per grid point)")
  ski_check_love(object[["love"]], f("variance"), m, bad)
  ski_check_result_fields(object, bad)
  object$grid <- grid
  object$stats <- stats
  object
}

# kernel, lengthscale, outputscale, noise, method, variance, tol, max_iter,
# bounds_policy, backend (optional: older fits have none).
ski_check_model_fields <- function(f, d, fn, arg, bad) {
  sub <- function(name) paste0(arg, "$", name)
  if (!is.character(f("kernel")) || length(f("kernel")) != 1L || !f("kernel") %in% kernel_names)
    bad("kernel", "must be one of ", paste0("\"", kernel_names, "\"", collapse = ", "))
  ell <- f("lengthscale")
  if (!is.numeric(ell) || !length(ell) %in% c(1L, d) || any(!is.finite(ell)) || any(ell <= 0))
    bad("lengthscale", "must be 1 or ", d, " positive finite numbers")
  for (name in c("outputscale", "noise", "tol"))
    if (!is.numeric(f(name)) || length(f(name)) != 1L || is.na(f(name)) || !is.finite(f(name)) ||
        f(name) <= 0)
      bad(name, "must be one positive finite number")
  mi <- f("max_iter")
  if (!is.numeric(mi) || length(mi) != 1L || is.na(mi) || !is.finite(mi) || mi < 1 ||
      mi != round(mi))
    bad("max_iter", "must be a whole number >= 1")
  check_choice(f("method"), c("gsgp", "ski"), fn, sub("method"))
  check_choice(f("variance"), c("none", "lanczos", "exact"), fn, sub("variance"))
  check_choice(f("bounds_policy"), ski_bounds_policies, fn, sub("bounds_policy"))
  if (!is.null(f("backend"))) check_choice(f("backend"), c("auto", "cpu", "cuda"), fn, sub("backend"))
}

# The LOVE cache: list(Ft = rank-by-m matrix, c0 = m values), finite; needed
# by variance "lanczos".
ski_check_love <- function(love, variance, m, bad) {
  if (is.null(love)) {
    if (variance == "lanczos") bad("love", "is missing (the fit was made with variance = \"lanczos\")")
    return(invisible())
  }
  if (!is.list(love) || !all(c("Ft", "c0") %in% names(love)))
    bad("love", "must be list(Ft, c0)")
  Ft <- love[["Ft"]]
  if (!is.numeric(Ft) || !is.matrix(Ft) || ncol(Ft) != m)
    bad("love$Ft", "must be a numeric rank-by-", m, " matrix")
  if (any(!is.finite(Ft))) bad("love$Ft", "has NaN or Inf")
  c0 <- love[["c0"]]
  if (!is.numeric(c0) || length(c0) != m || any(!is.finite(c0)))
    bad("love$c0", "must be ", m, " finite numbers")
}

# What print and summary show: iterations, converged, rel_residual, the
# optional log-likelihood figures, timings and the stop reason.
ski_check_result_fields <- function(object, bad) {
  it <- object[["iterations"]]
  if (!is.numeric(it) || length(it) != 1L || !is.finite(it) || it < 0 || it != round(it) ||
      it > .Machine$integer.max)
    bad("iterations", "must be a whole number >= 0")
  cv <- object[["converged"]]
  if (!is.logical(cv) || length(cv) != 1L || is.na(cv)) bad("converged", "must be TRUE or FALSE")
  for (name in c("rel_residual", "loglik", "logdet", "logdet_se", "datafit")) {
    v <- object[[name]]
    if (name != "rel_residual" && is.null(v)) next
    if (!is.numeric(v) || length(v) != 1L || !is.finite(v)) bad(name, "must be one finite number")
    if (name %in% c("rel_residual", "logdet_se") && v < 0) bad(name, "must be >= 0")
  }
  tm <- object[["timings"]]
  if (!is.null(tm) && (!is.numeric(tm) || is.null(names(tm)) || any(!is.finite(tm)) ||
                       any(tm < 0) || !all(c("preprocess", "solve") %in% names(tm))))
    bad("timings", "must be named finite seconds >= 0 (preprocess, solve, ...)")
  st <- object[["stop"]]
  if (!is.null(st) && (!is.character(st) || length(st) != 1L || !st %in% ski_stop_reasons))
    bad("stop", "must be one of ", paste0("\"", ski_stop_reasons, "\"", collapse = ", "))
}
