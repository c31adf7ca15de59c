# valla_args.R -- valla()'s inducing, validation and test arguments checked and
# shaped for the core, and the fit list built from the core's result. The same
# pieces as bindings_octave/inst/private/valla_*.m, so the two fronts agree.

# inducing: NULL (M = 0: the core's default, sized to the data), a count (the
# core checks it against the rows of x) or an M-by-d matrix with optional tags.
valla_inducing_arg <- function(inducing, inducing_tags, m, fn) {
  if (is.null(inducing)) {
    if (!is.null(inducing_tags))
      stop_arg(fn, "inducing_tags", "needs a matrix of inducing locations")
    return(list(M = 0, Z = NULL, tags = NULL))
  }
  if (is.numeric(inducing) && length(inducing) == 1L && is.null(dim(inducing))) {
    if (!is.null(inducing_tags))
      stop_arg(fn, "inducing_tags", "needs a matrix of inducing locations")
    return(list(M = check_count(inducing, fn, "inducing", min = 1L), Z = NULL, tags = NULL))
  }
  Z <- as_input_matrix(inducing, fn, "inducing")
  if (ncol(Z) != m$D)
    stop_arg(fn, "inducing", "has ", ncol(Z), " columns but 'x' has ", m$D)
  tags <- NULL
  if (!is.null(inducing_tags)) {
    tg <- inducing_tags
    if (!is.numeric(tg) || length(tg) != nrow(Z) || any(!tg %in% seq_len(m$C)))
      stop_arg(fn, "inducing_tags", "must give one output 1..", m$C, " per inducing point")
    tags <- as.integer(tg) - 1L
  }
  list(M = nrow(Z), Z = Z, tags = tags)
}

# validation = list(x, y) and xtest, checked against the network's d inputs.
valla_data_args <- function(validation, xtest, likelihood, m, fn) {
  out <- list(xval = NULL, yval = NULL, xtest = NULL)
  if (!is.null(validation)) {
    if (!is.list(validation) || length(validation) != 2L)
      stop_arg(fn, "validation", "must be list(x, y)")
    out$xval <- as_input_matrix(validation[[1L]], fn, "validation$x")
    if (ncol(out$xval) != m$D)
      stop_arg(fn, "validation$x", "has ", ncol(out$xval), " columns but 'x' has ", m$D)
    out$yval <- valla_labels(validation[[2L]], likelihood, nrow(out$xval), m, fn,
                             "validation$y")$y
  }
  if (!is.null(xtest)) {
    xtest <- as_input_matrix(xtest, fn, "xtest")
    if (ncol(xtest) != m$D)
      stop_arg(fn, "xtest", "has ", ncol(xtest), " columns but 'x' has ", m$D)
    big <- which(abs(xtest) > 1e100)[1L]  # the core's bound, checked before training
    if (!is.na(big))
      stop_arg(fn, "xtest", "holds ", format(xtest[big]), " (at most 1e+100 in magnitude: ",
               "larger values overflow; rescale them)")
    out$xtest <- xtest
  }
  out
}

# The valla fit from the core's result: the same fields as Octave's valla struct.
valla_result <- function(res, x, m, lab, likelihood, method, closed_form, seed) {
  h <- res$history
  fit <- list(inducing = res$inducing, tags = res$tags, L = res$L,
              prior_var = res$prior_var,
              noise = if (likelihood == "gaussian") res$noise else NULL,
              history = list(objective = h$objective,
                             validation = data.frame(iteration = h$val_iteration,
                                                     nll = h$val_nll)),
              iterations = res$iterations, best_iteration = res$best_iteration,
              stopped_early = res$stopped_early, clamps = res$clamps,
              kernel_cache = res$kernel_cache, model = res$model,
              P1 = res$P1, P2 = res$P2, prior = res$prior, layers = res$layers,
              y_mean = res$y_mean, y_sd = res$y_sd, likelihood = likelihood, method = method,
              closed_form = closed_form, n_class = lab$n_class, levels = lab$levels,
              n = nrow(x), n_train = res$n_train, d = m$D, C = m$C,
              x_range = apply(x, 2L, range), seed = seed, stop_reason = res$stop_reason,
              diverged_at = res$diverged_at)
  class(fit) <- "valla"
  if (!is.null(res$test)) fit$test <- valla_test_list(res$test, fit)
  fit
}
