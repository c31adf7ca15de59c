#' Covariance (kernel) matrix
#'
#' Evaluates a stationary covariance function between the rows of two input
#' matrices, in cache-sized tiles on all threads. This is the kernel every
#' scalegp method uses, so it is a quick way to inspect a prior.
#'
#' The kernels are functions of the scaled distance \eqn{r = \|(x - x') /
#' \ell\|} (one lengthscale, or one per column for automatic relevance
#' determination) times the outputscale \eqn{s}; each one's formula is under
#' the option \code{kernel} (see Options), written from the core's kernel table.
#'
#' @param x n1-by-d numeric matrix of inputs (rows are points); a vector is
#'   taken as n1 points in one dimension.
#' @param x2 n2-by-d matrix of second inputs; defaults to \code{x}.
#' @param ... options by name (see Options).
#' @eval rd_options("gp_kernel")
#' @return The n1-by-n2 matrix \eqn{k(x_i, x2_j)}.
#' @examples
#' x <- matrix(seq(0, 1, length.out = 5))
#' gp_kernel(x, kernel = "matern32", lengthscale = 0.5)
#' # ARD lengthscales in two dimensions
#' z <- cbind(runif(4), runif(4))
#' gp_kernel(z, kernel = "rbf", lengthscale = c(0.2, 2), outputscale = 3)
#' @export
gp_kernel <- function(x, x2 = x, ...) {
  fn <- "gp_kernel"
  opts <- verb_options(fn, list(...), host = FALSE)  # no randomness, no output
  if (is.null(opts[["threads"]]) && !is.null(getOption("scalegp.threads")))
    opts$threads <- getOption("scalegp.threads")
  x <- as_input_matrix(x, fn, "x")
  x2 <- as_input_matrix(x2, fn, "x2", d = ncol(x))
  if (ncol(x2) != ncol(x))
    stop_arg(fn, "x2", "has ", ncol(x2), " columns but 'x' has ", ncol(x))
  alloc_error_names(sgp_call(C_kernel_matrix, x, x2, opts),
                    fn, "x2", sprintf("and 'x' give a %d x %d kernel matrix", nrow(x), nrow(x2)))
}

# Internal: K(x, x) %*% v through the matrix-free operator, for tests and
# benchmarks. cache_bytes >= 8 n^2 materializes K once; interrupt_after >= 0
# simulates a user interrupt after that many polls; reps repeats the product.
# Returns list(y, cached, setup_seconds, seconds = per product); kernel NULL:
# gp_kernel's default, from the core's table.
kernel_apply <- function(x, v, kernel = NULL, lengthscale = 1, outputscale = 1,
                         tile = 0L, cache_bytes = 0, threads = NULL,
                         interrupt_after = NULL, reps = 1L) {
  fn <- "kernel_apply"
  x <- as_input_matrix(x, fn, "x")
  v <- as_input_matrix(v, fn, "v")
  if (nrow(v) != nrow(x)) stop_arg(fn, "v", "must have nrow(x) = ", nrow(x), " rows")
  kernel <- kernel %||% option_default("gp_kernel", "kernel")
  sgp_call(C_kernel_apply, x, v, check_kernel(kernel, fn),
        check_positive(lengthscale, fn, "lengthscale", c(1L, ncol(x))),
        check_positive(outputscale, fn, "outputscale"),
        check_count(tile, fn, "tile"), as.double(cache_bytes),
        check_threads(threads, fn),
        if (is.null(interrupt_after)) NULL else as.integer(interrupt_after),
        check_count(reps, fn, "reps", min = 1L))
}
