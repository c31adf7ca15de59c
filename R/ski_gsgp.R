#' Structured kernel interpolation as a grid-structured GP (GSGP)
#'
#' Gaussian-process regression whose kernel is interpolated from a regular
#' grid: \eqn{k(x, x') \approx w(x)^\top K_G w(x')} with sparse cubic (or
#' linear) interpolation weights \eqn{w} and the kernel matrix \eqn{K_G} of the
#' grid points. The model is the exact GP with covariance
#' \eqn{W K_G W^\top + \sigma^2 I}. With \code{method = "gsgp"} every solver
#' iteration costs only grid-size work, \eqn{O(m \log m)}: the data enter once,
#' through the sufficient statistics \eqn{W^\top W}, \eqn{W^\top y},
#' \eqn{y^\top y} and \eqn{n} (see \code{\link{ski_stats}}), so data larger
#' than memory or spread over machines are fitted from merged statistics.
#' \code{method = "ski"} runs classic SKI conjugate gradients on the n data
#' (\eqn{O(n + m \log m)} per iteration) for comparison; both give the same
#' posterior.
#'
#' The posterior mean is \eqn{\mu(x_*) = w(x_*)^\top a} with the grid weights
#' \code{weights} = \eqn{a = K_G W^\top (W K_G W^\top + \sigma^2 I)^{-1} y}, found
#' by conjugate gradients to the relative residual \code{tol}. Variances
#' (of the latent function, without the noise) are \code{"exact"} (one
#' grid-size solve per test point, run until a bound on the variance's
#' relative error from the solve's residual is at most 1e-4: a variance is the
#' difference of two numbers near the prior, many times smaller at small
#' noise, and the residual \code{tol} alone does not resolve it) or
#' \code{"lanczos"} (a rank-\code{rank} LOVE cache built once; cheap per test
#' point, never negative, at most the prior variance; the same bound is
#' checked at 8 grid nodes of the most data, \code{love$error}, and a cache
#' whose bound exceeds 1e-4 there gives a warning: raise \code{rank}). With \code{loglik = TRUE} the log marginal likelihood is
#' estimated by stochastic Lanczos quadrature with \code{probes} random probes.
#'
#' \strong{Hyperparameters.} A \code{lengthscale}, \code{outputscale} or
#' \code{noise} not given is learned: the SLQ log marginal likelihood and its
#' stochastic gradient, both from the sufficient statistics and the fixed probe
#' sketches only (no pass over the data; the cost of a step does not depend on
#' n), are maximized by L-BFGS on the log scale from data-based starting values
#' (outputscale \eqn{var(y)/2}, noise \eqn{var(y)/4}, lengthscale the median
#' distance between points of a subsample, or from the statistics' extent when
#' only \code{stats} are given); a learned lengthscale stays at least 3 grid
#' cells. A value given is fixed unless \code{learn} names it (then it is the
#' start); \code{learn = character(0)} fixes all, the ones not given at 1.
#' Learning needs probe sketches (\code{ski_stats(..., probes = )} for given
#' statistics). The fit then runs at the values used.
#'
#' \strong{Prior mean.} The prior mean is a constant \code{mean}. Not given,
#' it is learned: at fixed kernel and noise it is the GLS estimate
#' \eqn{1'A^{-1}y / 1'A^{-1}1} (one more solve, from the statistics alone);
#' learned with the others it is a coordinate of the optimizer (derivative
#' \eqn{1'A^{-1}(y - \mu 1)}) and ends at its GLS estimate at the learned
#' values. The solves run on \eqn{y - \mu}, so \code{tol} is relative to the
#' data's variation, not to their offset (uncentred data such as lake levels
#' near 579 ft need no centring); predictions add \eqn{\mu}.
#'
#' \strong{Default grid.} Without \code{grid_size}, a given (or fixed)
#' lengthscale sets the spacing from the kernel's smoothness: the posterior
#' mean's interpolation error is estimated as \eqn{(d/2)\sqrt{s} C (h/\ell)^p}
#' with \eqn{p} = 1, 2, 3, 3 and \eqn{C} = 1.7, 1.3, 1.3, 0.12 for Matern-1/2,
#' 3/2, 5/2 and rbf (cubic interpolation; calibrated against exact GPs), and
#' \eqn{h} is chosen so that it is 5\% of the noise sd (at least 3 cells per
#' lengthscale; a noise or outputscale still to be learned counts at the
#' ratio of their starting values), capped at 2^20 grid points. A learned
#' lengthscale sizes the grid from n. The fit reports the estimate as
#' \code{interp_error} and warns when it exceeds a tenth of the noise sd.
#'
#' @param x n-by-d matrix of inputs (d <= 8; a vector is one dimension), or a
#'   formula \code{y ~ x1 + x2} (or \code{y ~ .}) on \code{data}: the inputs
#'   are its model matrix without the intercept column, and every predictor
#'   must be numeric (a factor, character or logical one is an error naming it:
#'   the inputs span a grid). The fit keeps \code{terms} (as \code{lm} does),
#'   so \code{predict(fit, newdata = df)} takes a data frame with those
#'   variables in any order (rows with NA in them predict NA).
#' @param y numeric vector of n responses (with a formula \code{x}: the
#'   response comes from the formula; a data frame here is \code{data}).
#' @param xtest optional test inputs (for a formula fit also a data frame);
#'   predictions are then in \code{test}.
#' @param data,subset,na.action with a formula \code{x}: where its variables
#'   are, which rows to use and what to do with NA (default
#'   \code{getOption("na.action")}), as in \code{\link[stats]{lm}}.
#' @param stats sufficient statistics (\code{\link{ski_stats}},
#'   \code{\link{ski_stats_merge}}) instead of \code{x}, \code{y} (both
#'   given is an error, but for \code{method = "ski"}, which needs the data
#'   the statistics came from); the grid and interpolation are theirs. For \code{loglik = TRUE} they must carry
#'   probe sketches (\code{ski_stats(..., probes = )}).
#' @param ... options by name (see Options): \code{grid_size},
#'   \code{grid_bounds}, \code{kernel}, \code{lengthscale},
#'   \code{outputscale}, \code{noise}, \code{interpolation}, \code{method},
#'   \code{tol}, \code{max_iter}, \code{variance}, \code{rank},
#'   \code{loglik}, \code{probes}, \code{bounds_policy} (also used for
#'   \code{xtest} and \code{predict}, where \code{"drop"} gives \code{NaN}
#'   mean and variance at points outside the grid), \code{precond_rank} (the
#'   preconditioner \eqn{P = \sigma^2 I + W V \Lambda V^\top W^\top} with the
#'   top eigenpairs of \eqn{K_G}; \code{tol}, \code{rel_residual} and
#'   \code{history} still measure the unpreconditioned residual), ...; the
#'   core checks each of them.
#' @eval rd_options("ski_gsgp")
#' @return A list of class \code{ski_gsgp}: \code{grid} (\code{size},
#'   \code{bounds}, \code{interpolation}), \code{weights} (m grid weights,
#'   first dimension fastest: \code{array(weights, grid$size)}),
#'   \code{iterations}, \code{converged}, \code{rel_residual} (the true
#'   relative residual \eqn{\|y - A x\| / \|y\|} of the returned solution,
#'   recomputed, not CG's running estimate), \code{stop} (why the solve
#'   stopped: \code{"tol"} (converged), \code{"max_iter"}, \code{"accuracy"}
#'   (rounding errors keep the residual above \code{tol}: raise it) or
#'   \code{"breakdown"}), \code{history}
#'   (relative residual per iteration), \code{loglik}, \code{logdet},
#'   \code{logdet_se}, \code{datafit} (with \code{loglik = TRUE}),
#'   \code{stats}, the model (\code{kernel}, \code{lengthscale},
#'   \code{outputscale}, \code{noise}, \code{method}, \code{variance}, ...),
#'   \code{love} (the LOVE cache with \code{variance = "lanczos"}: \code{Ft},
#'   \code{c0} and \code{error}, the bound on its variances' relative error at
#'   its check points), \code{timings} and \code{test} (as
#'   \code{\link{predict.ski_gsgp}} gives it) when \code{xtest} is given; \code{interp_error} (the estimated interpolation error of the
#'   posterior mean; \code{NA} for linear interpolation); the model
#'   selection: \code{hyper} (the lengthscale, outputscale, mean and noise
#'   used), \code{learned}, \code{loglik} with \code{loglik_se}
#'   and \code{loglik_grad} (named: \code{lengthscale} or
#'   \code{lengthscale1..d}, \code{outputscale}, \code{mean}, \code{noise},
#'   with respect to the logarithms but for the mean) when anything was learned or \code{loglik = TRUE}, and
#'   \code{optim} (a data frame per evaluation: \code{evaluation},
#'   \code{loglik}, \code{grad_norm}, \code{seconds} and the values). An
#'   optimizer that did not converge gives a warning. A fit that did not reach \code{tol} has \code{converged = FALSE}
#'   and gives a warning that says why; so has one whose variances at
#'   \code{xtest} are not resolved (\code{test$converged}). A solve that overflows (a non-finite
#'   value: extreme \code{outputscale}, \code{noise} or \code{y}) is an
#'   error.
#'   \code{call} is the call (\code{update} refits from it); \code{logLik}
#'   (with \code{loglik = TRUE}), \code{AIC}, \code{BIC}, \code{coef} and
#'   \code{nobs} work as for \code{glm} (\code{\link{scalegp_methods}}).
#' @seealso \code{\link{ski_stats}}, \code{\link{predict.ski_gsgp}}
#' @examples
#' set.seed(1)
#' x <- runif(500, 0, 4)
#' y <- sin(2 * x) + rnorm(500, sd = 0.2)
#' fit <- ski_gsgp(x, y, lengthscale = 0.5, outputscale = 1, noise = 0.04, variance = "lanczos",
#'                 xtest = seq(0, 4, by = 0.5))
#' fit
#' cbind(fit$test$mean, sin(2 * seq(0, 4, by = 0.5)))
#' # the same fit from statistics computed in two chunks
#' s <- ski_stats_merge(ski_stats(x[1:250], y[1:250], fit),
#'                      ski_stats(x[251:500], y[251:500], fit, first_row = 250))
#' fit2 <- ski_gsgp(stats = s, lengthscale = 0.5, outputscale = 1, noise = 0.04)
#' max(abs(fit2$weights - fit$weights))
#' # a formula on a data frame
#' df <- data.frame(x = x, y = y)
#' ff <- ski_gsgp(y ~ x, data = df, lengthscale = 0.5, outputscale = 1, noise = 0.04)
#' predict(ff, data.frame(x = c(1, 2)))$mean
#' @export
ski_gsgp <- function(x = NULL, y = NULL, ..., xtest = NULL, stats = NULL, data = NULL,
                     subset = NULL, na.action = NULL) {
  fn <- "ski_gsgp"
  if (inherits(x, "formula"))
    return(formula_fit(match.call(), parent.frame(), fn, numeric_only = TRUE))
  if (!missing(data) || !missing(subset) || !missing(na.action)) formula_only(fn)
  opts <- verb_options(fn, list(...))
  if (!is.null(x) || !is.null(y)) {
    if (is.null(x)) stop_arg(fn, "x", "is missing (y was given)")
    x <- as_input_matrix(x, fn, "x")
    if (is.null(y)) stop_arg(fn, "y", "is missing (x was given)")
    y <- ski_check_y(y, nrow(x), fn)
  }
  if (!is.null(stats)) stats <- structure(ski_check_stats(stats, fn), class = "ski_stats")
  # the core checks the options (and against the data), makes the statistics, fits
  r <- sgp_call(C_ski_gsgp, x, y, stats, opts)
  if (!is.null(r$stats)) stats <- structure(r$stats, class = "ski_stats")
  u <- r$used
  lanczos <- u$variance == "lanczos"
  fit <- c(list(grid = stats$grid, weights = r$weights, iterations = as.integer(r$iterations),
                converged = r$converged, rel_residual = r$rel_residual,
                history = data.frame(iteration = seq_along(r$history) - 1L,
                                     rel_residual = r$history),
                stats = stats),
           u[c("kernel", "lengthscale", "outputscale", "noise", "method", "variance")],
           list(rank = if (lanczos) nrow(r$love_Ft) else NULL),
           u[c("tol", "max_iter", "bounds_policy", "backend", "seed", "slq_max_iter",
               "precond_rank")],
           list(love = if (lanczos) list(Ft = r$love_Ft, c0 = r$love_c0, error = r$love_error)
                       else NULL))
  if (!is.null(u$alpha)) fit$alpha <- u$alpha  # only kernels that read it (kernel table)
  if (!is.na(r$loglik))  # with loglik = TRUE, and whenever something was learned
    fit[c("loglik", "logdet", "logdet_se", "datafit", "probes_used")] <-
      list(r$loglik, r$logdet, r$logdet_se, r$datafit, as.integer(r$probes_used))
  sel <- r$selection
  fit[c("hyper", "loglik_grad", "learned", "optim")] <-
    list(sel$hyper, sel$loglik_grad, sel$learned, as.data.frame(sel$optim))
  if (!is.na(r$loglik_se)) fit$loglik_se <- r$loglik_se
  fit$stop <- r$stop
  fit$interp_error <- r$interp_error
  fit$timings <- c(preprocess = r$seconds[1], solve = r$seconds[2])
  fit$call <- match.call()  # (a formula's fit takes the formula call: formula_fit)
  class(fit) <- "ski_gsgp"
  if (nzchar(u$warning)) warning(u$warning, call. = FALSE)
  if (nzchar(u$loglik_warning)) warning(u$loglik_warning, call. = FALSE)
  if (nzchar(u$selection_warning)) warning(u$selection_warning, call. = FALSE)
  if (nzchar(u$grid_warning)) warning(u$grid_warning, call. = FALSE)
  if (!is.null(xtest)) {
    t2 <- proc.time()[["elapsed"]]
    fit$test <- ski_predict_impl(fit, xtest, u$variance, opts[["threads"]], u$backend, fn,
                                 "xtest")
    fit$timings[["predict"]] <- proc.time()[["elapsed"]] - t2
    # the fit's results include its variances: not resolved, not converged
    fit$converged <- fit$converged && fit$test$converged
  }
  if (isTRUE(opts[["verbose"]])) print(fit)
  fit
}

#' Predictions of a ski_gsgp fit
#'
#' @param object a \code{ski_gsgp} fit (also after \code{saveRDS}/\code{readRDS}).
#' @param newdata matrix of test inputs (d columns); for a fit made from a
#'   formula also a data frame with its variables (rows with NA predict NA).
#' @param variance \code{"none"}, \code{"lanczos"} (needs a fit with
#'   \code{variance = "lanczos"}) or \code{"exact"}; default the fit's.
#' @param threads OpenMP threads.
#' @param backend \code{"auto"}, \code{"cpu"} or \code{"cuda"}; default the fit's.
#' @param se.fit \code{TRUE}: \code{list(fit, se.fit)} as \code{glm} gives it,
#'   the posterior mean and its standard error, the square root of the latent
#'   (noise-free) variance; it needs a \code{variance} other than \code{"none"}.
#' @param ... nothing: an argument the method does not take is an error.
#' @return With \code{se.fit = TRUE} \code{list(fit, se.fit)}, else
#'   \code{list(mean, var, converged, var_error, clamped)}: the
#'   posterior mean and the latent (noise-free) posterior variance (\code{NULL}
#'   with \code{variance = "none"}; add \code{object$noise} for the variance
#'   of a new observation); \code{converged}, \code{FALSE} when the variances
#'   are not resolved (exact: a solve did not meet \code{tol} or its bound;
#'   lanczos: the fit's check of its cache), with a warning; \code{var_error},
#'   the bound on their relative error (exact: the largest at these points;
#'   lanczos: the fit's at its check points; \code{NA} when not known);
#'   \code{clamped}, how many variance estimates fell below 0 and were set to
#'   0 (with a warning).
#' @examples
#' x <- runif(100); fit <- ski_gsgp(x, cos(3 * x), lengthscale = 0.3, outputscale = 1,
#'                                 noise = 0.01)
#' predict(fit, c(0.2, 0.5), variance = "exact")
#' @importFrom stats predict
#' @export
predict.ski_gsgp <- function(object, newdata, variance = object$variance,
                             threads = getOption("scalegp.threads"),
                             backend = if (is.null(object$backend)) "auto" else object$backend,
                             se.fit = FALSE, ...) {
  fn <- "predict.ski_gsgp"
  no_extra_args(list(...), fn)
  se.fit <- check_se_fit(se.fit, fn)
  fd <- formula_newdata(object, newdata, fn, "newdata")
  p <- ski_predict_impl(object, if (is.null(fd)) newdata else fd$x, variance, threads, backend,
                        fn, "newdata")
  if (se.fit) {
    if (is.null(p$var))
      stop_arg(fn, "se.fit", "needs variances (variance = \"none\"): give variance = ",
               "\"exact\" or \"lanczos\"")
    p <- list(fit = p$mean, se.fit = sqrt(p$var))
  }
  formula_pad(p, fd$na.action)
}

# fn, arg: the user's function and its argument of the test inputs (ski_gsgp's
# xtest, predict's newdata), named in errors.
ski_predict_impl <- function(object, newdata, variance, threads, backend, fn, arg) {
  object <- ski_check_fit(object, fn)
  xs <- as_input_matrix(newdata, fn, arg)
  d <- length(object$grid$size)
  if (d > 1L && ncol(xs) == 1L && nrow(xs) == d) xs <- t(xs)  # one point as a column
  # the core checks the fit, the options (variance, backend: by default the fit's) and xs
  p <- sgp_call(C_ski_predict, object, fn, "object", xs,
             list(variance = variance, backend = backend, threads = threads), arg)
  if (nzchar(p$warning)) warning(p$warning, call. = FALSE)  # worded by the core
  # (under bounds_policy "drop" the core gives NaN at points outside the grid)
  p[names(p) != "warning"]
}


#' @export
print.ski_gsgp <- function(x, ...) {
  x <- ski_check_fit(x, "print.ski_gsgp", "x")
  cat(sprintf("<ski_gsgp> %s, %g points, %s grid (%d points, %s), %s kernel\n",
              x$method, x$stats$n, paste(x$grid$size, collapse = " x "),
              as.integer(prod(x$grid$size)), x$grid$interpolation, x$kernel))
  # the mean solve's own state is its stop (converged also covers the xtest variances)
  mean_ok <- if (is.null(x$stop)) x$converged else identical(x$stop, "tol")
  cat(sprintf("  mean solve: %d iterations, relative residual %.3g (%s)\n", x$iterations,
              x$rel_residual, if (mean_ok) "converged" else "NOT converged"))
  cat(ski_hyper_line(x), "\n", sep = "")
  if (!is.null(x$loglik))
    cat(sprintf("  log marginal likelihood %.6g %s(logdet %.6g)\n", x$loglik,
                if (isTRUE(x$logdet_se > 0)) sprintf("+- %.2g ", x$logdet_se / 2)
                else if (isTRUE(x$logdet_se == 0)) "exact " else "",
                x$logdet))
  if (!is.null(x$test))
    cat(sprintf("  predictions at %d test points%s\n", length(x$test$mean),
                if (isFALSE(x$test$converged)) " (variances NOT resolved)" else ""))
  invisible(x)
}

# "  lengthscale .., outputscale .., mean .., noise ..; learned: .." (the values used)
ski_hyper_line <- function(x) {
  num <- function(v) fmt_g(v)
  mu <- x[["hyper"]][["mean"]] # (fits saved before the prior mean have none)
  sprintf("  lengthscale %s, outputscale %s, %snoise %s; %s", num(x$lengthscale),
          num(x$outputscale), if (is.null(mu)) "" else paste0("mean ", num(mu), ", "),
          num(x$noise),
          if (length(x$learned)) paste("learned:", paste(x$learned, collapse = ", "))
          else "nothing learned")
}

#' @export
summary.ski_gsgp <- function(object, ...) {
  object <- ski_check_fit(object, "summary.ski_gsgp")
  g <- object$grid
  structure(list(method = object$method, n = object$stats$n, grid_size = g$size,
                 grid_bounds = g$bounds, interpolation = g$interpolation,
                 kernel = object$kernel, lengthscale = object$lengthscale,
                 outputscale = object$outputscale, noise = object$noise,
                 mean = object[["hyper"]][["mean"]], iterations = object$iterations, converged = object$converged,
                 rel_residual = object$rel_residual, variance = object$variance,
                 loglik = object$loglik, loglik_se = object$loglik_se,
                 loglik_grad = object$loglik_grad, learned = object$learned,
                 optim_evaluations = NROW(object$optim), timings = object$timings),
            class = "summary.ski_gsgp")
}

#' @export
print.summary.ski_gsgp <- function(x, ...) {
  cat(sprintf("ski_gsgp fit (method \"%s\") on %g points\n", x$method, x$n))
  for (j in seq_along(x$grid_size))
    cat(sprintf("  grid dim %d: %d points on [%.4g, %.4g]\n", j, x$grid_size[j],
                x$grid_bounds[j, 1], x$grid_bounds[j, 2]))
  cat(sprintf("  %s interpolation; %s kernel, lengthscale %s, outputscale %.4g, noise %.4g%s\n",
              x$interpolation, x$kernel, fmt_g(x$lengthscale), x$outputscale, x$noise,
              if (is.null(x$mean)) "" else sprintf(", prior mean %.4g", x$mean)))
  cat(sprintf("  %d CG iterations, relative residual %.3g, %s\n", x$iterations,
              x$rel_residual, if (x$converged) "converged" else "not converged"))
  if (length(x$learned))
    cat(sprintf("  learned %s by maximizing the log marginal likelihood (%d evaluations)\n",
                paste(x$learned, collapse = ", "), x$optim_evaluations))
  if (!is.null(x$loglik))
    cat(sprintf("  log marginal likelihood %.6g%s%s\n", x$loglik, # se 0: the exact one
                if (isTRUE(x$loglik_se > 0)) sprintf(" +- %.2g", x$loglik_se)
                else if (isTRUE(x$loglik_se == 0)) " (exact)" else "",
                if (length(x$loglik_grad)) paste0("; gradient ", paste(sprintf("%s %.3g",
                  names(x$loglik_grad), x$loglik_grad), collapse = ", ")) else ""))
  cat(sprintf("  variances: %s; time %s\n", x$variance,
              paste(sprintf("%s %.3gs", names(x$timings), x$timings), collapse = ", ")))
  invisible(x)
}

#' Plot a ski_gsgp fit
#'
#' One dimension: the posterior mean with a band of two standard deviations
#' (latent variance plus \code{noise} when \code{noise = TRUE}) over the grid
#' range. Two dimensions: the mean surface as an image with contours.
#'
#' @param x a \code{ski_gsgp} fit.
#' @param n number of evaluation points per dimension.
#' @param noise include the noise variance in the band (1-D).
#' @param ... passed to \code{plot} (1-D) or \code{image} (2-D).
#' @return \code{x}, invisibly.
#' @examples
#' x <- runif(200); fit <- ski_gsgp(x, sin(6 * x) + rnorm(200, sd = 0.1),
#'                                  lengthscale = 0.2, outputscale = 1, noise = 0.01)
#' plot(fit)
#' @export
plot.ski_gsgp <- function(x, n = 200, noise = FALSE, ...) {
  x <- ski_check_fit(x, "plot.ski_gsgp", "x")
  b <- x$grid$bounds
  d <- nrow(b)
  if (d == 1L) {
    # stay inside the range where cubic interpolation is valid (one cell in)
    h <- (b[1, 2] - b[1, 1]) / max(1, x$grid$size - 1)
    pad <- if (x$grid$interpolation == "cubic") h else 0
    t <- seq(b[1, 1] + pad, b[1, 2] - pad, length.out = n)
    v <- if (x$variance == "none") "exact" else x$variance
    p <- predict(x, t, variance = v)
    sd <- sqrt(p$var + if (noise) x$noise else 0)
    lo <- p$mean - 2 * sd
    hi <- p$mean + 2 * sd
    plot_call(graphics::plot, t, p$mean, type = "n", ylim = range(lo, hi), xlab = "x",
              ylab = "f(x)", .user = list(...))
    graphics::polygon(c(t, rev(t)), c(lo, rev(hi)), col = grDevices::adjustcolor("steelblue", 0.3),
                      border = NA)
    graphics::lines(t, p$mean, lwd = 2, col = "steelblue4")
  } else if (d == 2L) {
    pad <- if (x$grid$interpolation == "cubic") (b[, 2] - b[, 1]) / pmax(1, x$grid$size - 1) else c(0, 0)
    t1 <- seq(b[1, 1] + pad[1], b[1, 2] - pad[1], length.out = n)
    t2 <- seq(b[2, 1] + pad[2], b[2, 2] - pad[2], length.out = n)
    p <- predict(x, as.matrix(expand.grid(t1, t2)), variance = "none")
    z <- matrix(p$mean, n, n)
    plot_call(graphics::image, t1, t2, z, xlab = "x1", ylab = "x2",
              col = grDevices::hcl.colors(64), .user = list(...))
    graphics::contour(t1, t2, z, add = TRUE)
  } else {
    stop_arg("plot.ski_gsgp", "x", "has ", d, " dimensions; plot shows 1 or 2")
  }
  invisible(x)
}
