#' What this scalegp build offers
#'
#' Reports the package version, the linear algebra and FFT libraries, OpenMP
#' threads and whether the CUDA backend was built and finds a device.
#'
#' @return A list with \code{version}, \code{blas}, \code{lapack}, \code{fftw},
#'   \code{openmp}, \code{max_threads}, \code{cuda_built} and
#'   \code{cuda_devices}; printed as a short summary.
#' @examples
#' scalegp_info()
#' @export
scalegp_info <- function() {
  info <- sgp_call(C_info)
  si <- utils::sessionInfo()
  info$blas <- if (is.null(si$BLAS)) "unknown" else si$BLAS
  info$lapack <- if (is.null(si$LAPACK)) "unknown" else si$LAPACK
  info <- info[c("version", "blas", "lapack", "fftw", "openmp", "max_threads",
                 "cuda_built", "cuda_devices")]
  structure(info, class = "scalegp_info")
}

#' @export
print.scalegp_info <- function(x, ...) {
  cat("scalegp", x$version, "\n")
  cat("  BLAS:    ", x$blas, "\n")
  cat("  LAPACK:  ", x$lapack, "\n")
  cat("  FFTW:    ", x$fftw, "\n")
  cat("  OpenMP:  ", if (x$openmp) paste(x$max_threads, "threads") else "not available", "\n")
  cat("  CUDA:    ", if (!x$cuda_built) "not built"
      else paste("built,", x$cuda_devices, "device(s)"), "\n")
  invisible(x)
}
