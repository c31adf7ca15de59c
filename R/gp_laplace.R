#' Computation-aware Laplace approximation for non-conjugate GPs (IterNCGP)
#'
#' Fits a Gaussian-process model with a Bernoulli (logit), Poisson (log),
#' softmax or Gaussian likelihood by Newton's method, where every Newton step is
#' a GP regression on pseudo targets solved approximately by a probabilistic
#' linear solver (IterGP). Products with the kernel matrix are recycled across
#' Newton steps and the solver's low-rank root can be compressed to a fixed
#' rank, so cost and memory are set by \code{max_iter} and \code{rank} rather
#' than by the cube of n. The reported variances include the
#' \emph{computational} uncertainty of stopping the solver early: they shrink
#' towards the exact Laplace variances as the budget grows.
#'
#' Labels: \code{"bernoulli"} takes 0/1, a logical or a factor with 2 levels
#' (the level names are kept for \code{predict(type = "class")});
#' \code{"softmax"} takes integers 1..C or a factor (C is the number of levels,
#' or the largest label); \code{"poisson"} takes non-negative integer counts
#' with an optional log exposure \code{offset}; \code{"gaussian"} takes real
#' responses with variance \code{noise}; \code{"binomial"} takes successes in
#' 0..\code{trials}. The option \code{likelihood} (Options) lists every
#' likelihood with its labels.
#'
#' Policies: \code{"cg"} uses the current residual as the next action
#' (conjugate gradients; few iterations reach the mode), \code{"cholesky"} uses
#' unit vectors (data points in order, or in a seeded random order with
#' \code{random_order = TRUE}), which equals a partial Cholesky factorization;
#' with \code{max_iter >= n C} both reproduce the exact Laplace approximation.
#' \code{"auto"} (the default) is that exact Laplace (\code{"cholesky"},
#' \code{max_iter = n C}) where its dense factor fits (see the option) and
#' \code{"cg"} beyond or when a budget (\code{max_iter}, \code{rank},
#' \code{max_total_iter}, \code{precond_rank}) is given; the fit's
#' \code{policy} and \code{policy_reason} say which ran and why.
#'
#' @param x n-by-d numeric matrix of training inputs (a vector is one column;
#'   a data frame's columns must be numeric), or a formula (see Formulas).
#' @param y labels or responses (see Details), length n; with a formula \code{x}
#'   the response comes from the formula (a data frame given here is
#'   \code{data}).
#' @param xtest optional test inputs (d columns; for a formula fit also a data
#'   frame): predictions go to \code{$test}.
#' @param xtest_offset log exposure at \code{xtest} (likelihoods with a log link;
#'   default 0).
#' @param data,subset,na.action with a formula \code{x}: where its variables
#'   are, which rows to use and what to do with rows holding NA, as in
#'   \code{\link[stats]{lm}} (see Formulas).
#' @param ... options by name (see Options); every option, its default, range
#'   and the check of its value are defined once in the compiled core
#'   (\code{scalegp_options("gp_laplace")} lists them).
#' @eval rd_options("gp_laplace")
#' @details
#' \strong{Budget and convergence.} With \code{policy = "cg"} and \code{max_iter}
#' at least \eqn{n C}, a solve whose residual has converged goes on with
#' unit-vector actions outside the span of the previous ones until they span
#' everything, so that the variance (not only the mean) is the exact Laplace
#' variance. Newton stops, converged, when a bound on the distance of the latent
#' mode found to the true one (largest absolute difference, in latent units) is
#' at most \code{tol}, both at the linearization point of the returned posterior
#' and at the returned \code{f}. The bound is
#' \eqn{\|\nabla\Psi(f)\| / (1/\lambda_{max}(K) + \min W)}: the Laplace objective
#' \eqn{\Psi} is strongly concave with curvature at least \eqn{K^{-1}}, so the
#' bound holds wherever the run stopped (\code{steps$mode_error} shows it per
#' Newton step). A small solver budget may not reach the mode: the fit then says
#' \code{converged = FALSE} (stop reason \code{"max_newton"} or \code{"stalled"})
#' and its variances include the computational uncertainty. A solve stops when the
#' residual norm is below \code{max(inner_atol, inner_rtol * norm(b))}.
#'
#' \strong{Damping.} With \code{damping = TRUE} (the default) no Newton step
#' lowers the Laplace objective \eqn{\Psi(f) = \log p(y|f) - \frac12 (f-m)^T
#' K^{-1}(f-m)}: after a truncated solve (the residual tolerance not met within
#' \code{max_iter} iterations) the step maximizes \eqn{\Psi} over the span of this
#' step's solver actions, the previous weights and the solver's weights (a small
#' concave problem, no kernel products); after a converged solve it backtracks
#' along the Newton step (overshooting likelihoods: large counts).
#' \code{damping = FALSE} gives the paper's undamped steps, which are safe only
#' when the solves are (nearly) exact, i.e. a budget near the number of latent
#' values or \code{policy = "cholesky"} with a full budget, and the counts
#' moderate; at small budgets they can diverge to overconfident predictions.
#'
#' \strong{Memory.} The kernel matrix is computed once and kept when its
#' \eqn{8 n^2} bytes fit \code{kernel_cache_bytes}; only its lower triangle is
#' computed and touched, so about half of that becomes resident memory. Otherwise
#' every product evaluates the kernel tile by tile (matrix-free, O(n) memory).
#'
#' @section Formulas:
#' \code{gp_laplace(y ~ x1 + x2, data = df, ...)} or \code{y ~ .} fits on the
#' columns \code{\link[stats]{model.matrix}} makes, without its intercept column
#' (a GP's constant level is its prior \code{mean}): factor, ordered,
#' character and logical predictors become contrast columns by
#' \code{getOption("contrasts")} (by default a factor with k levels gives k - 1
#' indicator columns, an ordered one polynomial contrasts; write
#' \code{y ~ 0 + f + ...} for k indicator columns of the first factor, which
#' puts all its levels at the same distance). The response may be a factor (see
#' Labels above). \code{na.action} defaults to \code{getOption("na.action")}
#' (\code{na.omit}); with \code{na.exclude}, \code{predict(fit)} and
#' \code{fitted(fit)} pad the rows left out with NA.
#' An \code{offset(log(exposure))} term is the poisson \code{offset}.
#' \code{weights} are not supported. The fit keeps \code{terms},
#' \code{xlevels}, \code{contrasts} and \code{na.action} as \code{lm} does, so
#' \code{predict(fit, newdata = df2)} builds the same columns from a data frame
#' (its column order does not matter; a variable it lacks or a factor level the
#' fit has not seen is an error naming it). The fit's \code{terms} keep the
#' formula's environment, as \code{lm}'s do.
#' @return An object of class \code{gp_laplace}, a plain list: \code{f},
#'   \code{var}, \code{weights} (n-by-C latent mode, latent marginal variances
#'   incl. computational uncertainty, representer weights), \code{root}
#'   (nC-by-r, C_j = root root'), \code{newton_steps}, \code{iterations},
#'   \code{converged}, \code{stop_reason}, \code{history} (data frame, one row
#'   per solver iteration: \code{newton}, \code{iteration}, \code{total},
#'   \code{residual}, \code{rel_residual}, \code{trace} (sum of the latent
#'   variances at x; NA where \code{history_trace} left it out), \code{rank},
#'   \code{buffer}, \code{seconds}),
#'   \code{steps} (data frame per Newton step), \code{kernel} (list of kind,
#'   lengthscale, outputscale), \code{likelihood}, \code{n_class},
#'   \code{levels}, the training data \code{x}, \code{y}, \code{offset},
#'   \code{noise}, \code{scaling} (option \code{scale}: \code{scaled},
#'   \code{centre}, \code{scale}, the \code{lengthscale} on the inputs the kernel
#'   saw, \code{note}; \code{kernel} and \code{hyper} give lengthscales on the
#'   inputs' own scale, one per column where the columns were scaled; see
#'   \code{docs/gp_laplace.md}, Input scaling), and
#'   \code{test = list(mean, var, prob)} when \code{xtest} is
#'   given (poisson: \code{rate_mean}, \code{rate_var} instead of \code{prob};
#'   gaussian: \code{y_var}, the variance of a new observation, with the first
#'   \code{noise} value when the noise is per point).
#'   \code{call} is the call (\code{update} refits from it); \code{logLik},
#'   \code{AIC}, \code{BIC}, \code{coef} and \code{nobs} work as for
#'   \code{glm} (\code{\link{scalegp_methods}}).
#' @seealso \code{\link{predict.gp_laplace}}, \code{\link{plot.gp_laplace}}
#' @examples
#' set.seed(1)
#' x <- matrix(sort(runif(60, -3, 3)))
#' y <- rbinom(60, 1, plogis(2 * sin(x[, 1])))
#' fit <- gp_laplace(x, y, lengthscale = 1, outputscale = 4, max_iter = 10,
#'                   xtest = matrix(seq(-3, 3, length.out = 5)), seed = 1)
#' fit
#' round(fit$test$prob, 3)
#' p <- predict(fit, matrix(c(-1.5, 1.5)))
#' p$prob
#' # counts with an exposure
#' cnt <- rpois(60, exp(0.5 + cos(x[, 1])))
#' pois <- gp_laplace(x, cnt, likelihood = "poisson", offset = rep(0.1, 60),
#'                    policy = "cholesky", max_iter = 60, seed = 1)
#' summary(pois)
#' # a formula on a data frame: factors are coded as model.matrix does
#' df <- data.frame(x = x[, 1], g = factor(rep(c("a", "b", "c"), 20)), y = y)
#' ff <- gp_laplace(y ~ x + g, data = df, lengthscale = 1, outputscale = 4,
#'                  learn = character(0), seed = 1)
#' predict(ff, newdata = data.frame(g = c("b", "a"), x = c(0, 1)))$prob
#' @export
gp_laplace <- function(x, y, ..., xtest = NULL, xtest_offset = NULL, data = NULL,
                       subset = NULL, na.action = NULL) {
  fn <- "gp_laplace"
  if (inherits(x, "formula")) return(formula_fit(match.call(), parent.frame(), fn))
  if (!missing(data) || !missing(subset) || !missing(na.action)) formula_only(fn)
  opts <- verb_options(fn, list(...))
  cn <- input_colnames(x)
  x <- as_input_matrix(x, fn, "x")
  if (!is.null(cn)) colnames(x) <- cn  # predict matches new data's columns by name
  lab <- label_codes(y, opts[["likelihood"]] %||% option_default(fn, "likelihood"), fn)
  if (length(lab$levels) >= 2L && lab$count_is_n_class)
    opts$n_class <- length(lab$levels)  # levels that never occur are classes too
  if (!is.null(xtest)) {
    xtest <- as_input_matrix(xtest, fn, "xtest", d = ncol(x))
    if (ncol(xtest) != ncol(x))
      stop_arg(fn, "xtest", "has ", ncol(xtest), " columns but 'x' has ", ncol(x))
  }
  if (is.null(xtest) && !is.null(xtest_offset)) stop_arg(fn, "xtest_offset", "needs 'xtest'")
  res <- sgp_call(C_laplace_fit, x, lab$y, xtest, as_doubles(xtest_offset), opts, NULL)
  used <- res$used
  fit <- c(res[c("f", "var", "weights", "root", "newton_steps", "iterations", "converged",
                 "stop_reason", "inner_stop_reason", "kernel_products")],
           list(history = as.data.frame(res$history), steps = as.data.frame(res$steps),
                kernel = used$kernel, likelihood = used$likelihood, n_class = used$n_class,
                levels = lab$levels, policy = used$policy,
                policy_reason = used$policy_reason, x = x, y = lab$y,
                offset = used$offset, noise = used$noise, scaling = used$scaling),
           used[laplace_lik_fields(used)], list(seed = used$seed),
           laplace_selection(res$selection))
  if (!is.null(xtest)) fit$test <- pred_class_names(res$test, fit, fn)
  fit$call <- match.call()  # (a formula's fit takes the formula call: formula_fit)
  class(fit) <- "gp_laplace"
  if (nzchar(used$warning)) warning(used$warning, call. = FALSE)
  if (isTRUE(opts[["verbose"]])) print(fit)
  fit
}

# The likelihood's own fields of a fit (binomial's trials, negbin's dispersion):
# those of the core's used options that the fit does not take otherwise.
laplace_lik_fields <- function(used) {
  setdiff(names(used), c("kernel", "likelihood", "policy", "policy_reason", "n_class", "noise",
                         "offset", "seed", "scaling",
                         "warning", "warning_id"))
}

# The model selection's fields of a fit: hyper, loglik, loglik_se, loglik_grad, learned, optim.
laplace_selection <- function(s) {
  list(hyper = s$hyper, loglik = s$loglik, loglik_se = s$loglik_se, loglik_grad = s$loglik_grad,
       learned = s$learned,
       optim = as.data.frame(s$optim))
}

# Labels as numbers for the core, which checks them, as the core's likelihood
# codes classes: a factor becomes first_class.. (0/1 for two classes, 1..C for
# any number) and keeps its level names; a logical (two classes) its two codes.
# count_is_n_class: the factor's level count is the number of classes.
label_codes <- function(y, likelihood, fn) {
  levels <- NULL
  t <- lik_label_coding()
  lk <- lik_coding_of(likelihood, t)
  two <- lk$classes && lk$n_classes == 2L
  y <- as_plain_numbers(y, fn, "y")
  if (is.matrix(y) && ncol(y) == 1L) y <- drop(y)
  if (is.factor(y)) {
    if (!lk$classes)
      stop_arg(fn, "y", "is a factor; likelihood = \"", likelihood, "\" needs numbers")
    if (anyNA(y)) stop_arg(fn, "y", "contains NA")
    # a fixed number of classes: the levels that occur (a factor can carry unused ones)
    if (two && nlevels(y) > 2L && nlevels(droplevels(y)) == 2L) y <- droplevels(y)
    levels <- levels(y)
    if (lk$n_classes > 0L && length(levels) != lk$n_classes)
      stop_arg(fn, "y", "must have exactly ", lk$n_classes, " levels for likelihood = \"",
               likelihood, "\" (got ", length(levels),
               if (length(levels) > lk$n_classes) paste0("; for more classes use likelihood = ",
                 quoted_or(t$name[t$classes & t$n_classes == 0L])), ")")
    y <- as.integer(y) - 1L + lk$first_class
  } else if (is.logical(y)) {
    if (!two)
      stop_arg(fn, "y", "is logical; only likelihood = ",
               quoted_or(t$name[t$classes & t$n_classes == 2L]), " takes TRUE/FALSE")
    if (anyNA(y)) stop_arg(fn, "y", "contains NA")
    levels <- c("FALSE", "TRUE")
    y <- as.integer(y) + lk$first_class
  } else if (!is.numeric(y) || !is.null(dim(y))) {
    stop_arg(fn, "y", "must be a numeric vector, a factor or a logical vector")
  }
  list(y = as.double(y), levels = levels,
       count_is_n_class = lk$classes && lk$n_classes == 0L)
}

# Labels as doubles with the checks (mlp_fit, which does not use the core's yet),
# the class count and level names; what is checked follows the likelihood's role
# (lik_role; mlp_fit offers valla's likelihoods).
laplace_labels <- function(y, likelihood, n, fn) {
  lab <- label_codes(y, likelihood, fn)
  y <- lab$y
  levels <- lab$levels
  if (length(y) != n)
    stop_arg(fn, "y", "has length ", length(y), " but 'x' has ", n, " rows")
  bad <- which(!is.finite(y))
  if (length(bad)) stop_arg(fn, "y", "contains NaN, NA or Inf (first at ", bad[1L], ")")
  whole <- all(y == round(y))
  n_class <- 1L
  role <- lik_role(likelihood)
  if (role == "two" && !all(y %in% c(0, 1)))
    stop_arg(fn, "y", "must be 0/1, logical or a 2-level factor for likelihood = \"", likelihood,
             "\" (found ", format(y[!y %in% c(0, 1)][1L]), ")")
  if (role == "multi") {
    if (!whole || any(y < 1))
      stop_arg(fn, "y", "must be class labels 1..C or a factor for likelihood = \"", likelihood,
               "\" (found ", format(y[y != round(y) | y < 1][1L]), ")")
    if (is.null(levels) && max(y) > n)
      stop_arg(fn, "y", "has labels up to ", format(max(y)), " but only n = ", n,
               " points; ", likelihood, " labels are 1..C with C <= n")
    n_class <- if (is.null(levels)) as.integer(max(y)) else length(levels)
    if (n_class < 2L)
      stop_arg(fn, "y", "has C = ", n_class, " class; likelihood = \"", likelihood,
               "\" needs C >= 2")
  }
  list(y = y, n_class = n_class, levels = levels)
}

# Predictions as the core writes them (sgp_laplace_predict_plain,
# sgp_valla_predict_plain), softmax probabilities with the class names as column
# names (R's only addition); the core's warning (variances that rounding does not
# resolve) becomes fn's warning and leaves the list.
pred_class_names <- function(p, fit, fn) {
  lk <- lik_coding_of(fit$likelihood)
  if (lk$classes && lk$n_classes == 0L && !is.null(fit$levels)) { # a column per class
    if (!is.character(fit$levels) || length(fit$levels) != ncol(p$prob))
      stop_arg(fn, "object$levels", "must be NULL or ", ncol(p$prob),
               " class names (the fit is damaged; refit it)")
    colnames(p$prob) <- fit$levels
  }
  w <- p[["warning", exact = TRUE]]
  if (!is.null(w) && nzchar(w)) warning(fn, ": ", w, call. = FALSE)
  p[["warning"]] <- NULL
  p
}

#' Predictions of a gp_laplace fit at new inputs
#'
#' Works on a fit reloaded with \code{readRDS} (the fit is plain data).
#'
#' @param object a \code{gp_laplace} fit.
#' @param newdata m-by-d matrix of new inputs (default: the training inputs,
#'   padded with NA at the rows \code{na.exclude} left out); for a fit made
#'   from a formula also a data frame with the formula's variables (rows with
#'   NA in them give NA).
#' @param offset log exposure at \code{newdata} (likelihoods with a log link;
#'   length m, default 0,
#'   or the formula's offset term; the training offset when \code{newdata} is
#'   not given).
#' @param type \code{"list"} (default): \code{list(mean, var, prob)} with the
#'   latent mean and variance (m-by-C, a vector when C = 1) and, for
#'   classification, the class probabilities (probit approximation; bernoulli:
#'   P(y = 1), softmax: m-by-C); poisson gives \code{rate_mean}/\code{rate_var},
#'   gaussian \code{y_var}. \code{"response"}: the expected response only
#'   (probabilities, rates or means). \code{"class"}: the most probable class
#'   (a factor when the fit had level names, else 0/1 or 1..C). \code{"link"}:
#'   the latent mean (m-by-C for softmax), as \code{glm}'s linear predictor.
#' @param se.fit with \code{type = "link"} or \code{"response"}, also the
#'   standard errors, as \code{glm} gives them: \code{list(fit, se.fit)}.
#'   \code{"link"}: the latent standard deviation \code{sqrt(var)} (it includes
#'   the computational uncertainty). \code{"response"}: the standard error of
#'   the expected response (not of a new observation): gaussian the latent
#'   standard deviation; poisson and negbin the standard deviation of the rate
#'   under the latent posterior, \code{sqrt(rate_var)}; bernoulli and binomial
#'   the delta method at the latent mean, \eqn{p(1-p)} times the latent
#'   standard deviation with \eqn{p} = \code{plogis(mean)}, as \code{glm}'s
#'   (\code{fit} stays the probit approximation of the probability); softmax
#'   has none (an error; use \code{"link"}).
#' @param threads OpenMP threads.
#' @param ... nothing: an argument the method does not take is an error.
#' @return See \code{type} and \code{se.fit}.
#' @examples
#' x <- matrix(seq(-2, 2, length.out = 30))
#' fit <- gp_laplace(x, factor(ifelse(x[, 1] > 0, "yes", "no")), max_iter = 30,
#'                   verbose = FALSE, seed = 1)
#' predict(fit, matrix(c(-1, 1)), type = "class")
#' @export
predict.gp_laplace <- function(object, newdata = NULL, offset = NULL,
                               type = c("list", "response", "class", "link"),
                               se.fit = FALSE, threads = getOption("scalegp.threads"), ...) {
  fn <- "predict.gp_laplace"
  no_extra_args(list(...), fn)
  se.fit <- check_se_fit(se.fit, fn)
  fit <- laplace_fit_check(object, fn)
  omit <- object[["na.action", exact = TRUE]]  # fitted values: na.exclude pads them
  if (is.null(newdata)) {
    newdata <- fit$x
    if (is.null(offset)) offset <- fit$offset  # the training exposure
  } else if (!is.null(fd <- formula_newdata(object, newdata, fn, "newdata"))) {
    newdata <- fd$x
    offset <- offset %||% fd$offset
    omit <- fd$na.action
  } else omit <- NULL
  newdata <- match_columns(newdata, colnames(fit$x), fn, "newdata")
  newdata <- as_input_matrix(newdata, fn, "newdata", d = ncol(fit$x))
  # the core checks the fit, newdata and the options (their table "gp_laplace_predict")
  opts <- list(offset = as_doubles(offset), type = if (missing(type)) "list" else type,
               threads = threads)
  p <- sgp_call(C_laplace_predict, object, fn, "object", newdata, opts)
  type <- p$type
  out <- pred_class_names(p$pred, fit, fn)
  if (se.fit) return(formula_pad(pred_se_fit(out, type, fit$n_class, fn), omit))
  formula_pad(switch(type,
    list = out,
    link = out$mean,
    response = out[[intersect(c("prob", "rate_mean", "mean"), names(out))[1L]]],
    class = { # two classes: P(the second); more: a column each (the core's coding)
      lk <- lik_coding_of(fit$likelihood)
      k <- if (lk$n_classes == 2L) as.integer(out$prob > 0.5) + 1L
           else max.col(out$prob, ties.method = "first")
      if (!is.null(fit$levels)) factor(fit$levels[k], levels = fit$levels)
      else k - 1L + lk$first_class
    }), omit)
}

#' Fitted values of a gp_laplace fit
#'
#' The expected response at the training inputs: \code{predict(object, type =
#' "response")}, padded with NA at the rows a formula fit's \code{na.exclude}
#' left out (as \code{fitted.lm} is).
#'
#' @param object a \code{gp_laplace} fit.
#' @param ... unused.
#' @return Probabilities (bernoulli: a vector, softmax: a matrix), rates or means.
#' @importFrom stats fitted
#' @export
fitted.gp_laplace <- function(object, ...) {
  stats::predict(object, type = "response")
}

#' @export
print.gp_laplace <- function(x, ...) {
  obj <- x
  x <- laplace_fit_check(x, "print.gp_laplace", "x")
  cat(sprintf("gp_laplace: %s likelihood, %s kernel, n = %d, d = %d%s\n", x$likelihood,
              x$kernel$kernel, nrow(x$x), ncol(x$x),
              if (x$n_class > 1) sprintf(", C = %d", x$n_class) else ""))
  cat(sprintf("  %d Newton steps, %s solver iterations (%s policy), rank %d; %s (%s)\n",
              x$newton_steps, fmt_count(x$iterations), x$policy, ncol(x$root),
              if (x$converged) "converged" else "NOT converged", x$stop_reason))
  cat(laplace_hyper_line(x), "\n", sep = "")
  if (nzchar(sl <- laplace_scaling_line(x))) cat(sl, "\n", sep = "")
  if (is.list(x$test)) cat(sprintf("  predictions at %d test inputs in $test\n",
                                   NROW(x$test[["mean", exact = TRUE]])))
  invisible(obj)
}

# "  lengthscale .., outputscale .., mean ..[, noise ..][, dispersion ..][, alpha ..];
# log evidence ..; learned: .."
laplace_hyper_line <- function(x) {
  h <- x$hyper
  if (is.null(h)) return("")
  num <- function(v) fmt_g(v)
  more <- function(nm) if (is.null(h[[nm]])) "" else paste0(", ", nm, " ", num(h[[nm]]))
  sprintf("  lengthscale %s, outputscale %s, mean %s%s; log evidence %s; %s", num(h$lengthscale),
          num(h$outputscale), num(h$mean),
          paste0(more("noise"), more("dispersion"), more("alpha")),
          if (is.na(x$loglik)) "not computed" else
            paste0(fmt_g(x$loglik, 6), if (isTRUE(x$loglik_se > 0))
              paste0(" (se ", fmt_g(x$loglik_se, 2), ")") else ""),
          if (length(x$learned)) paste("learned:", paste(x$learned, collapse = ", "))
          else "nothing learned")
}

# "  inputs       <the core's note>" for a fit with a scaling (option scale), else "".
laplace_scaling_line <- function(x) {
  note <- x[["scaling", exact = TRUE]]$note
  if (is.null(note)) "" else paste0("  inputs       ", note)
}

#' Summary of a gp_laplace fit
#'
#' @param object a \code{gp_laplace} fit.
#' @param ... unused.
#' @return An object of class \code{summary.gp_laplace} (a list) with the
#'   likelihood, kernel, n, C, Newton steps, solver iterations, convergence, stop
#'   reason, the training log-likelihood at the mode and, for classification,
#'   the training accuracy.
#' @export
summary.gp_laplace <- function(object, ...) {
  object <- laplace_fit_check(object, "summary.gp_laplace")
  tr <- attr(object, "train")  # the core's (sgp_laplace_train_plain)
  ll <- tr$loglik
  acc <- tr$accuracy
  s <- list(likelihood = object$likelihood, kernel = object$kernel, n = nrow(object$x),
            d = ncol(object$x), C = object$n_class, policy = object$policy,
            newton_steps = object$newton_steps, iterations = object$iterations,
            rank = ncol(object$root), converged = object$converged,
            stop_reason = object$stop_reason, loglik = ll, accuracy = acc,
            last_delta = utils::tail(object$steps$delta, 1L),
            hyper_line = laplace_hyper_line(object),
            scaling_line = laplace_scaling_line(object))
  class(s) <- "summary.gp_laplace"
  s
}

#' @export
print.summary.gp_laplace <- function(x, ...) {
  k <- x$kernel
  cat(sprintf("gp_laplace (IterNCGP) with %s likelihood\n", x$likelihood))
  cat(sprintf("  kernel       %s, lengthscale %s, outputscale %s\n", k$kernel,
              fmt_g(k$lengthscale), fmt_g(k$outputscale)))
  if (nzchar(x$hyper_line %||% "")) cat(x$hyper_line, "\n", sep = "")
  if (nzchar(x$scaling_line %||% "")) cat(x$scaling_line, "\n", sep = "")
  cat(sprintf("  data         n = %d, d = %d, C = %d\n", x$n, x$d, x$C))
  cat(sprintf("  solver       %s policy: %d Newton steps, %s iterations, rank %d\n",
              x$policy, x$newton_steps, fmt_count(x$iterations), x$rank))
  cat(sprintf("  convergence  %s (stop reason \"%s\", last relative step %.3g)\n",
              if (x$converged) "yes" else "NO", x$stop_reason, x$last_delta))
  cat(sprintf("  train log-likelihood at the mode  %.4f\n", x$loglik))
  if (!is.null(x$accuracy))
    cat(sprintf("  train accuracy                    %.4f\n", x$accuracy))
  invisible(x)
}

#' Plot a gp_laplace fit
#'
#' 1-D inputs: the latent mean with a band of 2 standard deviations (including
#' the computational uncertainty) over a grid, with the data (gaussian: the
#' responses; classification: the labels as ticks at the bottom and top, top
#' for class 1 / the class shown); poisson on the data's scale: the rate
#' \code{exp(f)} per unit exposure with the band's ends transformed likewise,
#' and each count divided by its exposure \code{exp(offset)}; 2-D inputs: an
#' image with contours of the latent mean (or, for classification, the
#' probability of the last class) over a grid, with the data points.
#' \code{what = "history"}: the solver residual and the variance trace against
#' the solver iteration, with Newton steps marked (the trace where it was
#' recorded: see the option \code{history_trace} of \code{gp_laplace}).
#'
#' @param x a \code{gp_laplace} fit.
#' @param what \code{"fit"} or \code{"history"}.
#' @param class latent function to show (softmax), default 1 (1-D) or C (2-D).
#' @param n_grid grid points per dimension.
#' @param ... passed to the base graphics call that draws the frame.
#' @return \code{x}, invisibly.
#' @examples
#' x <- matrix(seq(-3, 3, length.out = 40))
#' fit <- gp_laplace(x, as.integer(sin(x[, 1]) > 0), max_iter = 10,
#'                   verbose = FALSE, seed = 1)
#' plot(fit)
#' plot(fit, what = "history")
#' @export
plot.gp_laplace <- function(x, what = c("fit", "history"), class = NULL, n_grid = 100,
                            ...) {
  what <- match.arg(what)
  fit <- laplace_fit_check(x, "plot.gp_laplace", "x")
  if (what == "history") {
    h <- fit$history
    if (!nrow(h)) stop_arg("plot.gp_laplace", "x", "has an empty history")
    op <- graphics::par(mfrow = c(1, 2))
    on.exit(graphics::par(op))
    plot_call(graphics::plot, h$total, h$residual, type = "b", log = "y", pch = 20,
              xlab = "solver iteration", ylab = "residual norm",
              main = "residual", .user = list(...))
    starts <- h$total[!duplicated(h$newton)]
    graphics::abline(v = starts - 0.5, lty = 3, col = "grey50")
    if (any(is.finite(h$trace))) {
      plot_call(graphics::plot, h$total, h$trace, type = "b", pch = 20,
                xlab = "solver iteration", ylab = "sum of latent variances",
                main = "variance trace", .user = list(...))
    } else { # NA throughout (history_trace = "auto" in the exact mode): an empty panel
      plot_call(graphics::plot, range(h$total), c(0, 1), type = "n", yaxt = "n",
                xlab = "solver iteration", ylab = "sum of latent variances",
                main = "variance trace", .user = list(...))
      graphics::text(mean(range(h$total)), 0.5,
                     "not recorded\n(gp_laplace option history_trace = \"always\")")
    }
    graphics::abline(v = starts - 0.5, lty = 3, col = "grey50")
    return(invisible(x))
  }
  d <- ncol(fit$x)
  if (d == 1L) {
    c1 <- if (is.null(class)) 1L else class
    v <- laplace_plot_series(fit, c1, n_grid)
    plot_call(graphics::plot, v$x, v$mid, type = "n", ylim = v$ylim,
              xlab = colnames(fit$x)[1] %||% "x", ylab = v$ylab,
              main = sprintf("gp_laplace (%s)", fit$likelihood), .user = list(...))
    graphics::polygon(c(v$x, rev(v$x)), c(v$lo, rev(v$hi)),
                      col = grDevices::adjustcolor("steelblue", 0.3), border = NA)
    graphics::lines(v$x, v$mid, col = "steelblue4", lwd = 2)
    graphics::points(v$px, v$py, pch = v$pch, cex = 0.7, col = v$col)
  } else if (d == 2L) {
    g1 <- seq(min(fit$x[, 1]), max(fit$x[, 1]), length.out = n_grid)
    g2 <- seq(min(fit$x[, 2]), max(fit$x[, 2]), length.out = n_grid)
    # the grid's columns carry the inputs' names, which predict matches
    cn <- colnames(fit$x) %||% c("x1", "x2")
    grid <- as.matrix(expand.grid(g1, g2))
    colnames(grid) <- colnames(fit$x)
    p <- predict(fit, grid)
    c1 <- if (is.null(class)) fit$n_class else class
    z <- if (!is.null(p$prob)) as.matrix(p$prob)[, c1] else as.matrix(p$mean)[, c1]
    z <- matrix(z, n_grid, n_grid)
    what <- if (!is.null(p$prob)) "probability" else "latent mean"
    plot_call(graphics::image, g1, g2, z, col = grDevices::hcl.colors(50, "Blue-Red 3"),
              xlab = cn[1], ylab = cn[2],
              main = sprintf("gp_laplace (%s): %s", fit$likelihood, what), .user = list(...))
    graphics::contour(g1, g2, z, add = TRUE, nlevels = 8)
    graphics::points(fit$x, pch = 21, bg = if (attr(fit, "train")$plot_scale == "classes")
      as.integer(fit$y) + 1L else "white")
  } else {
    stop_arg("plot.gp_laplace", "x", "has d = ", d, " inputs; plot() shows d = 1 or 2 (use what = \"history\")")
  }
  invisible(x)
}

# What the 1-D plot of a gp_laplace fit draws, on the data's scale: the line
# (mid), the band (lo, hi: 2 latent sds) over a grid of the inputs' range and
# the data points (px, py), on the scale the core names (plot_scale): "latent":
# latent mean and the responses; "rate" (log link): the rate exp(f) (per unit
# exposure; the band's ends are the 2.3% and 97.7% quantiles of the lognormal
# rate) and each count / exposure; "probability" (binomial): the inverse logit
# of f and each y / trials; "classes":
# the latent f of class c1 with the labels as ticks at the bottom and top.
laplace_plot_series <- function(fit, c1, n_grid) {
  g <- seq(min(fit$x), max(fit$x), length.out = n_grid)
  p <- predict(fit, matrix(g))
  m <- as.matrix(p$mean)[, c1]
  s <- sqrt(as.matrix(p$var)[, c1])
  v <- list(x = g, mid = m, lo = m - 2 * s, hi = m + 2 * s, px = fit$x[, 1], pch = 20,
            col = "black", ylab = sprintf("latent f%s", if (fit$n_class > 1) c1 else ""))
  # the plot's scale and the data on it, from the core's check
  tr <- attr(fit, "train") %||% attr(laplace_fit_check(fit, "plot.gp_laplace", "x"), "train")
  if (tr$plot_scale == "rate") {
    v[c("mid", "lo", "hi")] <- lapply(v[c("mid", "lo", "hi")], exp)
    v$py <- tr$plot_y
    v$ylab <- "rate (count / exposure)"
  } else if (tr$plot_scale == "probability") {
    v[c("mid", "lo", "hi")] <- lapply(v[c("mid", "lo", "hi")], stats::plogis)
    v$py <- tr$plot_y
    v$ylab <- "probability (y / trials)"
  } else if (tr$plot_scale == "latent") {
    v$py <- tr$plot_y
  } else {
    # labels along the bottom (0 / other classes) and top (1 / class c1)
    hit <- if (fit$n_class == 1L) fit$y == 1 else fit$y == c1
    yl <- range(v$lo, v$hi)
    v$py <- ifelse(hit, yl[2], yl[1])
    v$pch <- "|"
    v$col <- ifelse(hit, "firebrick", "grey30")
  }
  v$ylim <- range(v$lo, v$hi, v$py)
  v
}
