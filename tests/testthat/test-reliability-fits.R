# Fits given back, options and predictions that must not go wrong silently:
# a fit without its prior mean, options given twice or in another letter case,
# variances that rounding does not resolve, network outputs that overflow,
# subnormal inputs.

set.seed(11)
rel_x <- matrix(runif(40))
rel_y <- rbinom(40, 1, plogis(3 * sin(6 * rel_x[, 1])))

test_that("a fit whose hyper or hyper$mean was deleted is an error naming it", {
  fit <- gp_laplace(rel_x, rel_y, lengthscale = 0.3, outputscale = 1, verbose = FALSE)
  f <- fit; f$hyper <- NULL
  expect_error(predict(f, rel_x), "predict.gp_laplace: 'object$hyper' is missing", fixed = TRUE)
  f <- fit; f$hyper$mean <- NULL
  expect_error(predict(f, rel_x), "'object$hyper$mean' is missing", fixed = TRUE)
  f <- fit; f$hyper$mean <- NaN
  expect_error(predict(f, rel_x), "'object$hyper$mean' contains NaN, NA or Inf", fixed = TRUE)
  s <- ski_gsgp(rel_x, sin(6 * rel_x[, 1]), lengthscale = 0.3, outputscale = 1, noise = 0.01,
                verbose = FALSE)
  s$hyper <- NULL
  expect_error(predict(s, rel_x), "predict.ski_gsgp: 'object$hyper' is missing", fixed = TRUE)
})

test_that("an option given twice or in another letter case is refused, by the core", {
  expect_error(gp_laplace(rel_x, rel_y, tol = 1e-3, tol = 1e-4),
               "gp_laplace: 'tol' is given twice", fixed = TRUE)
  expect_error(gp_laplace(rel_x, rel_y, seed = 1, seed = 2),
               "gp_laplace: 'seed' is given twice", fixed = TRUE)
  expect_error(gp_laplace(rel_x, rel_y, Tol = 1e-3),
               "gp_laplace: unknown option 'Tol'; option names are lower case: 'tol'", fixed = TRUE)
  expect_error(gp_kernel(rel_x, lengthscale = 1, Kernel = "rbf"),
               "option names are lower case: 'kernel'", fixed = TRUE)
})

test_that("latent variances below what rounding resolves are reported, not clamped silently", {
  fit <- gp_laplace(rel_x, rel_y, lengthscale = 0.3, outputscale = 1, mean = 0,
                    learn = character(0), verbose = FALSE)
  expect_silent(p0 <- predict(fit, rel_x))
  # an edited root explains more than the prior variance: every s - |K* Q|^2 < 0
  f <- fit; f$root <- f$root * 10
  expect_warning(p <- predict(f, rel_x),
                 "predict.gp_laplace: 40 of 40 latent variances are below the rounding error")
  expect_true(all(p$var == 0))
  expect_false("warning" %in% names(p))
})

test_that("valla: outputs that overflow are an error; unresolved variances warn", {
  x <- matrix(seq(-2, 2, length.out = 60))
  y <- sin(2 * x[, 1])
  net <- mlp_fit(x, y, hidden = 8, iterations = 100, lr = 0.01, seed = 1, verbose = FALSE)
  fit <- valla(net, x, y, inducing = 8, iterations = 50, seed = 1, verbose = FALSE)
  expect_false("warning" %in% names(predict(fit, x)))
  big <- fit
  big$model$weights <- lapply(big$model$weights, function(w) w * 1e200)
  big$model$biases <- lapply(big$model$biases, function(b) b * 1e200)
  # tanh saturates: the output layer's 1e200 weights times 1e200 overflow the
  # Jacobian's products, or the latent variance is 0 against a prior of 1e400
  res <- tryCatch(predict(big, x), warning = function(w) conditionMessage(w),
                  error = function(e) conditionMessage(e))
  expect_true(is.character(res))
  expect_match(res, "overflowed double precision|below the rounding error")
  ovf <- fit
  ovf$model$weights[[2]] <- ovf$model$weights[[2]] * 1e308
  expect_error(predict(ovf, x), "predict.valla: .*overflowed double precision")
})

test_that("subnormal inputs are an error naming them, not a constant predictor", {
  expect_error(gp_laplace(rel_x * 1e-310, rel_y, verbose = FALSE),
               "gp_laplace: 'x' has .* at row 1, column 1, a subnormal number")
  expect_error(gp_kernel(rel_x * 1e-310, lengthscale = 1), "a subnormal number")
})

test_that("a fit's own variances below what rounding resolves are a warning, not a silent 0", {
  set.seed(1)
  x <- matrix(runif(30)); y <- rbinom(30, 1, 0.5)
  w <- character(0)
  fit <- withCallingHandlers(
    gp_laplace(x, y, outputscale = 1e30, lengthscale = 0.3, mean = 0, learn = character(0),
               policy = "cholesky", max_iter = 30, verbose = FALSE),
    warning = function(c) { w <<- c(w, conditionMessage(c)); invokeRestart("muffleWarning") })
  # s = 1e30 leaves rounding errors of about 1e16 in s - |K Q|^2
  expect_true(any(fit$var < 1e18))
  expect_true(any(grepl("latent variances are below the rounding error", w)))
})

test_that("a fit that diverged before a posterior predicts with the prior's variance", {
  set.seed(1)
  x <- matrix(runif(30)); y <- rbinom(30, 1, 0.5)
  fit <- suppressWarnings(gp_laplace(x, y, outputscale = 1e300, lengthscale = 0.3, mean = 0,
                                     learn = character(0), policy = "cg", verbose = FALSE))
  skip_if(fit$stop_reason != "diverged", "the fit did not diverge here")
  expect_false(fit$converged)
  p <- predict(fit, x[1:3, , drop = FALSE])
  expect_equal(p$var, rep(1e300, 3))
  expect_output(print(fit), "gp_laplace")
})

test_that("print and summary refuse model-selection fields that disagree with the fit", {
  fit <- suppressWarnings(gp_laplace(rel_x, rel_y, verbose = FALSE, seed = 1))
  expect_identical(fit$learned, c("lengthscale", "outputscale", "mean"))
  bad <- function(f, pattern) {  # print names the fit x, summary object
    expect_error(print(f), paste0("print.gp_laplace: ", pattern), fixed = TRUE)
    expect_error(summary(f), paste0("summary.gp_laplace: ", sub("'x", "'object", pattern)),
                 fixed = TRUE)
  }
  f <- fit; f$learned <- f$learned[-1]  # the trace moves the lengthscale
  bad(f, "'x$learned' lacks lengthscale, which the optimizer's trace (optim) moves")
  f <- fit; f$learned <- character(0)
  bad(f, "'x$learned' is empty but the optimizer's trace (optim) has")
  f <- fit; f$learned <- c("mean", "mean")
  bad(f, "'x$learned' must be distinct names out of lengthscale, outputscale, mean, noise, dispersion, alpha")
  f <- fit; f$loglik <- NA  # the gradient says it was computed
  bad(f, "'x$loglik' must be one finite number (loglik_grad is given)")
  f <- fit; f$loglik <- Inf
  bad(f, "'x$loglik' must be one finite number, or NA when not computed")
  f <- fit; f$loglik_se <- NA
  bad(f, "'x$loglik_se' must be one finite number >= 0 (loglik_grad is given)")
  f <- fit; f$loglik_grad <- f$loglik_grad[-1]
  bad(f, "'x$loglik_grad' must be 3 finite numbers named by the hyperparameters")
  f <- fit; f$hyper$lengthscale <- 2 * f$hyper$lengthscale
  bad(f, "'x$hyper' must hold the lengthscale, outputscale, mean, noise, dispersion and alpha the fit used")
  f <- fit; f$optim$seconds[2] <- -1
  bad(f, "'x$optim' row 2 is not an evaluation")
  f <- fit; f$optim <- f$optim[, -1]
  bad(f, "'x$optim' must be a data frame with numeric columns evaluation, loglik")
  # an offset, noise or stop reason emptied is damage, not absence (R's absence is NULL)
  pf <- gp_laplace(rel_x, rpois(40, 2), likelihood = "poisson", offset = rep(0.1, 40),
                   lengthscale = 0.3, outputscale = 1, mean = 0, learn = character(0),
                   verbose = FALSE)
  f <- pf; f$offset <- numeric(0)
  expect_error(summary(f), "'object$offset' must be absent or", fixed = TRUE)
  f <- pf; f$noise <- numeric(0)
  expect_error(print(f), "'x$noise' must be absent (NULL or []) for likelihood", fixed = TRUE)
  # the same rules hold for ski_gsgp, whose figures of the log-likelihood come together
  s <- suppressWarnings(ski_gsgp(rel_x, sin(6 * rel_x[, 1]), verbose = FALSE, seed = 1))
  expect_true(length(s$learned) > 0)
  g <- s; g$learned <- character(0)
  expect_error(summary(g), "'object$learned' is empty but the optimizer's trace", fixed = TRUE)
  g <- s; g$loglik_grad <- NULL
  expect_error(summary(g), "'object$loglik_se' must be NA or absent", fixed = TRUE)
  g <- s; g$logdet <- numeric(0)
  expect_error(print(g), "'x$logdet' must be one finite number (loglik is given)", fixed = TRUE)
  g <- s; g$stop <- character(0)
  expect_error(print(g), "'x$stop'", fixed = TRUE)
  expect_output(print(s), "ski_gsgp")
  expect_output(print(fit), "learned: lengthscale, outputscale, mean")
})
