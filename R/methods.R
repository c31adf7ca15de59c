# methods.R -- the stats generics a glm user reaches for, on every fit class:
# logLik (so that stats' AIC and BIC work), nobs, coef, and update through the
# call every fit keeps. predict's se.fit is in the predict methods; its
# standard errors come from pred_se_fit below.

#' Log-likelihood, coefficients and observations of a fit
#'
#' \code{logLik} gives the fit's log marginal likelihood as a \code{"logLik"}
#' object, so that \code{\link[stats]{AIC}} and \code{\link[stats]{BIC}} work
#' as for \code{glm}: for \code{gp_laplace} the Laplace evidence
#' \code{object$loglik} (exact, or with \code{evidence = "stochastic"} an
#' estimate whose standard error is \code{object$loglik_se}), for
#' \code{ski_gsgp} the GP log marginal likelihood \code{object$loglik} (an SLQ
#' estimate, or exact with \code{loglik_method = "exact"}). Its \code{df} is the
#' number of hyperparameters learned from the data (\code{object$learned},
#' counting each ARD lengthscale and each softmax class mean; a given value is
#' not counted) and \code{nobs} the number of observations. A fit whose
#' likelihood was not computed gives an error that says how to have it:
#' \code{ski_gsgp(..., loglik = TRUE)}; for \code{gp_laplace} it is computed
#' whenever something is learned and otherwise while the exact evidence is
#' affordable (else give \code{evidence = "stochastic"}).
#'
#' A \code{valla} fit has no \code{logLik}: the network's weights were trained
#' outside it (they are not counted by any \code{df}), and VaLLA's objective
#' is a minibatch bound of the linearized model at the trained weights, not
#' the likelihood of a model fitted to the data. Compare \code{valla} fits on
#' data the network was not trained on with \code{\link{valla_metrics}}
#' (\code{AIC} and \code{BIC} are errors through \code{logLik}).
#'
#' \code{coef} gives the hyperparameters the fit used, a named vector:
#' \code{lengthscale} (\code{lengthscale1..d} with ARD), \code{outputscale},
#' \code{mean} (\code{mean1..C} for softmax) and \code{noise} where the model
#' has one noise variance (not per point); for \code{valla} the prior variance
#' \code{prior_var} and, for regression, \code{noise}.
#'
#' Every fit keeps its call (\code{object$call}), so
#' \code{\link[stats]{update}} refits with changed arguments:
#' \code{update(fit, lengthscale = 1)}.
#'
#' @param object a \code{gp_laplace}, \code{ski_gsgp} or \code{valla} fit.
#' @param ... unused.
#' @return \code{logLik}: a \code{"logLik"} object with attributes \code{df}
#'   and \code{nobs}; \code{nobs}: the number of observations; \code{coef}: a
#'   named numeric vector.
#' @examples
#' set.seed(1)
#' x <- matrix(runif(40, -2, 2))
#' y <- rbinom(40, 1, plogis(2 * sin(x[, 1])))
#' fit <- gp_laplace(x, y, seed = 1)
#' logLik(fit)
#' AIC(fit)
#' coef(fit)
#' fit1 <- update(fit, lengthscale = 1)
#' coef(fit1)
#' @name scalegp_methods
#' @importFrom stats logLik nobs coef
NULL

#' @rdname scalegp_methods
#' @export
logLik.gp_laplace <- function(object, ...) {
  fn <- "logLik.gp_laplace"
  fit <- laplace_fit_check(object, fn)
  ll <- fit$loglik
  if (is.null(ll) || is.na(ll))
    stop(fn, ": the fit has no log evidence ('object$loglik' is NA): it is computed whenever ",
         "something is learned, and with nothing learned while the exact evidence is ",
         "affordable; refit with evidence = \"stochastic\" (not softmax) or learn a ",
         "hyperparameter (a time_limit reached before it, or an evidence that failed, also ",
         "leaves it out: see the fit's warning)", call. = FALSE)
  # df counts the optimizer's coordinates: one isotropic lengthscale on scaled
  # inputs is one, though hyper shows it per column on the inputs' own scale
  h <- fit$hyper
  sl <- fit[["scaling", exact = TRUE]]$lengthscale
  if (!is.null(sl)) h$lengthscale <- sl
  fit_loglik(ll, h, fit$learned, nrow(fit$x))
}

#' @rdname scalegp_methods
#' @export
logLik.ski_gsgp <- function(object, ...) {
  fn <- "logLik.ski_gsgp"
  fit <- ski_check_fit(object, fn)
  ll <- fit[["loglik", exact = TRUE]]
  if (is.null(ll) || is.na(ll))
    stop(fn, ": the fit has no log marginal likelihood ('object$loglik' is missing): ",
         "refit with loglik = TRUE (given statistics need probe sketches: ",
         "ski_stats(..., probes = ))", call. = FALSE)
  fit_loglik(ll, fit$hyper, fit$learned, fit$stats$n)
}

#' @rdname scalegp_methods
#' @export
logLik.valla <- function(object, ...) {
  stop("logLik.valla: a valla fit has no log-likelihood: the network was trained outside ",
       "it and VaLLA's objective is a bound of the linearized model at those weights; ",
       "compare fits on held-out data with valla_metrics()", call. = FALSE)
}

# A "logLik" object: df counts the learned hyperparameters, each coordinate of
# a vector one (ARD lengthscales, softmax means), as the optimizer's theta does.
fit_loglik <- function(ll, hyper, learned, n) {
  df <- sum(vapply(as.character(learned), function(h) length(hyper[[h]]), 0))
  structure(as.double(ll), df = as.integer(df), nobs = as.integer(n), class = "logLik")
}

#' @rdname scalegp_methods
#' @export
nobs.gp_laplace <- function(object, ...) {
  nrow(laplace_fit_check(object, "nobs.gp_laplace")$x)
}

#' @rdname scalegp_methods
#' @export
nobs.ski_gsgp <- function(object, ...) {
  as.integer(ski_check_fit(object, "nobs.ski_gsgp")$stats$n)
}

#' @rdname scalegp_methods
#' @export
nobs.valla <- function(object, ...) {
  valla_check_fit(object, "nobs.valla")
  as.integer(object$n)
}

#' @rdname scalegp_methods
#' @export
coef.gp_laplace <- function(object, ...) {
  fit <- laplace_fit_check(object, "coef.gp_laplace")
  hyper_coef(fit$hyper %||% list(lengthscale = fit$kernel$lengthscale,
                                 outputscale = fit$kernel$outputscale))
}

#' @rdname scalegp_methods
#' @export
coef.ski_gsgp <- function(object, ...) {
  fit <- ski_check_fit(object, "coef.ski_gsgp")
  hyper_coef(fit$hyper %||% fit[c("lengthscale", "outputscale", "noise")])
}

#' @rdname scalegp_methods
#' @export
coef.valla <- function(object, ...) {
  valla_check_fit(object, "coef.valla")
  c(prior_var = object$prior_var, if (!is.null(object$noise)) c(noise = object$noise))
}

# The hyperparameters as one named vector: a vector's elements numbered
# (lengthscale1..d, mean1..C), as the optimizer names its coordinates; a noise
# that is NULL (none, or one per point) left out.
hyper_coef <- function(h) {
  h <- h[!vapply(h, is.null, NA)]
  unlist(lapply(names(h), function(nm) {
    v <- as.double(h[[nm]])
    stats::setNames(v, if (length(v) > 1L) paste0(nm, seq_along(v)) else nm)
  }))
}

# predict's se.fit = TRUE, as glm's: list(fit, se.fit). "link": the latent mean
# and its sd. "response": the expected response and the standard error of that
# expectation (not of a new observation): identity link (gaussian): the latent
# sd; log link (counts): the rate's sd under the latent posterior, sqrt(rate_var),
# which the core computes exactly for the lognormal rate; logit link (bernoulli,
# binomial): the delta method at the latent mean, p (1 - p) sd with p =
# plogis(mean), as glm's; softmax: an error (its classes' latent values are
# correlated, and predict gives their marginal variances only). out: predict's
# list (mean, var, and latent_var (valla's gaussian var includes the noise),
# prob, rate_mean, rate_var or y_var).
pred_se_fit <- function(out, type, n_class, fn, types = c("link", "response")) {
  lat_var <- out[["latent_var", exact = TRUE]] %||% out$var
  if (!type %in% types)
    stop_arg(fn, "se.fit", "is for type = ", paste0("\"", types, "\"", collapse = " or "),
             " (got type = \"", type, "\"; the list has the variances)")
  if (type == "link") return(list(fit = out$mean, se.fit = sqrt(lat_var)))
  if (!is.null(out[["rate_var", exact = TRUE]]))
    return(list(fit = out$rate_mean, se.fit = sqrt(out$rate_var)))
  if (is.null(out[["prob", exact = TRUE]]))
    return(list(fit = out$mean, se.fit = sqrt(lat_var)))
  if (n_class > 1L)
    stop_arg(fn, "se.fit", "with type = \"response\" is not available for softmax (the ",
             "classes' latent values are correlated); use type = \"link\"")
  p <- stats::plogis(out$mean)
  list(fit = out$prob, se.fit = p * (1 - p) * sqrt(lat_var))
}

# se.fit given to predict: one TRUE or FALSE.
check_se_fit <- function(se.fit, fn) {
  if (!is.logical(se.fit) || length(se.fit) != 1L || is.na(se.fit))
    stop_arg(fn, "se.fit", "must be TRUE or FALSE")
  se.fit
}

# A method's ... holds what it does not take: an error naming the first (a
# misspelled option would otherwise be ignored).
no_extra_args <- function(dots, fn) {
  if (!length(dots)) return(invisible())
  nm <- names(dots)
  bad <- if (is.null(nm) || !nzchar(nm[1L])) "..1" else nm[1L]
  stop_arg(fn, bad, "is not an argument of ", fn)
}
