# valla_args.R -- valla()'s data (inducing locations, validation, xtest) and
# prediction options shaped for the core, and what R adds to the core's fit: the
# same pieces as bindings_octave/inst/private/valla_*.m.

# The options valla's front keeps (data and predictions at xtest), taken out of
# the options by name; the rest go to the core's table. inducing: a count stays
# an option (the core checks it), a matrix becomes data with optional tags.
valla_front_options <- function(opts, m, fn) {
  out <- list(Z = NULL, tags = NULL, layers = valla_layers(opts[["layers"]], m, fn))
  ind <- opts[["inducing"]]
  if (!is.null(ind) && !(is.numeric(ind) && length(ind) == 1L && is.null(dim(ind)))) {
    out$Z <- as_input_matrix(ind, fn, "inducing")
    if (ncol(out$Z) != m$D)
      stop_arg(fn, "inducing", "has ", ncol(out$Z), " columns but 'x' has ", m$D)
    opts$inducing <- NULL
  }
  tg <- opts[["inducing_tags"]]
  if (!is.null(tg)) {
    if (is.null(out$Z)) stop_arg(fn, "inducing_tags", "needs a matrix of inducing locations")
    if (!is.numeric(tg) || length(tg) != nrow(out$Z) || any(!tg %in% seq_len(m$C)))
      stop_arg(fn, "inducing_tags", "must give one output 1..", m$C, " per inducing point")
    out$tags <- as.integer(tg) - 1L
  }
  # xtest's prediction options go to the core's table "valla_predict"
  out$pred <- opts[intersect(c("full_cov", "prob_method", "mc_samples"), names(opts))]
  for (a in c("inducing_tags", "layers", "full_cov", "prob_method", "mc_samples"))
    opts[[a]] <- NULL
  out$opts <- opts
  out
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

# The valla fit from the core's (sgp_valla_fit_plain): what only R has, the
# class names (levels) and the validation history as a data frame.
valla_result <- function(fit, lab) {
  fit$history$validation <- as.data.frame(fit$history$validation)
  fit["levels"] <- list(lab$levels)
  class(fit) <- "valla"
  if (!is.null(fit$test)) fit$test <- pred_class_names(fit$test, fit, "valla")
  fit
}
