#' Train a small MLP (MAP, Adam)
#'
#' A fully connected network trained by Adam on minibatches with optional
#' weight decay, seeded, so that users without a deep-learning stack can
#' produce networks for \code{\link{valla}} (e.g. the paper's 3 x 200 tanh
#' regression and 2 x 200 tanh classification networks). Weights start
#' Glorot-uniform, biases at 0.
#' Gaussian targets are trained on their standardized scale (mean 0, sd 1)
#' and the output layer is mapped back, so the network predicts y in its own
#' units and \code{lr} does not depend on them (training on \code{a * y + b}
#' gives \code{a * g + b} to rounding); \code{weight_decay} acts on that
#' standardized scale, \code{loss} is in y's units.
#'
#' @param x n-by-d matrix of inputs (its column names are kept as
#'   \code{coefnames}), or a formula \code{y ~ x1 + f} (or \code{y ~ .}) on
#'   \code{data}: the inputs are its model matrix without the intercept column
#'   (the output bias plays its part), factors coded as
#'   \code{\link[stats]{model.matrix}} does, as \code{nnet}'s formula method
#'   does. The network then keeps \code{terms}, \code{xlevels},
#'   \code{contrasts} and \code{na.action}, and \code{\link{valla}} and
#'   \code{\link{mlp_forward}} take a data frame (see there).
#' @param y targets (gaussian), labels 1..C or a factor (softmax), or 0/1,
#'   logical or a 2-level factor (bernoulli); with a formula \code{x} the
#'   response comes from the formula (a data frame here is \code{data}).
#' @param data,subset,na.action with a formula \code{x}: where its variables
#'   are, which rows to use and what to do with NA (default
#'   \code{getOption("na.action")}), as in \code{\link[stats]{lm}}.
#' @param hidden widths of the hidden layers, e.g. \code{c(200, 200)}.
#' @param activation hidden activation: \code{"tanh"}, \code{"sigmoid"},
#'   \code{"relu"} or \code{"identity"}.
#' @param ... options by name (see Options).
#' @eval rd_options("mlp_fit")
#' @return A generic MLP list of class \code{mlp}: \code{weights} (in-by-out
#'   matrices), \code{biases}, \code{activation}, \code{output}
#'   (\code{"identity"}), \code{likelihood}, \code{levels}, \code{loss} (the
#'   final mean training loss), \code{initial_loss} (before training),
#'   \code{iterations} (Adam steps taken), \code{stop_reason}
#'   (\code{"iterations"}; \code{"diverged"} when the loss, a gradient or a step
#'   stopped being finite: training stops there and keeps the last finite
#'   weights, \code{diverged_at} giving the iteration; \code{"loss_rose"} when
#'   the final loss exceeds the initial one; both warn and usually mean that
#'   \code{lr} is too large), usable by \code{\link{valla}} and
#'   \code{\link{mlp_forward}}; \code{coefnames} (the input columns' names,
#'   \code{NULL} without names) and, for a formula, \code{terms},
#'   \code{xlevels}, \code{contrasts}, \code{na.action}.
#' @examples
#' x <- matrix(seq(-2, 2, length.out = 100))
#' net <- mlp_fit(x, sin(2 * x[, 1]), hidden = c(20, 20), iterations = 1000,
#'                lr = 0.01, seed = 1)
#' net$loss
#' head(mlp_forward(net, x))
#' @export
mlp_fit <- function(x, y, hidden = c(50, 50), activation = "tanh", ..., data = NULL,
                    subset = NULL, na.action = NULL) {
  fn <- "mlp_fit"
  if (inherits(x, "formula")) return(formula_fit(match.call(), parent.frame(), fn))
  if (!missing(data) || !missing(subset) || !missing(na.action)) formula_only(fn)
  opts <- verb_options(fn, list(...))
  cn <- input_colnames(x)  # valla and mlp_forward match columns by these names
  x <- as_input_matrix(x, fn, "x")
  likelihood <- opts[["likelihood"]] %||% option_default(fn, "likelihood")
  sgp_call(C_option_check, fn, "likelihood", likelihood)  # the core's choices and message
  activation <- check_choice(activation, c("tanh", "sigmoid", "relu", "identity"), fn,
                             "activation")
  if (!is.numeric(hidden) || any(!is.finite(hidden)) || any(hidden < 1) ||
      any(hidden != round(hidden)) || any(hidden > 2^53))
    stop_arg(fn, "hidden", "must be positive whole numbers (widths of the hidden layers)")
  lab <- laplace_labels(y, likelihood, nrow(x), fn)
  C <- lab$n_class
  if (lik_role(likelihood) == "multi") lab$y <- lab$y - 1  # the core's classes 0..C-1
  width <- as.double(c(ncol(x), hidden, C))  # the core checks the sizes
  res <- sgp_call(C_mlp_fit, x, lab$y, width, activation, opts)
  out <- c(res$model, list(likelihood = likelihood, levels = lab$levels, coefnames = cn,
                           loss = res$loss,
                           initial_loss = res$initial_loss, iterations = res$iterations,
                           stop_reason = res$stop_reason, diverged_at = res$diverged_at))
  class(out) <- "mlp"
  if (nzchar(res$used$warning)) warning(fn, ": ", res$used$warning, call. = FALSE)
  out
}

#' @export
print.mlp <- function(x, ...) {
  w <- c(nrow(x$weights[[1L]]), vapply(x$weights, ncol, 0L))
  cat(sprintf("mlp: %s, %s hidden units, %s likelihood; final training loss %.5g\n",
              paste(w, collapse = " - "), x$activation, x$likelihood, x$loss))
  invisible(x)
}

#' Calibration metrics of predictive distributions
#'
#' The metrics the VaLLA paper reports. Regression (Gaussian predictive
#' \code{mean} and \code{var}, the variance including the noise): mean
#' negative log-likelihood \code{nll}, continuous ranked probability score
#' \code{crps} and the centred quantile metric \code{cqm}. Classification
#' (class probabilities): \code{accuracy}, mean \code{nll}, expected
#' calibration error \code{ece} (\code{bins} equal-width confidence bins) and
#' the \code{brier} score (sum over classes, mean over points), plus the ROC
#' \code{auc} for two classes.
#'
#' @param pred a \code{valla} fit's \code{$test} or \code{predict()} list
#'   (\code{mean}, \code{var}, and \code{prob} for classification), an n-by-C
#'   matrix of class probabilities, a vector of P(y = 1) (binary), or a vector
#'   of predictive means (with \code{var}).
#' @param y targets: real numbers, labels 1..C or a factor, or 0/1 / logical
#'   when \code{pred} gives P(y = 1).
#' @param var predictive variances when \code{pred} is a vector of means.
#' @param bins ECE bins (15).
#' @return A named numeric vector (\code{auc} is \code{NA} when \code{y}
#'   holds one class only). Empty inputs, NA/NaN/Inf, lengths that do not
#'   match, non-positive variances, rows of probabilities that do not sum to 1
#'   and labels outside the classes are errors naming the argument.
#' @examples
#' valla_metrics(list(mean = c(0, 1), var = c(1, 0.5)), c(0.2, 0.7))
#' valla_metrics(rbind(c(0.9, 0.1), c(0.3, 0.7)), c(1, 2))
#' @export
valla_metrics <- function(pred, y, var = NULL, bins = 15) {
  # the core reads pred (a list, a matrix of probabilities, P(y = 1) or means with
  # var), codes the labels and checks everything; factor and logical labels are
  # numbered here
  if (is.factor(y) || is.logical(y)) y <- as.integer(y)
  unlist(sgp_call(C_valla_metrics, pred, y, var, bins))
}

