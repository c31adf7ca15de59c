#' scalegp: scalable Gaussian process inference
#'
#' One C core (BLAS-3, FFTW, OpenMP) behind three methods for data that has
#' outgrown exact Gaussian processes: computation-aware Laplace inference for
#' non-conjugate likelihoods, structured kernel interpolation as a
#' grid-structured GP, and variational linearized Laplace for pre-trained
#' networks. The same functions exist in GNU Octave.
#'
#' Threads: every function takes the OpenMP thread count from its
#' \code{threads} argument, else from \code{options(scalegp.threads = )},
#' else uses all cores.
#'
#' @seealso \code{\link{gp_kernel}}, \code{\link{scalegp_info}}
#' @keywords internal
#' @useDynLib scalegp, .registration = TRUE, .fixes = "C_"
"_PACKAGE"
