# ski_gsgp's grid and sufficient statistics as plain R data: they survive
# saveRDS/readRDS, travel between worker processes and are merged by adding.

#' Grid of a structured kernel interpolation (SKI) model
#'
#' A regular grid for \code{\link{ski_stats}} and \code{\link{ski_gsgp}}:
#' \code{size[j]} equally spaced points per dimension that include both
#' bounds, \code{lo + (0:(m - 1)) * (hi - lo) / (m - 1)}.
#'
#' Defaults (when \code{grid_size} or \code{grid_bounds} is \code{NULL}): the
#' bounds are the data range plus \code{grid_pad} cells on each side (2 cells
#' for cubic, 1 for linear interpolation), so every datum can be
#' interpolated; the size resolves the kernel (spacing at most a third of the
#' lengthscale) when \code{lengthscale} is given, else it is about
#' \eqn{n^{1/d}} per dimension, rounded up to an FFT-friendly number and capped
#' at \eqn{2^{20}} grid points. Chunks that are to be merged must share one
#' grid: make it once from the whole data range (\code{range}).
#'
#' @param x n-by-d data matrix (a vector is one dimension); only its range
#'   and row count are used. May be \code{NULL} when \code{range} is given.
#' @param ... options by name (see Options): \code{grid_size} (one value
#'   for all dimensions, or d), \code{grid_bounds} (d-by-2; a length-2 vector
#'   when d = 1), \code{interpolation}, \code{lengthscale}, \code{n},
#'   \code{grid_pad}; the core checks each of them.
#' @param range d-by-2 matrix of the data range (min, max) instead of
#'   \code{x}, e.g. known before the data is read chunk by chunk.
#' @eval rd_options("ski_grid")
#' @return A list of class \code{ski_grid}: \code{size} (integer d),
#'   \code{bounds} (d-by-2) and \code{interpolation}.
#' @examples
#' g <- ski_grid(runif(100), grid_size = 30)
#' g$bounds
#' ski_grid(range = rbind(c(0, 1), c(-2, 2)), grid_size = c(20, 40))$size
#' @export
ski_grid <- function(x = NULL, ..., range = NULL) {
  fn <- "ski_grid"
  opts <- verb_options(fn, list(...), host = FALSE)
  if (!is.null(x)) x <- as_input_matrix(x, fn, "x")
  if (!is.null(range)) range <- as_input_matrix(range, fn, "range")
  # the core checks the options and makes the grid (of x, range or grid_bounds)
  structure(sgp_call(C_ski_grid, x, range, opts), class = "ski_grid")
}

#' Sufficient statistics of SKI for one chunk of data
#'
#' Computes, in one pass over the rows of \code{x}, everything
#' \code{\link{ski_gsgp}} needs from the data: \eqn{W^\top W} (as a stencil,
#' \code{WtW}), \eqn{W^\top y} (\code{Wty}), \eqn{W^\top 1} (\code{Wt1}),
#' \eqn{y^\top y} (\code{yty}), \eqn{\sum y} and \eqn{n}, where \eqn{W} holds the
#' interpolation weights of the data on the grid. Memory does not grow with
#' \eqn{n}. With many points per grid point (\eqn{n \ge 4m, 16m, 24m} for
#' \eqn{d = 1, 2, 3}, \eqn{m} grid points; any \code{bounds_policy} but
#' \code{"truncate"}) a faster pass over per-cell moments of the points is
#' used (about 2x for \eqn{d = 3}, \eqn{n/m = 60}; ~400 extra numbers per grid
#' point while it runs); it gives the same statistics up to rounding.
#' Statistics of chunks on the same grid are added by
#' \code{\link{ski_stats_merge}} (in any order, on any machine) and fitted by
#' \code{ski_gsgp(stats = )}.
#'
#' The result is plain data (numbers and matrices), so it can be saved with
#' \code{saveRDS} or returned from \code{parallel} workers.
#' \code{WtW[g, s]} is \eqn{B_{g, g + o_s}} for the stencil offset
#' \eqn{o_s} (offsets in \eqn{\{-R..R\}^d}, first dimension fastest, \eqn{R = 3}
#' cubic, 1 linear).
#'
#' \strong{Chunk sources} (data that does not fit in memory, or lives in
#' many files): \code{ski_stats(files, grid, x = <input columns>, y = <response
#' column>, cluster = cl)}. A character vector as the first argument is a set
#' of files: CSV (read forward in blocks of \code{block_rows} rows, parsed
#' with \code{data.table::fread}; \code{x} and \code{y} are column names or
#' indices; a blank line is skipped, any other line that is not the header's
#' count of numbers is an error naming the file, the line and the data row)
#' or HDF5 (\file{.h5}, \file{.hdf5}, read with \pkg{hdf5r};
#' \code{x} names an n-by-d dataset and \code{y} an n-vector dataset). A list
#' is a set of chunk sources: file paths or functions that return
#' \code{list(x = , y = )}. The chunks are cut into as many groups of
#' consecutive chunks as the engine has workers: \code{cluster} (anything
#' \code{parallel::makeCluster} makes), else the workers of a \pkg{future} plan
#' when one other than sequential is set (\pkg{future.apply}), else one group
#' in this process. A group's blocks are added in order to one running
#' accumulator, so a chunk costs what its rows cost, and the core merges the
#' groups in order. In one group the statistics are those of all rows in
#' memory to the last bit (when the first block's rows choose the same pass as
#' all rows: the moment pass from \eqn{4m, 16m, 24m} rows for d = 1, 2, 3);
#' with workers, those of each group's rows merged, the same bits on any
#' engine with that many workers. The master holds one set of statistics per
#' worker, never the data. A group with a chunk that fails is redone once
#' here, then the call
#' stops with an error naming the chunk and the reason. The result also has
#' \code{chunks} (per chunk: \code{source}, \code{rows} read, \code{used},
#' \code{dropped}) and \code{dropped} (per chunk, the rows that
#' \code{bounds_policy = "drop"} left out). The rows of chunk k key the probe
#' sketches from \eqn{(k - 1) 2^{40}} on, so at most 8192 chunks.
#'
#' @param x n-by-d matrix of inputs of this chunk; with chunk sources, the
#'   input columns (names or indices, or the name of an HDF5 dataset).
#' @param y numeric vector of n responses; with chunk sources, the response
#'   column.
#' @param grid the grid: from \code{\link{ski_grid}}, or a \code{ski_stats}
#'   or \code{ski_gsgp} object whose grid is reused.
#' @param cluster a \pkg{parallel} cluster for chunk sources (or \code{NULL}).
#' @param block_rows rows read from a file at a time (chunk sources); by
#'   default as many as make a block's numbers about as many as the
#'   statistics' own (m S, S the stencil size), at least 10000, so that the
#'   fixed cost of a block's statistics is spread over its rows.
#' @param ... options by name (see Options): \code{first_row} (give every
#'   chunk its own; it keys the random probes), \code{bounds_policy},
#'   \code{probes}, \code{seed} (the same for all chunks), \code{verbose}
#'   (progress of passes longer than a second), \code{threads}; the core checks
#'   each of them.
#' @eval rd_options("ski_stats")
#' @return A list of class \code{ski_stats}.
#' @examples
#' x <- runif(200); y <- sin(6 * x) + rnorm(200, sd = 0.1)
#' g <- ski_grid(range = c(0, 1), grid_size = 40)
#' s <- ski_stats_merge(ski_stats(x[1:100], y[1:100], g),
#'                      ski_stats(x[101:200], y[101:200], g, first_row = 100))
#' s$n
#' @export
ski_stats <- function(x, y, grid, ..., cluster = NULL, block_rows = NULL) {
  fn <- "ski_stats"
  src <- ski_sources_call(if (!missing(x)) x, if (!missing(y)) y, if (!missing(grid)) grid,
                          list(...))
  if (!is.null(src)) return(ski_stats_sources(src, cluster, block_rows, fn))
  if (!is.null(cluster)) stop_arg(fn, "cluster", "is for chunk sources (files or functions)")
  opts <- verb_options(fn, list(...))
  x <- as_input_matrix(x, fn, "x")
  y <- ski_check_y(y, nrow(x), fn)
  # the core reads and checks the grid (a ski_grid, ski_stats or ski_gsgp object,
  # or a list of size, bounds, interpolation) and the options, and computes the
  # statistics in one pass
  structure(sgp_call(C_ski_stats, x, y, grid, opts), class = "ski_stats")
}

ski_check_y <- function(y, n, fn) {
  y <- as_plain_numbers(y, fn, "y")
  if (is.matrix(y) && ncol(y) == 1L) y <- as.vector(y)
  if (!is.numeric(y) || !is.null(dim(y)))
    stop_arg(fn, "y", "must be a numeric vector")
  if (length(y) != n) stop_arg(fn, "y", "has length ", length(y), " but 'x' has ", n, " rows")
  if (any(!is.finite(y))) stop_arg(fn, "y", "contains NaN, NA or Inf (first at ",
                                   which(!is.finite(y))[1], ")")
  as.double(y)
}

# Structure of a ski_stats list (the core checks the values again).
ski_check_stats <- function(s, fn, arg = "stats") {
  # the core reads and checks them (sgp_ski_stats_check: errors name arg); here
  # they only take R's shapes
  sgp_call(C_ski_stats_merge, list(s), arg, fn, FALSE)
  s$grid <- sgp_call(C_ski_grid_check, s$grid, fn, paste0(arg, "$grid"))
  for (f in c("n", "yty", "ysum", "Wty", "Wt1", "WtW", "probes", "probe_seed", "rhoz", "Wtz"))
    storage.mode(s[[f]]) <- "double"
  s
}

#' Add the sufficient statistics of several chunks
#'
#' The statistics of \code{\link{ski_stats}} are sums over data points, so
#' the statistics of the union of chunks are their sum. All arguments must be
#' built on the same grid (sizes, bounds, interpolation) and, when they carry
#' probe sketches, with the same \code{probes} and \code{seed}.
#'
#' @param a,b,... \code{ski_stats} objects.
#' @return A \code{ski_stats} object.
#' @examples
#' g <- ski_grid(range = c(0, 1), grid_size = 20)
#' a <- ski_stats(c(0.1, 0.5), c(1, 2), g)
#' b <- ski_stats(0.9, 3, g, first_row = 2)
#' ski_stats_merge(a, b)$n
#' @export
ski_stats_merge <- function(a, b, ...) {
  fn <- "ski_stats_merge"
  # do.call(ski_stats_merge, <list named otherwise>): the chunks all arrive in ...
  parts <- c(if (!missing(a)) list(a), if (!missing(b)) list(b), list(...))
  if (!length(parts)) stop_arg(fn, "a", "is missing: give one or more ski_stats objects")
  labels <- c("a", "b", sprintf("...%d", seq_len(max(0L, length(parts) - 2L))))[seq_along(parts)]
  # the core reads and checks each part, that grids and probe sketches agree, adds,
  # and names the argument; the result is the core's (the first argument's grid)
  structure(sgp_call(C_ski_stats_merge, unname(parts), labels, fn, TRUE), class = "ski_stats")
}

#' @export
print.ski_stats <- function(x, ...) {
  cat(sprintf("<ski_stats> %g points on a %s grid (%s interpolation)%s\n", x$n,
              paste(x$grid$size, collapse = " x "), x$grid$interpolation,
              if (x$probes > 0) sprintf(", %d probe sketches", as.integer(x$probes)) else ""))
  invisible(x)
}
