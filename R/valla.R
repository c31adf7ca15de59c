#' Variational linearized Laplace (VaLLA) error bars for a trained network
#'
#' Turns a trained neural network into a Gaussian process whose mean is the
#' network output and whose covariance is the network's neural tangent kernel
#' (NTK) scaled by a prior variance: the linearized Laplace approximation
#' (LLA). VaLLA approximates the LLA posterior with M inducing points and a
#' variational covariance A = L L', learned by Adam on minibatches with the
#' alpha-objective (alpha = 1: the ELBO), so the cost per iteration does not
#' grow with n. The NTK is computed by a layer-wise contraction of forward
#' activations and backward sensitivities; Jacobians are never formed.
#'
#' Networks: an \code{nnet} fit (exact weight layout, skip layers; the
#' likelihood follows from the fit: \code{linout} or logistic least squares:
#' gaussian, \code{entropy}: bernoulli on the logit, \code{softmax}: softmax),
#' or a generic MLP \code{list(weights = list(W1, ..., WL), biases = list(b1,
#' ..., bL), activation = "tanh" | "sigmoid" | "relu")} with in-by-out weights
#' (layer l maps \code{a \%*\% Wl + bl}; the last layer is linear; optional
#' elements \code{output}, \code{skip}, \code{transpose} as in
#' \code{\link{mlp_forward}}), e.g. from \code{\link{mlp_fit}}. \code{x}
#' is the numeric matrix the network sees, or a formula (see Formulas).
#'
#' @section Formulas:
#' A network trained from a formula (\code{mlp_fit(y ~ ., data = df)} or
#' \code{nnet(y ~ ., data = df)}) saw the model matrix of its data without the
#' intercept column. \code{valla(net, y ~ ., data = df)} builds that matrix
#' again with the formula it is given and the network's factor levels and
#' contrasts (\code{net$xlevels}, \code{net$contrasts}); its columns are
#' matched to the network's input names (\code{net$coefnames}), so a
#' different formula is an error naming the missing column rather than a
#' silently different input. \code{subset} and \code{na.action} (default
#' \code{getOption("na.action")}) work as in \code{lm}; \code{xtest} and
#' \code{validation} may be data frames, and the fit keeps \code{terms},
#' \code{xlevels} and \code{contrasts} so that \code{predict(fit, newdata =
#' df2)} takes a data frame (rows with NA in the predictors predict NA). A
#' named matrix or data frame \code{x} is matched by name to
#' \code{net$coefnames} too.
#'
#' @section Noise and validation data:
#' The network was trained on \code{x}, so its residuals there understate its
#' error on new data when it overfits, and a noise learned from them (the
#' paper's Adam on the training objective) gives intervals that cover far less
#' than they claim (Boston, nnet size 10: 0.60 of 95\%). Nothing computed from
#' \code{x} alone sees this: the linearized model's leave-one-out residuals
#' barely exceed the training ones. The paper tunes its hyperparameters on
#' validation data; valla does so with data the network did not see:
#' \code{validation} when given, else (gaussian) the out-of-fold residuals of
#' \code{folds} refits of the network (\code{refit}, or an \code{nnet} fit's
#' own call; this trains the network \code{folds} more times), else a
#' \code{val_frac} hold-out of \code{x} (which the network
#' was trained on: it cannot see overfitting). With \code{noise_fit =
#' "validation"} (default) a learned noise is, at every validation check, the
#' variance that minimizes the validation NLL given the current latent
#' variances; Adam learns the rest on \code{x} and the best checked state is
#' kept. When the network's validation RMSE exceeds its RMSE on \code{x} by a
#' factor 1.5 in mean square beyond 3 standard errors, valla warns that it
#' overfits. \code{noise_fit = "adam", folds = 0} is the paper's procedure.
#'
#' Labels: softmax takes 1..C or a factor (C = the number of network
#' outputs); bernoulli 0/1, logical or a 2-level factor (P(second level)).
#' Regression targets are standardized internally; \code{noise} and
#' \code{prior_var} are on the original scale.
#'
#' Methods: \code{"valla"} (this method); \code{"lla"}, the exact LLA as a
#' dense GP on the NTK (n C at most \code{lla_max}); \code{"ella"}, the
#' Nystrom approximation ELLA with \code{inducing} random training points and
#' \code{ella_rank} eigenpairs. With \code{closed_form = TRUE} A is set to its
#' optimum (Titsias; the GGN analogue for classification) instead of being
#' learned, and with the inducing points at the training inputs VaLLA equals
#' the exact LLA, also when there are more inducing points than network
#' weights (the NTK matrix of the inducing points is then singular: the closed
#' form uses the weight directions they span, from the SVD of their Jacobian,
#' and needs no \code{jitter}).
#'
#' @details Options that shape the data rather than the fit are handled by the
#' front: \code{inducing} may also be an M-by-d matrix of initial locations, with
#' \code{inducing_tags} (output 1..C of each row, default cycling); \code{layers}
#' (logical, one per layer: which layers' parameters the linearization covers,
#' default all); and the predictions at \code{xtest}: \code{full_cov} (FALSE;
#' C-by-C blocks in \code{test$cov} when TRUE), \code{prob_method}
#' (\code{"probit"} or \code{"mc"}) and \code{mc_samples} (2048).
#' @eval rd_options("valla")
#' @param model an \code{nnet} fit or a generic MLP list (see Details).
#' @param x n-by-d matrix of training inputs (a vector is one column), or a
#'   formula (see Formulas).
#' @param y targets (gaussian) or labels (see Details), length n; with a
#'   formula \code{x} the response comes from the formula.
#' @param data,subset,na.action with a formula \code{x}: where its variables
#'   are, which rows to use and what to do with NA, as in
#'   \code{\link[stats]{lm}}.
#' @param ... options by name (see Options).
#' @param xtest optional test inputs: predictions go to \code{$test}.
#' @param validation \code{list(x, y)} of data the network was not trained
#'   on, for early stopping and (gaussian) the noise; with a formula \code{x}
#'   also a data frame. Default: see Noise and validation data.
#' @param refit gaussian, without \code{validation}: a \code{function(x, y)}
#'   that trains the network again (as it was trained) and returns it; its
#'   out-of-fold residuals become the validation data. An \code{nnet} fit made
#'   by \code{nnet(x, y, ...)} refits itself from its call (evaluated where
#'   \code{valla} is called), so it needs none.
#' @return An object of class \code{valla}, a plain list (it survives
#'   \code{saveRDS}): \code{inducing} (Z, M-by-d), \code{tags} (the output
#'   1..C of each inducing point), \code{L} (A = L L'), \code{prior_var},
#'   \code{noise} (original scale; \code{NULL} for classification),
#'   \code{history} (\code{objective} per iteration and \code{validation}, a
#'   data frame of iteration and validation NLL), \code{iterations},
#'   \code{best_iteration}, \code{stopped_early}, \code{stop_reason}
#'   (\code{"iterations"}, \code{"early_stopping"} or \code{"diverged"}: the
#'   objective or the parameters stopped being finite, Adam stopped at iteration
#'   \code{diverged_at} with a warning and the last usable state is kept; lower
#'   \code{lr}), \code{clamps}, \code{model}
#'   (the network as a generic MLP list), \code{P1}, \code{P2}, \code{prior}
#'   (the predictive covariance prior K - |P1 K_Z|^2 + |P2 K_Z|^2),
#'   \code{y_mean}, \code{y_sd}, \code{likelihood}, \code{method},
#'   \code{n_class}, \code{levels}, \code{closed_form}, \code{kernel_cache}
#'   (whether the training kernels were cached), \code{n}, \code{n_train}
#'   (rows Adam trained on), \code{d}, \code{C}, \code{x_range}, \code{seed}, and \code{test = list(mean, var, prob)}
#'   when \code{xtest} is given: \code{mean} the network output (n-by-C; for
#'   bernoulli the logit), \code{var} the predictive variance (regression:
#'   including the noise, with \code{latent_var} without it; classification:
#'   the latent variance), \code{prob} the class probabilities (softmax
#'   n-by-C; bernoulli P(y = 1)), and \code{cov} (C-by-C-by-n) with
#'   \code{full_cov = TRUE}.
#'   \code{call} is the call (\code{update} refits from it). \code{coef}
#'   gives \code{prior_var} (and \code{noise}), \code{nobs} n; there is no
#'   \code{logLik} (nor \code{AIC}, \code{BIC}): see
#'   \code{\link{scalegp_methods}}.
#' @seealso \code{\link{predict.valla}}, \code{\link{plot.valla}},
#'   \code{\link{mlp_fit}}, \code{\link{valla_metrics}}
#' @examples
#' set.seed(1)
#' x <- matrix(runif(200, -2, 2))
#' y <- sin(2 * x[, 1]) + rnorm(200, sd = 0.1)
#' net <- mlp_fit(x, y, hidden = c(20, 20), iterations = 1500, lr = 0.01,
#'                seed = 1)
#' fit <- valla(net, x, y, inducing = 10, iterations = 300, lr = 0.01,
#'              xtest = matrix(c(-3, 0, 3)), seed = 1, verbose = FALSE)
#' fit
#' fit$test$var
#' # the exact LLA on the same network, with the noise variance of the data
#' lla <- valla(net, x, y, method = "lla", noise = 0.01,
#'              prior_var = fit$prior_var, verbose = FALSE)
#' predict(lla, matrix(c(-3, 0, 3)))$var
#' # a network trained from a formula; valla builds its inputs the same way
#' df <- data.frame(x = x[, 1], g = factor(rep(c("a", "b"), 100)), y = y)
#' fnet <- mlp_fit(y ~ ., data = df, hidden = 10, iterations = 300, lr = 0.01,
#'                 seed = 1)
#' ffit <- valla(fnet, y ~ ., data = df, method = "lla", noise = 0.01,
#'               prior_var = 1, verbose = FALSE)
#' predict(ffit, data.frame(g = c("b", "a"), x = c(0, 3)))$var
#' @export
valla <- function(model, x, y, ..., xtest = NULL, validation = NULL, refit = NULL,
                  data = NULL, subset = NULL, na.action = NULL) {
  fn <- "valla"
  if (inherits(x, "formula"))  # coded with the network's factor levels and contrasts
    return(formula_fit(match.call(), parent.frame(), fn, like = model))
  if (!missing(data) || !missing(subset) || !missing(na.action)) formula_only(fn)
  opts <- verb_options(fn, list(...))
  m <- valla_model_spec(model, fn)
  # named inputs meet the network's input names (nnet's or mlp_fit's coefnames)
  x <- match_columns(x, if (is.list(model)) model[["coefnames", exact = TRUE]], fn, "x")
  x <- as_input_matrix(x, fn, "x")
  if (ncol(x) != m$D)
    stop_arg(fn, "x", "has ", ncol(x), " columns but the network expects ", m$D, " inputs")
  front <- valla_front_options(opts, m, fn)
  opts <- front$opts
  opts$likelihood <- valla_likelihood(opts[["likelihood"]], m, fn)
  lab <- valla_labels(y, opts$likelihood, nrow(x), m, fn, "y")
  if (is.null(validation) && lik_role(opts$likelihood) == "noise")
    validation <- valla_oof_validation(model, x, lab$y, refit, opts, parent.frame(), fn)
  data <- valla_data_args(validation, xtest, opts$likelihood, m, fn)
  res <- sgp_call(C_valla_fit, m$spec, x, lab$y, data$xval, data$yval, front$Z, front$tags,
               front$layers, data$xtest, front$pred, opts, NULL)
  fit <- valla_result(res$fit, lab)
  fit$call <- match.call()  # (a formula's fit takes the formula call: formula_fit)
  if (nzchar(res$warning)) warning(fn, ": ", res$warning, call. = FALSE)
  if (nzchar(res$overfit)) warning(fn, ": ", res$overfit, call. = FALSE)
  if (isTRUE(opts[["verbose"]])) print(fit)
  fit
}

# The likelihood (the roles of the core's likelihoods: lik_role): none given, the
# network's own, else the noise one for one output and the multi-class one for more.
valla_likelihood <- function(likelihood, m, fn) {
  if (is.null(likelihood)) {
    if (is.null(m$likelihood)) return(valla_lik_of(if (m$C == 1L) "noise" else "multi"))
    # the network's own likelihood: its outputs must fit it (a damaged or spliced model)
    multi <- lik_role(m$likelihood) == "multi"
    if (multi != (m$C >= 2L))
      stop_arg(fn, "model", "says likelihood = \"", m$likelihood, "\" but has ", m$C,
               " output", if (m$C != 1L) "s", if (multi)
               paste0(" (", m$likelihood, " needs C >= 2)") else " (it needs one)")
    return(m$likelihood)
  }
  sgp_call(C_option_check, fn, "likelihood", likelihood)  # the core's choices and message
  if (!is.null(m$likelihood) && likelihood != m$likelihood)
    stop_arg(fn, "likelihood", "is \"", likelihood, "\" but the ",
             if (m$kind == "nnet") "nnet fit" else "mlp_fit network", " implies \"",
             m$likelihood, "\"")
  multi <- lik_role(likelihood) == "multi"
  if (multi && m$C < 2L)
    stop_arg(fn, "likelihood", "\"", likelihood,
             "\" needs a network with C >= 2 outputs (it has 1)")
  if (!multi && m$C != 1L)
    stop_arg(fn, "likelihood", "\"", likelihood, "\" needs a network with one output (it has ",
             m$C, ")")
  likelihood
}

# Labels as the core wants them (multi-class 0..C-1, two classes 0/1) with the
# level names; by the likelihood's role (lik_role).
valla_labels <- function(y, likelihood, n, m, fn, arg) {
  y <- as_plain_numbers(y, fn, arg)
  if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
  two <- lik_role(likelihood) == "two"
  if (lik_role(likelihood) == "noise") {
    if (!is.numeric(y) || !is.null(dim(y))) stop_arg(fn, arg, "must be a numeric vector")
    if (length(y) != n) stop_arg(fn, arg, "has length ", length(y), " but '", sub("y$", "x", arg),
                                 "' has ", n, " rows")
    bad <- which(!is.finite(y))
    if (length(bad)) stop_arg(fn, arg, "contains NaN, NA or Inf (first at ", bad[1L], ")")
    return(list(y = as.double(y), n_class = 1L, levels = NULL))
  }
  levels <- NULL
  if (is.factor(y)) {
    levels <- levels(y)
    if (!is.null(m$levels) && !identical(levels, m$levels))
      stop_arg(fn, arg, "has levels ", paste(levels, collapse = ", "),
               " but the nnet fit was trained on ", paste(m$levels, collapse = ", "))
    want <- if (two) 2L else m$C
    if (length(levels) != want)
      stop_arg(fn, arg, "has ", length(levels), " levels but the network has ", want, " classes")
    if (anyNA(y)) stop_arg(fn, arg, "contains NA")
    y <- as.integer(y) - two
  } else if (is.logical(y)) {
    if (!two) stop_arg(fn, arg, "is logical; use labels 1..C or a factor")
    if (anyNA(y)) stop_arg(fn, arg, "contains NA")
    y <- as.integer(y)
  } else if (!is.numeric(y) || !is.null(dim(y))) {
    stop_arg(fn, arg, "must be a numeric vector, a factor or a logical vector")
  }
  if (length(y) != n) stop_arg(fn, arg, "has length ", length(y), " but '", sub("y$", "x", arg),
                                 "' has ", n, " rows")
  bad <- which(!is.finite(y))
  if (length(bad)) stop_arg(fn, arg, "contains NaN, NA or Inf (first at ", bad[1L], ")")
  if (two) {
    if (!all(y %in% c(0, 1)))
      stop_arg(fn, arg, "must be 0/1, logical or a 2-level factor for likelihood = \"",
               likelihood, "\" (found ", format(y[!y %in% c(0, 1)][1L]), ")")
    return(list(y = as.double(y), n_class = 2L,
                levels = if (is.null(levels)) m$levels else levels))
  }
  out <- y != round(y) | y < 1 | y > m$C
  if (any(out))
    stop_arg(fn, arg, "has labels outside 1..C = 1..", m$C, " (found ", format(y[out][1L]),
             " at ", which(out)[1L], ")")
  list(y = as.double(y) - 1, n_class = m$C, levels = if (is.null(levels)) m$levels else levels)
}

valla_layers <- function(layers, m, fn) {
  if (is.null(layers)) return(NULL)
  L <- m$L
  if (is.logical(layers) && length(layers) == L && !anyNA(layers)) return(as.integer(layers))
  if (is.numeric(layers) && all(layers %in% seq_len(L)) && length(layers) > 0)
    return(as.integer(seq_len(L) %in% layers))
  stop_arg(fn, "layers", "must be ", L, " logical flags or layer numbers in 1..", L)
}

#' Predictions of a valla fit at new inputs
#'
#' Works on a fit reloaded with \code{readRDS} (the fit is plain data).
#'
#' @param object a \code{valla} fit.
#' @param newdata m-by-d matrix of new inputs; for a fit made from a formula
#'   also a data frame with its variables (rows with NA predict NA).
#' @param type \code{"list"} (default): \code{list(mean, var, prob)} as in
#'   \code{valla}'s \code{$test} (regression adds \code{latent_var});
#'   \code{"response"}: the predictive mean (regression) or the class
#'   probabilities; \code{"class"}: the most probable class (a factor when the
#'   fit has level names, else 1..C or 0/1).
#' @param full_cov also return the C-by-C-by-m latent covariance \code{cov}.
#' @param prob_method \code{"probit"} (default) or \code{"mc"}.
#' @param mc_samples Monte-Carlo samples per point for \code{prob_method = "mc"}.
#' @param seed seed for \code{"mc"} (\code{NULL}: drawn from R's RNG).
#' @param threads OpenMP threads.
#' @param se.fit with \code{type = "response"}, \code{list(fit, se.fit)} as
#'   \code{glm} gives it: the standard error of the expected response (not of
#'   a new observation): regression the latent standard deviation
#'   \code{sqrt(latent_var)}; bernoulli the delta method at the network's
#'   logit, \eqn{p(1-p)} times the latent standard deviation with \eqn{p} =
#'   \code{plogis(mean)} (\code{fit} stays the probit approximation of the
#'   probability); softmax has none (an error).
#' @param ... nothing: an argument the method does not take is an error.
#' @return See \code{type} and \code{se.fit}.
#' @examples
#' x <- matrix(seq(-2, 2, length.out = 60))
#' y <- as.integer(x[, 1] + rnorm(60, sd = 0.5) > 0) + 1
#' net <- mlp_fit(x, y, hidden = 10, likelihood = "softmax", iterations = 500,
#'                lr = 0.01, seed = 1)
#' fit <- valla(net, x, y, inducing = 6, iterations = 200, seed = 1,
#'              verbose = FALSE)
#' predict(fit, matrix(c(-3, 0, 3)))$prob
#' predict(fit, matrix(c(-3, 0, 3)), type = "class")
#' @export
predict.valla <- function(object, newdata, type = c("list", "response", "class"),
                          full_cov = FALSE, prob_method = c("probit", "mc"),
                          mc_samples = 2048, seed = NULL,
                          threads = getOption("scalegp.threads"), se.fit = FALSE, ...) {
  fn <- "predict.valla"
  no_extra_args(list(...), fn)
  se.fit <- check_se_fit(se.fit, fn)
  valla_check_fit(object, fn)
  fd <- formula_newdata(object, newdata, fn, "newdata")
  if (!is.null(fd)) newdata <- fd$x
  newdata <- as_input_matrix(newdata, fn, "newdata", d = object$d)
  if (ncol(newdata) != object$d)
    stop_arg(fn, "newdata", "has ", ncol(newdata), " columns but the fit has ", object$d)
  # the options go to the core's table "valla_predict" (seed and threads: the context)
  opts <- list(type = if (missing(type)) "list" else type, full_cov = full_cov,
               prob_method = if (missing(prob_method)) "probit" else prob_method,
               mc_samples = mc_samples, threads = threads,
               seed = seed %||% as.double(sample.int(.Machine$integer.max, 1L)))
  p <- sgp_call(C_valla_predict, object, newdata, opts)  # the core reads and checks the fit
  type <- p$type
  out <- pred_class_names(p$pred, object, fn)
  role <- lik_role(object$likelihood)
  if (se.fit) return(formula_pad(pred_se_fit(out, type, object$C, fn, "response"), fd$na.action))
  formula_pad(switch(type,
    list = out,
    response = if (role == "noise") out$mean else out$prob,
    class = {
      k <- if (role == "two") as.integer(out$prob > 0.5) + 1L
           else max.col(out$prob, ties.method = "first")
      if (!is.null(object$levels)) factor(object$levels[k], levels = object$levels)
      else if (role == "two") k - 1L else k
    }), fd$na.action)
}

#' @export
print.valla <- function(x, ...) {
  valla_check_fit(x, "print.valla", "x")
  cat(sprintf("valla (%s): %s likelihood, n = %d, d = %d, C = %d, M = %d inducing points\n",
              x$method, x$likelihood, x$n, x$d, x$C, nrow(x$inducing)))
  cat(sprintf("  prior_var %.4g%s; %s\n", x$prior_var,
              if (is.null(x$noise)) "" else sprintf(", noise %.4g", x$noise),
              if (x$method != "valla") "no optimization"
              else if (x$closed_form) "closed-form A"
              else sprintf("%s Adam iterations%s%s", fmt_count(x$iterations),
                           if (x$stopped_early) sprintf(" (early stop, best at %s)",
                                                        fmt_count(x$best_iteration)) else "",
                           valla_stop_note(x))))
  if (!is.null(x$test)) cat(sprintf("  predictions at %d test inputs in $test\n",
                                    NROW(x$test$mean)))
  invisible(x)
}

# " (diverged at iteration k)" / " (the training loss rose)" for print, else "".
valla_stop_note <- function(x) {
  switch(if (is.null(x$stop_reason)) "" else x$stop_reason,
         diverged = sprintf(" (diverged at iteration %s)", format(x$diverged_at)),
         loss_rose = " (the training loss rose)", "")
}

#' Summary of a valla fit
#'
#' @param object a \code{valla} fit.
#' @param ... unused.
#' @return An object of class \code{summary.valla} (a list): method,
#'   likelihood, n, d, C, M, the number of network parameters, prior_var,
#'   noise, iterations, best iteration, final objective, best validation NLL,
#'   clamped variances.
#' @export
summary.valla <- function(object, ...) {
  valla_check_fit(object, "summary.valla")
  P <- sum(vapply(seq_along(object$model$weights), function(l)
    length(object$model$weights[[l]]) + length(object$model$biases[[l]]), 0)) +
    length(object$model$skip)
  v <- object$history$validation
  s <- list(method = object$method, likelihood = object$likelihood, n = object$n,
            d = object$d, C = object$C, M = nrow(object$inducing), parameters = P,
            activation = object$model$activation, prior_var = object$prior_var,
            noise = object$noise, iterations = object$iterations,
            best_iteration = object$best_iteration, stopped_early = object$stopped_early,
            objective = if (length(object$history$objective))
              utils::tail(object$history$objective, 1L) else NA_real_,
            val_nll = if (nrow(v)) min(v$nll) else NA_real_, clamps = object$clamps)
  class(s) <- "summary.valla"
  s
}

#' @export
print.summary.valla <- function(x, ...) {
  cat(sprintf("valla fit (method \"%s\") with %s likelihood\n", x$method, x$likelihood))
  cat(sprintf("  network      %d parameters, %s hidden units, C = %d outputs\n", x$parameters,
              x$activation, x$C))
  cat(sprintf("  data         n = %d, d = %d; M = %d inducing points\n", x$n, x$d, x$M))
  cat(sprintf("  prior_var    %.5g%s\n", x$prior_var,
              if (is.null(x$noise)) "" else sprintf(", noise %.5g", x$noise)))
  cat(sprintf("  training     %s iterations%s, final objective %.5g\n", fmt_count(x$iterations),
              if (x$stopped_early) sprintf(" (stopped early; best at %s)",
                                           fmt_count(x$best_iteration)) else "",
              x$objective))
  if (is.finite(x$val_nll)) cat(sprintf("  validation   best mean NLL %.5g\n", x$val_nll))
  if (x$clamps > 0) cat(sprintf("  %s minibatch variances clamped at 0\n", fmt_count(x$clamps)))
  invisible(x)
}

#' Plot a valla fit
#'
#' \code{what = "fit"} (1-D inputs): the network output with bands of 2
#' predictive standard deviations (regression; the latent band shaded
#' darker) or the class probabilities with 2-sd latent bands turned into
#' probabilities (classification: the probability of \code{class}), over a
#' grid spanning the training inputs, with the inducing points as ticks and
#' the data when given. \code{what = "history"}: the objective per iteration
#' and the validation NLL.
#'
#' @param x a \code{valla} fit.
#' @param what \code{"fit"} or \code{"history"}.
#' @param data optional \code{list(x, y)} drawn as points.
#' @param class class shown for softmax (default 1).
#' @param n_grid grid points.
#' @param ... passed to the base graphics call that draws the frame.
#' @return \code{x}, invisibly.
#' @examples
#' x <- matrix(runif(100, -2, 2))
#' y <- sin(2 * x[, 1]) + rnorm(100, sd = 0.1)
#' net <- mlp_fit(x, y, hidden = 16, iterations = 800, lr = 0.01, seed = 1)
#' fit <- valla(net, x, y, inducing = 8, iterations = 300, lr = 0.01,
#'              seed = 1, verbose = FALSE)
#' plot(fit, data = list(x, y))
#' plot(fit, what = "history")
#' @export
plot.valla <- function(x, what = c("fit", "history"), data = NULL, class = 1L, n_grid = 200,
                       ...) {
  what <- check_choice(if (missing(what)) "fit" else what, c("fit", "history"), "plot.valla",
                       "what")
  valla_check_fit(x, "plot.valla", "x")
  fit <- x
  if (what == "history") {
    obj <- fit$history$objective
    v <- fit$history$validation
    if (!length(obj) && !nrow(v)) {
      graphics::plot.new()
      graphics::title(main = "no training history (closed form or baseline method)")
      return(invisible(fit))
    }
    op <- graphics::par(mfrow = c(1L, if (nrow(v)) 2L else 1L))
    on.exit(graphics::par(op))
    if (length(obj)) plot_call(graphics::plot, seq_along(obj), obj, type = "l", xlab = "iteration",
                               ylab = "objective", main = "training objective", .user = list(...))
    if (nrow(v)) {
      graphics::plot(v$iteration, v$nll, type = "b", xlab = "iteration",
                     ylab = "validation NLL", main = "validation")
      if (fit$best_iteration > 0) graphics::abline(v = fit$best_iteration, lty = 2)
    }
    return(invisible(fit))
  }
  if (fit$d != 1L) stop_arg("plot.valla", "x", "what = \"fit\" needs 1-D inputs (d = ", fit$d, ")")
  r <- range(fit$x_range, if (!is.null(data)) data[[1L]])
  r <- r + c(-0.1, 0.1) * diff(r)
  g <- matrix(seq(r[1L], r[2L], length.out = n_grid))
  p <- predict(fit, g)
  role <- lik_role(fit$likelihood)
  if (role == "noise") {
    sd <- sqrt(p$var); lsd <- sqrt(p$latent_var)
    ylim <- range(p$mean - 2 * sd, p$mean + 2 * sd, if (!is.null(data)) data[[2L]])
    plot_call(graphics::plot, g, p$mean, type = "n", ylim = ylim, xlab = "x", ylab = "y",
              .user = list(...))
    graphics::polygon(c(g, rev(g)), c(p$mean - 2 * sd, rev(p$mean + 2 * sd)),
                      col = grDevices::adjustcolor("steelblue", 0.25), border = NA)
    graphics::polygon(c(g, rev(g)), c(p$mean - 2 * lsd, rev(p$mean + 2 * lsd)),
                      col = grDevices::adjustcolor("steelblue", 0.4), border = NA)
    graphics::lines(g, p$mean, lwd = 2, col = "steelblue4")
  } else {
    f <- as.matrix(p$mean); s <- sqrt(as.matrix(p$var))
    two <- role == "two"
    k <- if (two) 1L else class
    pr <- if (two) p$prob else p$prob[, k]
    band <- function(z) if (two) stats::plogis(z) else {
      e <- exp(f - apply(f, 1, max)); e[, k] <- exp(z - apply(f, 1, max)); e[, k] / rowSums(e)
    }
    lev <- if (is.null(fit$levels)) k else fit$levels[k + two]
    plot_call(graphics::plot, g, pr, type = "n", ylim = c(0, 1), xlab = "x",
              ylab = sprintf("P(class %s)", lev), .user = list(...))
    graphics::polygon(c(g, rev(g)), c(band(f[, k] - 2 * s[, k]), rev(band(f[, k] + 2 * s[, k]))),
                      col = grDevices::adjustcolor("steelblue", 0.3), border = NA)
    graphics::lines(g, pr, lwd = 2, col = "steelblue4")
  }
  graphics::rug(fit$inducing[, 1L], col = "darkorange", lwd = 2)
  if (!is.null(data)) {
    yy <- data[[2L]]
    if (role != "noise") {
      yy <- if (is.factor(yy)) as.integer(yy) else yy
      yy <- if (role == "two") as.numeric(yy == max(yy)) else as.numeric(yy == k)
    }
    graphics::points(data[[1L]], yy, pch = 20, col = grDevices::adjustcolor("black", 0.5))
  }
  invisible(fit)
}
