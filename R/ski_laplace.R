#' Laplace inference on a regular grid: counts, point patterns and labels
#'
#' A latent Gaussian process on the points of a regular grid with a
#' non-Gaussian observation model per cell: Poisson counts with exposures
#' (disease maps, species counts), a point pattern as a log-Gaussian Cox
#' process, Bernoulli or binomial labels. The Laplace approximation is found by
#' Newton's method in grid space: every step needs only products with the
#' grid's kernel matrix (FFTs, \eqn{O(m \log m)}) and conjugate gradients on
#' \eqn{B = I + D^{1/2} K D^{1/2}}, so grids of \eqn{10^5}--\eqn{10^6} cells fit
#' in memory and time that exact GPs cannot reach.
#'
#' \strong{Layouts.} \code{"cells"}: \code{y} is a vector, matrix or array with
#' one value per cell (\code{NA} for a cell without data; \code{offset = -Inf}
#' for a cell without exposure); the cell centres are \code{1..dim(y)} unless
#' \code{grid_bounds} says otherwise. \code{"points"}: \code{x} holds the
#' locations of a point pattern (or a spatstat \code{ppp}); the counts per cell
#' are the linear interpolation weights summed over the points and the exposure
#' is each cell's area (a \code{ppp}'s window sets the grid; in a
#' non-rectangular window each node's exposure is the area inside the window
#' weighted by the node's interpolation weight, \code{-Inf} where that is 0).
#' Point patterns too large for one machine: \code{stats} (or \code{x}) may be
#' \code{\link{ski_stats}} of the point locations made with
#' \code{interpolation = "linear"} (any \code{y}, e.g. 1), computed over files
#' or a cluster and merged; their \code{Wt1} are the counts and their grid is
#' the fit's.
#' \code{"binned"}: \code{x}, \code{y} per observation, summed into the nearest
#' cell (labels become binomial counts). \code{"scattered"}: \code{x},
#' \code{y} per observation at its own location, anywhere in the grid's
#' bounds: the latent there is interpolated from the grid (cubic by default,
#' \code{interpolation}), without binning, so the model is the GP whose
#' kernel matrix is \eqn{W K W'} on the observations; rows of \code{x}
#' outside the grid follow \code{bounds_policy}. \code{"auto"} picks cells,
#' points or binned from the arguments (scattered only by name).
#'
#' \strong{Hyperparameters.} A \code{lengthscale}, \code{outputscale} or
#' \code{mean} not given is learned by maximizing the Laplace evidence with
#' L-BFGS; the evidence and its gradient, including the term through the mode's
#' dependence on the hyperparameters, are exact (dense on the observed cells)
#' up to 512 observed cells and estimated with \code{probes} Rademacher probes
#' (stochastic Lanczos quadrature, Hutchinson traces) beyond, with a standard
#' error \code{loglik_se}.
#'
#' @param x \code{NULL} (cells), an n-by-d matrix of point locations (points)
#'   or observation locations (binned, scattered), or a spatstat \code{ppp}.
#' @param y cells: one value per grid cell (an array of the grid's shape);
#'   binned, scattered: one value per row of \code{x}; points: \code{NULL}.
#' @param ... options by name (below).
#' @param offset log exposure per cell (cells, points) or per observation
#'   (binned, scattered); \code{-Inf} marks a cell without exposure.
#' @param trials binomial trials (1 or one per cell or observation).
#' @param stats points layout: \code{\link{ski_stats}} (or
#'   \code{\link{ski_stats_merge}}) of the point locations, linear
#'   interpolation, in the place of \code{x}.
#' @param xtest locations at which to predict the latent field and the response
#'   (\code{test$mean}, \code{test$var}, \code{test$response},
#'   \code{test$response_var}).
#' @return An object of class \code{"ski_laplace"}: \code{grid}, \code{weights}
#'   (the latent mode at the grid points, first dimension fastest:
#'   \code{array(fit$weights, fit$grid$size)}), \code{alpha}, \code{f} and
#'   \code{var} at the observed cells (exact, one solve per cell, up to 512
#'   observed cells; from the probes with \code{variance = "stochastic"};
#'   \code{NULL} otherwise), \code{counts}, \code{offset},
#'   \code{observed} (their grid indices; scattered: \code{NULL}), \code{x}
#'   (scattered: the observations' locations, which predict interpolates
#'   again), \code{newton_steps},
#'   \code{iterations} (CG steps), \code{converged}, \code{stop_reason},
#'   \code{mode_error}, \code{history}, \code{hyper}, \code{loglik},
#'   \code{loglik_se}, \code{loglik_grad}, \code{optim}, \code{used} (what
#'   the fit used: likelihood, layout, kernel, loglik_method, interpolation,
#'   probes, seed, trials, noise, dispersion, alpha, inner_rtol, max_iter,
#'   bounds_policy;
#'   \code{\link{predict.ski_laplace}} reads it) and, with
#'   \code{xtest}, \code{test = list(mean, var, response, response_var)}; with
#'   \code{variance = "stochastic"}, \code{grid_var} and \code{grid_var_se}: the
#'   latent variance at every grid point and its standard error, estimated with
#'   the evidence's probes (maps of \eqn{10^5}--\eqn{10^6} cells without a solve
#'   per point).
#'   A fit whose mode was not found has \code{converged = FALSE} and a warning.
#' @section Options:
#' @eval rd_options("ski_laplace")
#' @examples
#' # counts on a 24 x 20 grid with exposures; two cells without data
#' set.seed(1)
#' g <- expand.grid(i = 1:24, j = 1:20)
#' exposure <- matrix(runif(480, 1, 3), 24, 20)
#' rate <- exp(1 + sin(g$i / 4) + cos(g$j / 3))
#' y <- matrix(rpois(480, exposure * rate), 24, 20)
#' y[c(5, 100)] <- NA
#' fit <- ski_laplace(y = y, offset = log(exposure), seed = 1)
#' fit
#' image(matrix(exp(fit$weights), 24, 20), main = "rate per unit exposure")
#'
#' # a spatstat point pattern as a log-Gaussian Cox process
#' if (requireNamespace("spatstat.data", quietly = TRUE) &&
#'     requireNamespace("spatstat.geom", quietly = TRUE)) {
#'   data(bei, package = "spatstat.data")
#'   lgcp <- ski_laplace(bei, grid_size = c(256, 128), seed = 1, variance = "stochastic")
#'   plot(lgcp)
#'   plot(lgcp, what = "sd")
#' }
#' @seealso \code{vignette("spatial")}; \code{\link{gp_laplace}} for scattered
#'   data, \code{\link{ski_gsgp}} for regression on a grid.
#' @export
ski_laplace <- function(x = NULL, y = NULL, ..., offset = NULL, trials = NULL, xtest = NULL,
                        stats = NULL) {
  fn <- "ski_laplace"
  opts <- verb_options(fn, list(...))
  if (inherits(x, "ski_stats")) { stats <- x; x <- NULL }
  if (inherits(x, "ppp")) {
    pp <- ppp_layout(x, opts, offset)
    x <- pp$x; opts <- pp$opts; offset <- pp$offset
  }
  ydim <- NULL
  if (!is.null(x)) x <- as_input_matrix(x, fn, "x")
  if (!is.null(y)) {
    if (!is.numeric(y) && !is.logical(y)) stop_arg(fn, "y", "must be numeric")
    ydim <- if (is.null(x)) as.double(if (is.null(dim(y))) length(y) else dim(y)) else NULL
    y <- as.double(y)
  }
  num <- function(v, arg) if (is.null(v)) NULL else {
    if (!is.numeric(v)) stop_arg(fn, arg, "must be numeric")
    as.double(v)
  }
  if (!is.null(xtest)) xtest <- as_input_matrix(xtest, fn, "xtest")
  r <- sgp_call(C_ski_laplace, x, y, ydim, num(offset, "offset"), num(trials, "trials"), xtest,
                stats, opts)
  sel <- r$selection
  fit <- c(r[c("grid", "weights", "alpha", "f", "var", "counts", "offset", "observed", "x",
               "newton_steps", "iterations", "converged", "stop_reason", "mode_error")],
           list(history = as.data.frame(r$history), hyper = sel$hyper, loglik = r$loglik,
                loglik_se = r$loglik_se, loglik_grad = sel$loglik_grad, learned = sel$learned,
                optim = as.data.frame(sel$optim), used = r$used, test = r$test,
                grid_var = r$grid_var, grid_var_se = r$grid_var_se, seconds = r$seconds,
                call = match.call()))
  class(fit) <- "ski_laplace"
  for (w in r$warnings) warning(w, call. = FALSE)
  fit
}

# The exposure of each grid node for a window w: a_g = integral over w of the
# node's tent (linear interpolation weight), the weight the points layout's
# count c_g = sum_i phi_g(x_i) gives each point, so a point inside w never
# falls on a node of no exposure. Its area is the cell's inside w and 0 far
# outside (-Inf offset). The integral is a midpoint sum over k x k sub-cells per
# cell (the tents are piecewise bilinear, so its error is that of the window's
# edge within the sub-cells), refined 8 times around a node that holds points
# but met no sub-cell inside w.
window_exposure <- function(w, b, size, pts, k = 4) {
  g <- ski_grid(grid_bounds = b, grid_size = size, interpolation = "linear")
  h <- (b[, 2] - b[, 1]) / (size - 1)
  tent_area <- function(xr, yr, kk, keep = NULL) {
    sx <- seq(xr[1] + h[1] / (2 * kk), xr[2], by = h[1] / kk)
    sy <- seq(yr[1] + h[2] / (2 * kk), yr[2], by = h[2] / kk)
    lat <- as.matrix(expand.grid(sx, sy))
    lat <- lat[spatstat.geom::inside.owin(lat[, 1], lat[, 2], w), , drop = FALSE]
    if (!nrow(lat)) return(numeric(prod(size)))
    ski_stats(lat, rep(1, nrow(lat)), g, bounds_policy = "clamp")$Wt1 * prod(h) / kk^2
  }
  a <- tent_area(b[1, ] + c(-0.5, 0.5) * h[1], b[2, ] + c(-0.5, 0.5) * h[2], k)
  counts <- ski_stats(pts, rep(1, nrow(pts)), g, bounds_policy = "clamp")$Wt1
  for (node in which(counts > 0 & a == 0)) {
    ij <- c((node - 1) %% size[1], (node - 1) %/% size[1])
    lo <- b[, 1] + (ij - 1) * h
    a[node] <- tent_area(c(lo[1], lo[1] + 2 * h[1]), c(lo[2], lo[2] + 2 * h[2]), 8 * k)[node]
  }
  a
}

# A spatstat point pattern: its coordinates, its window's range as the grid's
# (cell centres half a cell inside), and in a non-rectangular window each
# node's exposure inside it (window_exposure).
ppp_layout <- function(pp, opts, offset) {
  if (!requireNamespace("spatstat.geom", quietly = TRUE))
    stop("ski_laplace: a ppp needs the package spatstat.geom", call. = FALSE)
  w <- pp$window
  size <- rep_len(if (is.null(opts$grid_size)) 64 else opts$grid_size, 2)
  h <- c(diff(w$xrange), diff(w$yrange)) / size
  if (is.null(opts$grid_bounds))
    opts$grid_bounds <- cbind(c(w$xrange[1], w$yrange[1]) + h / 2,
                              c(w$xrange[2], w$yrange[2]) - h / 2)
  opts$grid_size <- size
  if (is.null(offset) && !identical(w$type, "rectangle"))
    offset <- log(window_exposure(w, opts$grid_bounds, size, cbind(pp$x, pp$y)))
  list(x = cbind(pp$x, pp$y), opts = opts, offset = offset)
}

#' @export
print.ski_laplace <- function(x, ...) {
  cat(sprintf("<ski_laplace> %s, %s layout, %s grid (%d cells, %d observed), %s kernel\n",
              x$used$likelihood, x$used$layout, paste(x$grid$size, collapse = " x "),
              as.integer(prod(x$grid$size)), length(x$f), x$used$kernel))
  cat(sprintf("  mode: %d Newton steps, %d CG steps, mode bound %.3g (%s)\n",
              as.integer(x$newton_steps), as.integer(x$iterations), x$mode_error,
              if (isTRUE(x$converged)) "converged" else paste("NOT converged:", x$stop_reason)))
  h <- x$hyper
  cat(sprintf("  lengthscale %s, outputscale %s, mean %s; %s\n",
              paste(fmt_g(h$lengthscale), collapse = " "), fmt_g(h$outputscale),
              fmt_g(h$mean), if (length(x$learned)) paste("learned:", paste(x$learned,
              collapse = ", ")) else "nothing learned"))
  cat(if (is.na(x$loglik)) "  log evidence not computed\n"
      else sprintf("  log evidence %.6g %s(%s)\n", x$loglik,
                   if (x$loglik_se > 0) sprintf("+- %.2g ", x$loglik_se) else "",
                   x$used$loglik_method))
  invisible(x)
}

#' @export
summary.ski_laplace <- function(object, ...) {
  print(object)
  if (nrow(object$history))
    print(object$history, row.names = FALSE, digits = 4)
  invisible(object)
}

#' @export
fitted.ski_laplace <- function(object, ...) object$f

#' Plot a ski_laplace fit: the latent mode (or its sd) as a curve (1-D) or map (2-D)
#'
#' @param x a \code{ski_laplace} fit.
#' @param what \code{"mean"} (the latent mode) or \code{"sd"} (needs
#'   \code{variance = "stochastic"}).
#' @param ... passed to \code{plot} or \code{image}.
#' @export
plot.ski_laplace <- function(x, what = c("mean", "sd"), ...) {
  what <- match.arg(what)
  size <- x$grid$size
  z <- if (what == "mean") x$weights else {
    if (is.null(x$grid_var))
      stop("plot.ski_laplace: what = \"sd\" needs a fit with variance = \"stochastic\"",
           call. = FALSE)
    sqrt(pmax(x$grid_var, 0))
  }
  lab <- if (what == "mean") "latent mode" else "latent sd"
  b <- x$grid$bounds
  axes <- lapply(seq_along(size), function(j) seq(b[j, 1], b[j, 2], length.out = size[j]))
  if (length(size) == 1L) {
    plot(axes[[1]], z, type = "l", xlab = "x", ylab = lab, ...)
  } else if (length(size) == 2L) {
    graphics::image(axes[[1]], axes[[2]], matrix(z, size[1], size[2]), xlab = "x1", ylab = "x2",
                    main = lab,
                    col = grDevices::hcl.colors(64, "viridis"), ...)
  } else stop("plot.ski_laplace: plots 1-D and 2-D grids", call. = FALSE)
  invisible(x)
}

#' Predictions of a ski_laplace fit
#'
#' The latent field and the response at new locations from a fit, also after
#' \code{saveRDS}/\code{readRDS} (the core checks every field it reads, and an
#' error names a damaged one). The predictions are the same numbers as the
#' fit's \code{test} at the same points.
#'
#' @param object a \code{ski_laplace} fit.
#' @param newdata n-by-d matrix of locations inside the grid (a vector for a
#'   grid of one dimension).
#' @param type \code{"list"} (default), \code{"response"} (the rate or the
#'   probability) or \code{"link"} (the latent mean).
#' @param variance \code{"exact"} (default: the latent variance, one solve
#'   per point) or \code{"none"}.
#' @param offset log exposure at each new location (count likelihoods;
#'   default 0).
#' @param ... nothing: an argument the method does not take is an error.
#' @return \code{type = "list"}: \code{list(mean, var, response,
#'   response_var)}, the latent mean and variance (\code{NULL} with
#'   \code{variance = "none"}) and the response's mean and variance under the
#'   latent posterior (a rate's lognormal moments, the probit approximation
#'   of a probability); else the vector \code{type} asks for.
#' @section Options:
#' @eval rd_options("ski_laplace_predict")
#' @examples
#' set.seed(1)
#' y <- matrix(rpois(300, exp(1 + sin(rep(1:20, 15) / 4))), 20, 15)
#' fit <- ski_laplace(y = y, lengthscale = 4, outputscale = 1, mean = 1,
#'                    verbose = FALSE)
#' predict(fit, rbind(c(2.5, 3), c(10, 7.5)))
#' predict(fit, c(10, 7.5), type = "response", offset = log(2))
#' @export
predict.ski_laplace <- function(object, newdata, type = c("list", "response", "link"),
                                variance = c("exact", "none"), offset = NULL, ...) {
  fn <- "predict.ski_laplace"
  no_extra_args(list(...), fn)
  if (missing(newdata)) stop_arg(fn, "newdata", "is missing (the locations to predict at)")
  newdata <- as_input_matrix(newdata, fn, "newdata", d = length(object$grid$size))
  opts <- list(type = if (missing(type)) "list" else type,
               variance = if (missing(variance)) "exact" else variance,
               offset = as_doubles(offset))
  p <- sgp_call(C_ski_laplace_predict, object, fn, "object", newdata, opts)
  switch(p$type, list = p$pred, link = p$pred$mean, response = p$pred$response)
}

# The core's check of a ski_laplace fit (the fields predict reads).
skl_check_fit <- function(object, fn) {
  sgp_call(C_ski_laplace_predict, object, fn, "object", NULL, list())
  object
}

#' @rdname scalegp_methods
#' @export
logLik.ski_laplace <- function(object, ...) {
  fn <- "logLik.ski_laplace"
  fit <- skl_check_fit(object, fn)
  ll <- fit[["loglik", exact = TRUE]]
  if (is.null(ll) || is.na(ll))
    stop(fn, ": the fit has no log evidence ('object$loglik' is NA): refit with loglik = TRUE ",
         "(or learn a hyperparameter)", call. = FALSE)
  fit_loglik(ll, fit$hyper, fit$learned, length(fit$f))
}

#' @rdname scalegp_methods
#' @export
nobs.ski_laplace <- function(object, ...) {
  length(skl_check_fit(object, "nobs.ski_laplace")$f)
}

#' @rdname scalegp_methods
#' @export
coef.ski_laplace <- function(object, ...) {
  hyper_coef(skl_check_fit(object, "coef.ski_laplace")$hyper)
}
