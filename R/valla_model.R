# Networks for valla() and mlp_forward(): an nnet fit, turned here into the
# layout the core reads, or a generic MLP list, read and checked by the core
# (core/valla/valla_net_read.c).

# nnet's canonical connection list: units 0 = bias, 1..D
# inputs, D+1..D+H hidden, then K outputs; incoming weights contiguous, bias first.
nnet_canonical_conn <- function(D, H, K, skip) {
  hid <- if (H > 0) unlist(lapply(seq_len(H), function(j) 0:D)) else integer(0)
  out_src <- c(0L, if (H > 0) D + seq_len(H), if (skip || H == 0) seq_len(D))
  out <- rep(out_src, K)
  counts <- c(rep(D + 1L, H), rep(length(out_src), K))
  nconn <- c(rep(0L, D + 2L), cumsum(counts))
  list(conn = c(hid, out), nconn = nconn)
}

# The network of an nnet fit: its description for the core, the likelihood it implies, and
# its class levels. forward = TRUE keeps the logistic output of entropy fits
# (to reproduce predict.nnet); valla linearizes their logit instead.
nnet_spec <- function(model, fn, arg = "model", forward = FALSE) {
  n <- model$n
  if (!is.numeric(n) || length(n) != 3L)
    stop_arg(fn, arg, "is an nnet fit without a valid '$n'")
  D <- as.integer(n[1L]); H <- as.integer(n[2L]); K <- as.integer(n[3L])
  if (isTRUE(model$censored))
    stop_arg(fn, arg, "is a censored nnet fit; censored = TRUE is not supported")
  skip <- NA
  for (sk in c(FALSE, TRUE)) {
    can <- nnet_canonical_conn(D, H, K, sk)
    if (length(model$conn) == length(can$conn) && all(model$conn == can$conn) &&
        length(model$nconn) == length(can$nconn) && all(model$nconn == can$nconn)) {
      skip <- sk || H == 0L
      break
    }
  }
  if (is.na(skip))
    stop_arg(fn, arg, "has a connection layout ('$conn', '$nconn') that is not nnet's ",
             "standard D-H-K layout (edited with add.net?); not supported")
  if (length(model$wts) != length(can$conn) || any(!is.finite(model$wts)))
    stop_arg(fn, arg, "has weights '$wts' that do not match its layout or are not finite")
  if (!is.null(model$call$mask))
    warning(fn, ": the nnet fit was trained with a 'mask'; masked (fixed) weights are ",
            "linearized like all others", call. = FALSE)
  linout <- model$nsunits == model$nunits - K
  softmax <- isTRUE(model$softmax)
  entropy <- isTRUE(model$entropy)
  likelihood <- valla_lik_of(if (softmax) "multi" else if (entropy) "two" else "noise")
  if (entropy && K != 1L)
    stop_arg(fn, arg, "is an entropy nnet fit with ", K, " outputs; only one output ",
             "(a 2-class fit) is supported")
  if (!softmax && !entropy && K != 1L && !forward)
    stop_arg(fn, arg, "has ", K, " outputs; multi-output regression is not supported")
  out_sigmoid <- !linout && !softmax && (forward || !entropy)
  list(spec = list(kind = "nnet", n = as.double(c(D, H, K)), skip = as.integer(skip),
                   out_sigmoid = as.integer(out_sigmoid), wts = as.double(model$wts)),
       kind = "nnet", likelihood = likelihood, levels = model$lev, D = D, C = K,
       L = if (H > 0L) 2L else 1L)
}

# A generic MLP list(weights, biases, activation[, output, skip, transpose]): read
# and checked by the core (sgp_valla_net_from_value, errors naming the element),
# which gives its inputs D, outputs C and layers L; the list goes to the core as it is.
mlp_spec <- function(model, fn, arg = "model") {
  s <- sgp_call(C_valla_net_check, model, fn, arg)
  list(spec = model, kind = "mlp", likelihood = if (inherits(model, "mlp")) model$likelihood,
       levels = model$levels, D = s$D, C = s$C, L = s$L)
}

# Either kind of model.
valla_model_spec <- function(model, fn, arg = "model", forward = FALSE) {
  if (inherits(model, "nnet")) return(nnet_spec(model, fn, arg, forward))
  if (inherits(model, "valla")) model <- model$model
  if (is.list(model) && !is.null(model$weights)) return(mlp_spec(model, fn, arg))
  stop_arg(fn, arg, "must be an nnet fit or a list(weights, biases, activation) ",
           "(a generic MLP, e.g. from mlp_fit())")
}

#' Outputs of a neural network
#'
#' The network outputs g(x) that \code{\link{valla}} linearizes: for an
#' \code{nnet} fit exactly what \code{predict.nnet} returns (before softmax for
#' softmax fits: the outputs are the logits), for a generic MLP
#' \code{act(... act(x \%*\% W1 + b1) ...) \%*\% WL + bL}.
#'
#' @param model an \code{nnet} fit, a generic MLP
#'   \code{list(weights = list(W1, ..., WL), biases = list(b1, ..., bL),
#'   activation = "tanh" | "sigmoid" | "relu" | "identity")} with in-by-out
#'   weight matrices (optional elements: \code{output = "identity" | "sigmoid"},
#'   \code{skip}, a d-by-C matrix added to the last layer, \code{transpose =
#'   TRUE} for out-by-in matrices), an \code{\link{mlp_fit}} result or a
#'   \code{valla} fit.
#' @param x n-by-d matrix of inputs (named columns are matched to the
#'   network's input names \code{coefnames} when it has them); for a network
#'   trained from a formula (\code{mlp_fit} or \code{nnet}) also a data frame
#'   with its variables (rows with NA give NA).
#' @param threads OpenMP threads.
#' @return n-by-C matrix of outputs.
#' @examples
#' net <- list(weights = list(matrix(c(1, -1), 1), matrix(c(0.5, 2), 2)),
#'             biases = list(c(0, 0.1), 0), activation = "tanh")
#' mlp_forward(net, matrix(seq(-1, 1, by = 0.5)))
#' @export
mlp_forward <- function(model, x, threads = getOption("scalegp.threads")) {
  fn <- "mlp_forward"
  m <- valla_model_spec(model, fn, forward = TRUE)
  fd <- formula_newdata(model, x, fn, "x")
  x <- if (is.null(fd)) match_columns(x, model[["coefnames", exact = TRUE]], fn, "x") else fd$x
  x <- as_input_matrix(x, fn, "x")
  if (ncol(x) != m$D)
    stop_arg(fn, "x", "has ", ncol(x), " columns but the network expects ", m$D, " inputs")
  formula_pad(sgp_call(C_valla_forward, m$spec, x, check_threads(threads, fn)),
              fd$na.action)
}
