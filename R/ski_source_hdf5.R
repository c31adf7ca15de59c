# HDF5 chunk sources, read with hdf5r by row blocks: x names an n-by-d dataset
# (or n values) and y one of n values, as R's hdf5r and Octave's save -hdf5
# write them (a name that is a group holding a dataset "value", an Octave
# variable, reads that dataset). The checks and words are those of Octave's
# reader (bindings_octave/src/verb_h5_rows.cc); every error names the file and
# the dataset, never hdf5r's or the HDF5 library's own report.

ski_h5_fail <- function(path, ...) stop(sprintf("%s: %s", path, sprintf(...)), call. = FALSE)

ski_h5_dataset <- function(f, name, path) {
  d <- tryCatch(if (isTRUE(f$exists(name))) f[[name]], error = function(e) NULL)
  if (inherits(d, "H5Group"))
    d <- tryCatch(if (isTRUE(d$exists("value"))) d[["value"]], error = function(e) NULL)
  if (!inherits(d, "H5D")) ski_h5_fail(path, "the file has no dataset '%s'", name)
  cls <- tryCatch(as.character(d$get_type()$get_class()), error = function(e) "")
  if (!cls %in% c("H5T_INTEGER", "H5T_FLOAT")) ski_h5_fail(path, "dataset '%s' is not numeric", name)
  dims <- tryCatch(d$dims, error = function(e) NULL)
  if (length(dims) < 1L || length(dims) > 2L)
    ski_h5_fail(path, "dataset '%s' has %d dimensions; 'x' and 'y' must have 1 or 2", name,
                length(dims))
  list(h = d, name = name, dims = dims)
}

ski_hdf5_reader <- function(path, xsel, ysel, block_rows) {
  ski_need("hdf5r", "reading HDF5 chunks")
  if (!is.character(xsel) || !is.character(ysel) || length(xsel) != 1L || length(ysel) != 1L)
    stop("for HDF5 files, 'x' and 'y' name datasets", call. = FALSE)
  if (!isTRUE(tryCatch(hdf5r::is.h5file(path), error = function(e) FALSE)))
    ski_h5_fail(path, "the file is not an HDF5 file")
  f <- tryCatch(hdf5r::H5File$new(path, mode = "r"), error = function(e) NULL)
  if (is.null(f)) ski_h5_fail(path, "cannot open the HDF5 file (it may be damaged)")
  ok <- FALSE
  on.exit(if (!ok) f$close_all())
  x <- ski_h5_dataset(f, xsel, path)
  y <- ski_h5_dataset(f, ysel, path)
  # hdf5r gives the dims in R's order: an n-by-d matrix is c(n, d)
  if (length(y$dims) == 2L && all(y$dims != 1))
    ski_h5_fail(path, "dataset '%s' (y) is a %.0f-by-%.0f matrix, not a vector", ysel, y$dims[1L],
                y$dims[2L])
  n <- prod(y$dims)
  if (x$dims[1L] != n)
    ski_h5_fail(path, paste("dataset '%s' (x) has %.0f rows but '%s' (y) has %.0f values (an",
                            "n-by-d matrix written by R or Octave has the HDF5 dims {d, n})"),
                xsel, x$dims[1L], ysel, n)
  rows <- 0
  read <- function(ds, r, vec) tryCatch({
    if (length(ds$dims) == 1L) v <- ds$h[r]
    else if (!vec) v <- ds$h[r, , drop = FALSE]
    else v <- if (ds$dims[1L] == 1L) ds$h[1L, r] else ds$h[r, 1L]
    if (vec) as.vector(v) else if (is.null(dim(v))) matrix(v) else v
  }, error = function(e) ski_h5_fail(path, "cannot read rows %.0f to %.0f of dataset '%s'",
                                     r[1L], r[length(r)], ds$name))
  next_block <- function() {
    if (rows >= n) return(NULL)
    r <- (rows + 1):min(n, rows + block_rows)
    out <- list(x = read(x, r, FALSE), y = read(y, r, TRUE))
    rows <<- rows + length(r)
    out
  }
  ok <- TRUE
  list(next_block = next_block, close = function() f$close_all(),
       where = function(r, line) sprintf("row %.0f of %s", r, path))
}
