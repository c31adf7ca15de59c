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
#' grid-size solve per test point) or \code{"lanczos"} (a rank-\code{rank}
#' LOVE cache built once; cheap per test point, never negative, at most the
#' prior variance). With \code{loglik = TRUE} the log marginal likelihood is
#' estimated by stochastic Lanczos quadrature with \code{probes} random probes.
#'
#' @param x n-by-d matrix of inputs (d <= 8; a vector is one dimension).
#' @param y numeric vector of n responses.
#' @param grid_size grid points per dimension (one value or d); default from
#'   the lengthscale (spacing at most a third of it) and the data range.
#' @param grid_bounds d-by-2 matrix of grid bounds (both are grid points);
#'   default the data range plus 2 cells (cubic) or 1 cell (linear).
#' @param kernel \code{"rbf"}, \code{"matern12"}, \code{"matern32"} or
#'   \code{"matern52"}.
#' @param lengthscale one positive lengthscale or d of them (ARD).
#' @param outputscale positive signal variance.
#' @param noise positive Gaussian noise variance \eqn{\sigma^2}.
#' @param interpolation \code{"cubic"} or \code{"linear"}.
#' @param method \code{"gsgp"} (factorized, grid work per iteration) or
#'   \code{"ski"} (classic SKI; needs \code{x} and \code{y}).
#' @param tol relative residual \eqn{\|r\| \le tol \|y\|} of the solves (0.01).
#' @param max_iter most solver iterations (1000).
#' @param variance \code{"none"}, \code{"lanczos"} or \code{"exact"}.
#' @param rank Lanczos rank of \code{variance = "lanczos"} (default
#'   \code{min(m, 256)}).
#' @param loglik estimate the log marginal likelihood.
#' @param probes random probes of the log-determinant estimate (30).
#' @param xtest optional test inputs; predictions are then in \code{test}.
#' @param stats sufficient statistics (\code{\link{ski_stats}},
#'   \code{\link{ski_stats_merge}}) instead of \code{x}, \code{y}; the grid
#'   and interpolation are theirs. For \code{loglik = TRUE} they must carry
#'   probe sketches (\code{ski_stats(..., probes = )}).
#' @param backend \code{"auto"}, \code{"cpu"} or \code{"cuda"}: the core's
#'   backend (\code{"cuda"} is an error where no GPU build or device is
#'   available; the SKI solvers themselves still run on the CPU).
#' @param seed seed of the random probes (\code{NULL}: drawn from R's RNG).
#' @param verbose print progress and a short summary.
#' @param threads OpenMP threads (\code{NULL}: default).
#' @param bounds_policy points outside the grid: \code{"error"} (default),
#'   \code{"clamp"}, \code{"drop"} or \code{"truncate"} (see
#'   \code{\link{ski_stats}}); also used for \code{xtest} and \code{predict},
#'   where \code{"drop"} gives \code{NaN} mean and variance at such points.
#' @param grid_pad cells of padding of the default bounds.
#' @param slq_max_iter Lanczos steps per probe of the log-determinant (100).
#' @param precond_rank rank \eqn{q} of an optional preconditioner for the
#'   posterior-mean solve of \code{method = "gsgp"} (0 = none, the default; a
#'   whole number below the number of grid points \eqn{m}):
#'   \eqn{P = \sigma^2 I + W V \Lambda V^\top W^\top} with the top \eqn{q}
#'   eigenpairs of \eqn{K_G}, computed once by subspace iteration (\eqn{O(q)}
#'   batched grid products per sweep, from a fixed-seed random start, so
#'   reproducible) and applied in
#'   grid-size form. It cuts iterations when there are many points per grid
#'   cell and little noise; \code{tol}, \code{rel_residual} and
#'   \code{history} still measure the unpreconditioned residual. Variances
#'   and the log-likelihood are not preconditioned.
#' @param ... not used (an error when given).
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
#'   \code{love} (the LOVE cache with \code{variance = "lanczos"}),
#'   \code{timings} and \code{test = list(mean, var)} when \code{xtest} is
#'   given. A fit that did not reach \code{tol} has \code{converged = FALSE}
#'   and gives a warning that says why. A solve that overflows (a non-finite
#'   value: extreme \code{outputscale}, \code{noise} or \code{y}) is an
#'   error.
#' @seealso \code{\link{ski_stats}}, \code{\link{predict.ski_gsgp}}
#' @examples
#' set.seed(1)
#' x <- runif(500, 0, 4)
#' y <- sin(2 * x) + rnorm(500, sd = 0.2)
#' fit <- ski_gsgp(x, y, lengthscale = 0.5, noise = 0.04, variance = "lanczos",
#'                 xtest = seq(0, 4, by = 0.5))
#' fit
#' cbind(fit$test$mean, sin(2 * seq(0, 4, by = 0.5)))
#' # the same fit from statistics computed in two chunks
#' s <- ski_stats_merge(ski_stats(x[1:250], y[1:250], fit),
#'                      ski_stats(x[251:500], y[251:500], fit, first_row = 250))
#' fit2 <- ski_gsgp(stats = s, lengthscale = 0.5, noise = 0.04)
#' max(abs(fit2$weights - fit$weights))
#' @export
ski_gsgp <- function(x = NULL, y = NULL, grid_size = NULL, grid_bounds = NULL, kernel = "rbf",
                     lengthscale = 1, outputscale = 1, noise = 1, interpolation = "cubic",
                     method = "gsgp", tol = 0.01, max_iter = 1000, variance = "none",
                     rank = NULL, loglik = FALSE, probes = 30, xtest = NULL, stats = NULL,
                     backend = "auto", seed = NULL, verbose = interactive(),
                     threads = getOption("scalegp.threads"), bounds_policy = "error",
                     grid_pad = NULL, slq_max_iter = 100, precond_rank = 0, ...) {
  fn <- "ski_gsgp"
  extra <- list(...)
  if (length(extra))
    stop_arg(fn, if (is.null(names(extra)) || !nzchar(names(extra)[1])) "..." else names(extra)[1],
             "is not an argument of ski_gsgp")
  method <- check_choice(method, c("gsgp", "ski"), fn, "method")
  variance <- check_choice(variance, c("none", "lanczos", "exact"), fn, "variance")
  kernel <- check_kernel(kernel, fn)
  outputscale <- check_positive(outputscale, fn, "outputscale")
  noise <- check_positive(noise, fn, "noise")
  tol <- check_positive(tol, fn, "tol")
  max_iter <- check_count(max_iter, fn, "max_iter", min = 1L)
  rank <- if (is.null(rank)) 0L else check_count(rank, fn, "rank", min = 1L)
  loglik <- check_flag(loglik, fn, "loglik")
  probes <- check_count(probes, fn, "probes", min = 1L)
  slq_max_iter <- check_count(slq_max_iter, fn, "slq_max_iter", min = 1L)
  precond_rank <- check_count(precond_rank, fn, "precond_rank", min = 0L)
  if (precond_rank > 0L && method != "gsgp")
    stop_arg(fn, "precond_rank", "applies to method = \"gsgp\" only")
  bounds_policy <- check_choice(bounds_policy, ski_bounds_policies, fn, "bounds_policy")
  backend <- check_backend(backend, fn)
  seed <- check_seed(seed, fn)
  verbose <- check_flag(verbose, fn, "verbose")
  threads <- check_threads(threads, fn)
  has_data <- !is.null(x) || !is.null(y)
  if (has_data) {
    if (is.null(x)) stop_arg(fn, "x", "is missing (y was given)")
    x <- as_input_matrix(x, fn, "x")
    if (is.null(y)) stop_arg(fn, "y", "is missing (x was given)")
    y <- ski_check_y(y, nrow(x), fn)
  }
  o <- list(stats = stats, grid_size = grid_size, grid_bounds = grid_bounds, grid_pad = grid_pad,
            interpolation = interpolation, interpolation_given = !missing(interpolation),
            lengthscale = lengthscale, method = method, bounds_policy = bounds_policy,
            loglik = loglik, probes = probes, seed = seed, verbose = verbose, threads = threads,
            precond_rank = precond_rank)
  t0 <- proc.time()[["elapsed"]]
  st <- ski_gsgp_stats(x, y, has_data, o, fn)
  stats <- st$stats
  lengthscale <- st$lengthscale
  t1 <- proc.time()[["elapsed"]]
  opts <- list(kernel = kernel, lengthscale = lengthscale, outputscale = outputscale,
               noise = noise, method = match(method, c("gsgp", "ski")) - 1,
               tol = tol, max_iter = max_iter,
               variance = match(variance, c("none", "lanczos", "exact")) - 1, rank = rank,
               loglik = loglik, slq_max_iter = slq_max_iter, precond_rank = precond_rank,
               bounds_policy = match(bounds_policy, ski_bounds_policies) - 1,
               backend = backend)
  r <- .Call(C_sgp_ski_fit_r, stats, opts, if (method == "ski") x else NULL,
             if (method == "ski") y else NULL, verbose, threads)
  t2 <- proc.time()[["elapsed"]]
  fit <- list(grid = stats$grid, weights = r$weights, iterations = as.integer(r$iterations),
              converged = r$converged, rel_residual = r$rel_residual,
              history = data.frame(iteration = seq_along(r$history) - 1L,
                                   rel_residual = r$history),
              stats = stats, kernel = kernel, lengthscale = lengthscale,
              outputscale = outputscale, noise = noise, method = method, variance = variance,
              rank = if (variance == "lanczos") nrow(r$love_Ft) else NULL,
              tol = tol, max_iter = max_iter, bounds_policy = bounds_policy, backend = backend,
              seed = seed,
              slq_max_iter = slq_max_iter, precond_rank = precond_rank,
              love = if (variance == "lanczos") list(Ft = r$love_Ft, c0 = r$love_c0) else NULL)
  if (loglik)
    fit[c("loglik", "logdet", "logdet_se", "datafit", "probes_used")] <-
      list(r$loglik, r$logdet, r$logdet_se, r$datafit, as.integer(r$probes_used))
  fit$stop <- ski_stop_reasons[r$stop + 1L]
  fit$timings <- c(preprocess = t1 - t0, solve = t2 - t1)
  class(fit) <- "ski_gsgp"
  if (!fit$converged)
    warning(ski_stop_message("ski_gsgp: the mean solve", fit$stop, fit$iterations,
                             fit$rel_residual, tol), call. = FALSE)
  if (loglik && !r$loglik_converged)
    warning("ski_gsgp: a log-likelihood solve did not reach tol (or probes were discarded); ",
            "the estimate is rough", call. = FALSE)
  if (!is.null(xtest)) {
    fit$test <- ski_predict_impl(fit, xtest, variance, threads, backend, fn, "xtest")
    fit$timings[["predict"]] <- proc.time()[["elapsed"]] - t2
  }
  if (verbose) print(fit)
  fit
}

# The statistics ski_gsgp fits from: those of x, y on a grid made from the
# arguments, or the given stats (checked against the other arguments); and the
# checked lengthscale. o: the checked arguments (as Octave's ski_gsgp_stats).
ski_gsgp_stats <- function(x, y, has_data, o, fn) {
  ski_gsgp_check_pad(o, fn)
  if (is.null(o$stats)) {
    if (!has_data) stop_arg(fn, "x", "and 'y' are needed (or 'stats')")
    if (ncol(x) > 8L) stop_arg(fn, "x", "has ", ncol(x), " columns; the grid supports at most 8")
    lengthscale <- check_positive(o$lengthscale, fn, "lengthscale", c(1L, ncol(x)))
    grid <- ski_grid_impl(x, o$grid_size, o$grid_bounds, o$interpolation, lengthscale, NULL, NULL,
                          o$grid_pad, fn)
    stats <- ski_stats_impl(x, y, grid, 0, o$bounds_policy, if (o$loglik) o$probes else 0L,
                            o$seed, o$verbose, o$threads, fn)
  } else {
    if (!is.null(o$grid_size) || !is.null(o$grid_bounds) || !is.null(o$grid_pad))
      stop_arg(fn, "stats", "fixes the grid: leave 'grid_size', 'grid_bounds' and 'grid_pad' unset")
    stats <- structure(ski_check_stats(o$stats, fn), class = "ski_stats")
    if (o$interpolation_given && !identical(o$interpolation, stats$grid$interpolation))
      stop_arg(fn, "interpolation", "differs from that of 'stats' (\"",
               stats$grid$interpolation, "\")")
    d <- length(stats$grid$size)
    if (has_data && ncol(x) != d)
      stop_arg(fn, "x", "has ", ncol(x), " columns but 'stats' has a ", d, "-dimensional grid")
    lengthscale <- check_positive(o$lengthscale, fn, "lengthscale", c(1L, d))
    if (o$loglik && stats$probes < 1)
      stop_arg(fn, "stats", "has no probe sketches for loglik = TRUE; make them with ",
               "ski_stats(..., probes = ", o$probes, ")")
  }
  if (o$method == "ski" && !has_data)
    stop_arg(fn, "x", "and 'y' are needed by method = \"ski\" (the statistics are not enough)")
  # (with bounds_policy = "drop" the statistics count the kept rows only; the
  # core compares those)
  if (o$method == "ski" && o$bounds_policy != "drop" && nrow(x) != stats$n)
    stop_arg(fn, "x", "has ", nrow(x), " rows but 'stats' count ", stats$n, " points")
  if (o$precond_rank >= prod(stats$grid$size))
    stop_arg(fn, "precond_rank", "must be less than the ", prod(stats$grid$size),
             " grid points")
  list(stats = stats, lengthscale = lengthscale)
}

# A grid_pad that leaves the data at the edges outside the valid range.
ski_gsgp_check_pad <- function(o, fn) {
  if (is.null(o$grid_pad) || !is.null(o$grid_bounds) || !is.null(o$stats) ||
      o$bounds_policy != "error") return(invisible())
  need <- if (identical(o$interpolation, "linear")) 0 else 1
  gp <- o$grid_pad
  if (is.numeric(gp) && length(gp) == 1L && !is.na(gp) && gp < need)
    stop_arg(fn, "grid_pad", "is ", gp, ": with fewer than ", need, " cell of padding ",
             "the data at the edges fall outside the valid range of ", o$interpolation,
             " interpolation (use grid_pad >= ", need, ", or bounds_policy \"clamp\", ",
             "\"truncate\" or \"drop\")")
}

#' Predictions of a ski_gsgp fit
#'
#' @param object a \code{ski_gsgp} fit (also after \code{saveRDS}/\code{readRDS}).
#' @param newdata matrix of test inputs (d columns).
#' @param variance \code{"none"}, \code{"lanczos"} (needs a fit with
#'   \code{variance = "lanczos"}) or \code{"exact"}; default the fit's.
#' @param threads OpenMP threads.
#' @param backend \code{"auto"}, \code{"cpu"} or \code{"cuda"}; default the fit's.
#' @param ... not used.
#' @return \code{list(mean, var)}: the posterior mean and the latent
#'   (noise-free) posterior variance (\code{NULL} with \code{variance =
#'   "none"}); add \code{object$noise} for the variance of a new observation.
#' @examples
#' x <- runif(100); fit <- ski_gsgp(x, cos(3 * x), lengthscale = 0.3, noise = 0.01)
#' predict(fit, c(0.2, 0.5), variance = "exact")
#' @importFrom stats predict
#' @export
predict.ski_gsgp <- function(object, newdata, variance = object$variance,
                             threads = getOption("scalegp.threads"),
                             backend = if (is.null(object$backend)) "auto" else object$backend,
                             ...) {
  ski_predict_impl(object, newdata, variance, threads, backend, "predict.ski_gsgp", "newdata")
}

# fn, arg: the user's function and its argument of the test inputs (ski_gsgp's
# xtest, predict's newdata), named in errors.
ski_predict_impl <- function(object, newdata, variance, threads, backend, fn, arg) {
  object <- ski_check_fit(object, fn)
  xs <- as_input_matrix(newdata, fn, arg)
  d <- length(object$grid$size)
  if (ncol(xs) != d) {
    if (d > 1L && ncol(xs) == 1L && nrow(xs) == d) xs <- t(xs) else
      stop_arg(fn, arg, "has ", ncol(xs), " columns but the fit has ", d, " dimensions")
  }
  variance <- check_choice(variance, c("none", "lanczos", "exact"), fn, "variance")
  backend <- check_backend(backend, fn)
  if (variance == "lanczos" && is.null(object[["love"]]))
    stop_arg(fn, "variance", "\"lanczos\" needs a fit made with variance = \"lanczos\"")
  stats <- object[["stats"]]
  opts <- list(kernel = object[["kernel"]], lengthscale = as.double(object[["lengthscale"]]),
               outputscale = object[["outputscale"]], noise = object[["noise"]], method = 0,
               tol = object[["tol"]], max_iter = object[["max_iter"]],
               variance = match(variance, c("none", "lanczos", "exact")) - 1, rank = 0,
               loglik = FALSE, slq_max_iter = 100,
               bounds_policy = match(object[["bounds_policy"]], ski_bounds_policies) - 1,
               backend = backend)
  love <- object[["love"]]
  p <- .Call(C_sgp_ski_predict_r, stats, opts, as.double(object[["weights"]]),
             if (is.null(love)) matrix(0, 0, 0) else love$Ft,
             if (is.null(love)) numeric(0) else love$c0, xs, check_threads(threads, fn), fn, arg)
  if (!p$converged)
    warning(sprintf("%s: exact variances did not all reach tol (worst relative residual %.3g; %s)",
                    fn, p$rel_residual, ski_stop_words[[ski_stop_reasons[p$stop + 1L]]]), call. = FALSE)
  # (under bounds_policy "drop" the core gives NaN at points outside the grid)
  list(mean = p$mean, var = p$var)
}

# Why a solve stopped (sgp_ski_stop, sgp.h); only "tol" is convergence.
ski_stop_reasons <- c("tol", "max_iter", "accuracy", "breakdown")
ski_stop_words <- list(
  tol = "converged",
  max_iter = "max_iter reached",
  accuracy = "rounding errors keep the residual from getting smaller: the attainable accuracy; raise tol",
  breakdown = "the system is not numerically positive definite")

# The warning of a solve that did not converge, in words that say why.
ski_stop_message <- function(what, stop, iterations, rel_residual, tol) {
  if (identical(stop, "max_iter"))
    return(sprintf("%s did not converge in %d iterations (relative residual %.3g > tol %.3g)",
                   what, iterations, rel_residual, tol))
  sprintf("%s stopped after %d iterations at relative residual %.3g > tol %.3g: %s", what,
          iterations, rel_residual, tol, ski_stop_words[[stop]])
}

#' @export
print.ski_gsgp <- function(x, ...) {
  x <- ski_check_fit(x, "print.ski_gsgp", "x")
  cat(sprintf("<ski_gsgp> %s, %g points, %s grid (%d points, %s), %s kernel\n",
              x$method, x$stats$n, paste(x$grid$size, collapse = " x "),
              as.integer(prod(x$grid$size)), x$grid$interpolation, x$kernel))
  cat(sprintf("  mean solve: %d iterations, relative residual %.3g (%s)\n", x$iterations,
              x$rel_residual, if (x$converged) "converged" else "NOT converged"))
  if (!is.null(x$loglik))
    cat(sprintf("  log marginal likelihood %.6g (logdet %.6g +- %.2g)\n", x$loglik, x$logdet,
                x$logdet_se))
  if (!is.null(x$test)) cat(sprintf("  predictions at %d test points\n", length(x$test$mean)))
  invisible(x)
}

#' @export
summary.ski_gsgp <- function(object, ...) {
  object <- ski_check_fit(object, "summary.ski_gsgp")
  g <- object$grid
  structure(list(method = object$method, n = object$stats$n, grid_size = g$size,
                 grid_bounds = g$bounds, interpolation = g$interpolation,
                 kernel = object$kernel, lengthscale = object$lengthscale,
                 outputscale = object$outputscale, noise = object$noise,
                 iterations = object$iterations, converged = object$converged,
                 rel_residual = object$rel_residual, variance = object$variance,
                 loglik = object$loglik, timings = object$timings),
            class = "summary.ski_gsgp")
}

#' @export
print.summary.ski_gsgp <- function(x, ...) {
  cat(sprintf("ski_gsgp fit (method \"%s\") on %g points\n", x$method, x$n))
  for (j in seq_along(x$grid_size))
    cat(sprintf("  grid dim %d: %d points on [%.4g, %.4g]\n", j, x$grid_size[j],
                x$grid_bounds[j, 1], x$grid_bounds[j, 2]))
  cat(sprintf("  %s interpolation; %s kernel, lengthscale %s, outputscale %.4g, noise %.4g\n",
              x$interpolation, x$kernel, paste(format(x$lengthscale, digits = 4), collapse = " "),
              x$outputscale, x$noise))
  cat(sprintf("  %d CG iterations, relative residual %.3g, %s\n", x$iterations,
              x$rel_residual, if (x$converged) "converged" else "not converged"))
  if (!is.null(x$loglik)) cat(sprintf("  log marginal likelihood %.6g\n", x$loglik))
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
#'                                  lengthscale = 0.2, noise = 0.01)
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
    graphics::plot(t, p$mean, type = "n", ylim = range(lo, hi), xlab = "x", ylab = "f(x)", ...)
    graphics::polygon(c(t, rev(t)), c(lo, rev(hi)), col = grDevices::adjustcolor("steelblue", 0.3),
                      border = NA)
    graphics::lines(t, p$mean, lwd = 2, col = "steelblue4")
  } else if (d == 2L) {
    pad <- if (x$grid$interpolation == "cubic") (b[, 2] - b[, 1]) / pmax(1, x$grid$size - 1) else c(0, 0)
    t1 <- seq(b[1, 1] + pad[1], b[1, 2] - pad[1], length.out = n)
    t2 <- seq(b[2, 1] + pad[2], b[2, 2] - pad[2], length.out = n)
    p <- predict(x, as.matrix(expand.grid(t1, t2)), variance = "none")
    z <- matrix(p$mean, n, n)
    graphics::image(t1, t2, z, xlab = "x1", ylab = "x2", col = grDevices::hcl.colors(64), ...)
    graphics::contour(t1, t2, z, add = TRUE)
  } else {
    stop_arg("plot.ski_gsgp", "x", "has ", d, " dimensions; plot shows 1 or 2")
  }
  invisible(x)
}
