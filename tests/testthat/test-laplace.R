# gp_laplace against the fixtures of inst/extdata/make_laplace_fixtures.R (an
# independent dense Newton/Laplace in plain R), plus labels, predict on a
# reloaded fit, seeds, methods and every argument error.
laplace_kernels <- c("rbf", "matern12", "matern32", "matern52")
rel_err <- function(a, b) sqrt(sum((a - b)^2)) / sqrt(sum(b^2))

laplace_fixture <- function(case) {
  p <- read_fixture(sprintf("laplace_%s_params.csv", case))
  tr <- read_fixture(sprintf("laplace_%s_train.csv", case))
  te <- read_fixture(sprintf("laplace_%s_test.csv", case))
  d <- p[5]; C <- p[4]
  list(case = case, kernel = laplace_kernels[p[1] + 1], outputscale = p[2], noise = p[3],
       C = C, d = d, lengthscale = p[-(1:5)], n = nrow(tr),
       x = tr[, 1:d, drop = FALSE], y = tr[, d + 1], offset = tr[, d + 2],
       f = tr[, d + 2 + 1:C], var = tr[, d + 2 + C + 1:C],
       xs = te[, 1:d, drop = FALSE], offset_s = te[, d + 1], mean_s = te[, d + 1 + 1:C],
       var_s = te[, d + 1 + C + 1:C], resp_s = te[, d + 1 + 2 * C + 1:C])
}

fit_fixture <- function(fx, ...) {
  args <- utils::modifyList(list(fx$x, fx$y, likelihood = fx$case, kernel = fx$kernel,
                                 lengthscale = fx$lengthscale, outputscale = fx$outputscale,
                                 mean = 0, xtest = fx$xs, verbose = FALSE, seed = 1), list(...))
  if (fx$case == "gaussian") args$noise <- fx$noise
  if (fx$case == "poisson") {
    args$offset <- fx$offset
    args$xtest_offset <- fx$offset_s
  }
  do.call(gp_laplace, args)
}

test_resp <- function(t) if (!is.null(t$prob)) t$prob else if (!is.null(t$rate_mean)) t$rate_mean else t$y_var

expect_matches_fixture <- function(fit, fx, tol) {
  expect_lt(rel_err(as.vector(fit$f), as.vector(fx$f)), tol)
  expect_lt(rel_err(as.vector(fit$var), as.vector(fx$var)), tol)
  expect_lt(rel_err(as.vector(fit$test$mean), as.vector(fx$mean_s)), tol)
  expect_lt(rel_err(as.vector(fit$test$var), as.vector(fx$var_s)), tol)
  expect_lt(rel_err(as.vector(test_resp(fit$test)), as.vector(fx$resp_s)), tol)
}

cases <- c("bernoulli", "poisson", "softmax", "gaussian")

test_that("fixtures are what the tests expect", {
  for (case in cases) {
    fx <- laplace_fixture(case)
    expect_equal(dim(fx$x), c(fx$n, fx$d))
    expect_equal(length(fx$resp_s), 15 * fx$C)
    expect_true(all(fx$var > 0) && all(fx$var_s > 0))
  }
})

test_that("cholesky policy with the full budget equals the dense Laplace fixture (1e-8)", {
  for (case in cases) {
    fx <- laplace_fixture(case)
    fit <- fit_fixture(fx, policy = "cholesky", max_iter = fx$n * fx$C, tol = 1e-10,
                       max_newton = 50)
    expect_true(fit$converged)
    expect_equal(ncol(fit$root), fx$n * fx$C)
    expect_equal(dim(fit$f), c(fx$n, fx$C))
    expect_matches_fixture(fit, fx, 1e-8)
  }
})

test_that("cg with a budget >= n C reaches the exact Laplace mode and variances (1e-8)", {
  # Default inner tolerances: once the residual converges the solver's state is
  # the dense Cholesky of K^ over all n C unit vectors (span(S) = everything), so
  # mode and variances are the oracle's own computation up to cond(K^) eps
  # (~1e-11 for these fixtures); 1e-8 leaves room for any CPU's rounding. The
  # previous fill by Gram-Schmidt lost up to 1.8e-4 on softmax.
  for (recycle in c(TRUE, FALSE)) for (case in cases) {
    fx <- laplace_fixture(case)
    fit <- fit_fixture(fx, policy = "cg", max_iter = fx$n * fx$C, tol = 1e-8, max_newton = 50,
                       recycle = recycle)
    expect_true(fit$converged)
    expect_equal(ncol(fit$root), fx$n * fx$C)
    expect_matches_fixture(fit, fx, 1e-8)
  }
})

test_that("policy auto: the exact Laplace on small data, cg with a budget given", {
  # learned hyperparameters (the defaults): auto runs the code of cholesky with the
  # full budget, so the same bits
  for (case in c("bernoulli", "poisson", "softmax")) {
    fx <- laplace_fixture(case)
    fit_at <- function(...) {
      args <- list(fx$x, fx$y, likelihood = case, seed = 1, ...)
      if (case == "poisson") args$offset <- fx$offset
      do.call(gp_laplace, args)
    }
    a <- fit_at()
    b <- fit_at(policy = "cholesky", max_iter = fx$n * fx$C)
    expect_true(a$converged)
    expect_identical(a$policy, "cholesky")
    expect_match(a$policy_reason, "^auto: the exact Laplace")
    expect_identical(b$policy_reason, "given")
    for (nm in c("f", "var", "weights", "root", "hyper")) expect_identical(a[[nm]], b[[nm]], info = nm)
  }
  fx <- laplace_fixture("bernoulli")
  a <- fit_fixture(fx, max_iter = 5)
  b <- fit_fixture(fx, policy = "cg", max_iter = 5)
  expect_identical(a$policy, "cg")
  expect_match(a$policy_reason, "budget is given")
  expect_identical(a$f, b$f)
  expect_identical(a$var, b$var)
})

test_that("a small cg budget finds the mode and its variances include computational uncertainty", {
  for (case in c("bernoulli", "softmax")) {
    fx <- laplace_fixture(case)
    fit <- fit_fixture(fx, policy = "cg", tol = 1e-6, max_newton = 50)
    expect_true(fit$converged)
    expect_lt(ncol(fit$root), fx$n * fx$C)
    # converged = the mode bound <= tol: max |f - f_mode| <= 1e-6
    expect_lte(max(abs(fit$f - fx$f)), 1e-6)
    # never below the exact Laplace variance, and above it somewhere
    expect_true(all(fit$var >= fx$var - 1e-8 * fx$outputscale))
    expect_true(all(fit$test$var >= fx$var_s - 1e-8 * fx$outputscale))
    expect_gt(sum(fit$var), sum(fx$var) * (1 + 1e-3))
  }
})

test_that("predict on a saveRDS/readRDS round-tripped fit equals the in-fit predictions", {
  for (case in cases) {
    fx <- laplace_fixture(case)
    fit <- fit_fixture(fx, max_iter = 8)
    path <- tempfile(fileext = ".rds")
    saveRDS(fit, path)
    back <- readRDS(path)
    unlink(path)
    p <- predict(back, fx$xs, offset = if (case == "poisson") fx$offset_s)
    expect_equal(p, fit$test, tolerance = 1e-13)
    expect_equal(names(p), names(fit$test))
    # plain data only: no external pointers or closures anywhere
    expect_false(any(rapply(unclass(fit), function(v) is.function(v) || typeof(v) == "externalptr",
                            how = "unlist")))
  }
  # the training inputs are the default newdata; latent mean there is the mode
  fx <- laplace_fixture("bernoulli")
  fit <- fit_fixture(fx, max_iter = 40, policy = "cholesky", tol = 1e-10)
  expect_lt(rel_err(predict(fit)$mean, as.vector(fit$f)), 1e-8)
  expect_lt(rel_err(predict(fit)$var, as.vector(fit$var)), 1e-8)
  # poisson: without newdata the training exposure is used
  fx <- laplace_fixture("poisson")
  fit <- fit_fixture(fx, max_iter = 40, policy = "cholesky", tol = 1e-10)
  expect_equal(predict(fit)$rate_mean, exp(as.vector(fit$f) + fx$offset + fit$var[, 1] / 2),
               tolerance = 1e-8)
})

test_that("prediction types: response and class", {
  fx <- laplace_fixture("softmax")
  fit <- fit_fixture(fx, max_iter = 10)
  pr <- predict(fit, fx$xs, type = "response")
  expect_equal(dim(pr), c(15L, 3L))
  expect_equal(rowSums(pr), rep(1, 15), tolerance = 1e-12)
  cl <- predict(fit, fx$xs, type = "class")
  expect_equal(cl, max.col(pr, ties.method = "first"))
  fx <- laplace_fixture("poisson")
  fit <- fit_fixture(fx, max_iter = 10)
  expect_equal(predict(fit, fx$xs, offset = fx$offset_s, type = "response"),
               fit$test$rate_mean, tolerance = 1e-13)
  # the offset multiplies the rate by exp(offset)
  p0 <- predict(fit, fx$xs)
  p1 <- predict(fit, fx$xs, offset = rep(log(2), 15))
  expect_equal(p1$rate_mean, 2 * p0$rate_mean, tolerance = 1e-13)
  expect_error(predict(fit, fx$xs, type = "class"), "'type' \"class\" needs")
})

test_that("labels: 0/1, logical and 2-level factors give the same fit; levels are kept", {
  fx <- laplace_fixture("bernoulli")
  base <- gp_laplace(fx$x, fx$y, lengthscale = 0.8, outputscale = 10, seed = 1, verbose = FALSE)
  lg <- gp_laplace(fx$x, fx$y == 1, lengthscale = 0.8, outputscale = 10, seed = 1, verbose = FALSE)
  fc <- gp_laplace(fx$x, factor(ifelse(fx$y == 1, "yes", "no")), lengthscale = 0.8,
                   outputscale = 10, seed = 1, verbose = FALSE)
  expect_identical(lg$f, base$f)
  expect_identical(fc$f, base$f)
  expect_equal(fc$levels, c("no", "yes"))
  cl <- predict(fc, fx$xs, type = "class")
  expect_s3_class(cl, "factor")
  expect_equal(levels(cl), c("no", "yes"))
  expect_equal(as.character(cl), ifelse(predict(fc, fx$xs)$prob > 0.5, "yes", "no"))
  expect_identical(predict(base, fx$xs, type = "class"),
                   as.integer(predict(base, fx$xs)$prob > 0.5))
  # softmax: a factor equals its integer codes; the level names label prob
  fx <- laplace_fixture("softmax")
  yi <- as.integer(fx$y)
  sf <- gp_laplace(fx$x, factor(c("a", "b", "c")[yi]), likelihood = "softmax",
                   xtest = fx$xs, seed = 1, verbose = FALSE)
  si <- gp_laplace(fx$x, yi, likelihood = "softmax", xtest = fx$xs, seed = 1, verbose = FALSE)
  expect_identical(unname(sf$test$prob), unname(si$test$prob))
  expect_equal(colnames(sf$test$prob), c("a", "b", "c"))
  expect_equal(sf$n_class, 3L)
  # an unused level still counts as a class (and the fit says it has no points)
  expect_warning(s4 <- gp_laplace(fx$x, factor(c("a", "b", "c")[yi], levels = c("a", "b", "c", "d")),
                                  likelihood = "softmax", seed = 1, verbose = FALSE),
                 "class 4 of 4 has no training point")
  expect_equal(dim(s4$f), c(fx$n, 4L))
})

test_that("seeds reproduce the random visiting order of the cholesky policy", {
  fx <- laplace_fixture("bernoulli")
  run <- function(seed) suppressWarnings(
    gp_laplace(fx$x, fx$y, lengthscale = 0.8, outputscale = 10, policy = "cholesky",
               random_order = TRUE, max_iter = 6, max_newton = 3, seed = seed, verbose = FALSE))
  a <- run(7); b <- run(7); c <- run(8)
  expect_identical(a$f, b$f)
  expect_identical(a$root, b$root)
  expect_false(isTRUE(all.equal(a$f, c$f)))
  set.seed(3); d1 <- run(NULL)
  set.seed(3); d2 <- run(NULL)
  expect_identical(d1$f, d2$f)
  expect_identical(d1$seed, d2$seed)
})

test_that("result fields, history, non-convergence warning, verbose output", {
  fx <- laplace_fixture("poisson")
  fit <- fit_fixture(fx, policy = "cg") # a history over several Newton steps
  expect_s3_class(fit, "gp_laplace")
  for (nm in c("f", "var", "weights", "root", "newton_steps", "iterations", "converged",
               "history", "kernel", "likelihood", "test"))
    expect_true(nm %in% names(fit), info = nm)
  h <- fit$history
  expect_s3_class(h, "data.frame")
  expect_true(all(c("newton", "iteration", "residual", "trace", "seconds") %in% names(h)))
  expect_equal(nrow(h), fit$iterations)
  expect_equal(max(h$newton), fit$newton_steps)
  expect_equal(h$total, seq_len(nrow(h)))
  # iterations count from 1 within each Newton step
  expect_equal(h$iteration, unlist(lapply(table(h$newton), seq_len), use.names = FALSE))
  expect_equal(nrow(fit$steps), fit$newton_steps)
  expect_equal(fit$kernel, list(kernel = "matern52", lengthscale = fx$lengthscale,
                                outputscale = fx$outputscale))
  expect_equal(names(fit$test), c("mean", "var", "rate_mean", "rate_var"))
  expect_warning(nc <- fit_fixture(fx, max_newton = 1), "did not converge")
  expect_false(nc$converged)
  expect_equal(nc$stop_reason, "max_newton")
  expect_output(fit_fixture(fx, verbose = TRUE), "Newton step 1")
  expect_silent(fit_fixture(fx, verbose = FALSE))
  expect_output(print(fit), "poisson likelihood, matern52 kernel, n = 40")
  s <- summary(fit)
  expect_equal(s$loglik, sum(dpois(fx$y, exp(as.vector(fit$f) + fx$offset), log = TRUE)),
               tolerance = 1e-10)
  expect_output(print(s), "train log-likelihood")
  fb <- fit_fixture(laplace_fixture("bernoulli"))
  expect_equal(summary(fb)$accuracy, mean((fb$f[, 1] > 0) == (laplace_fixture("bernoulli")$y == 1)))
})

test_that("history_trace: NA in the exact mode's direct solve unless \"always\", nothing else changes", {
  fx <- laplace_fixture("poisson")
  a <- fit_fixture(fx, policy = "cholesky", max_iter = fx$n, history_trace = "always")
  b <- fit_fixture(fx, policy = "cholesky", max_iter = fx$n) # "auto", the default
  expect_true(all(is.finite(a$history$trace)))
  first <- b$history$newton == 1 # the direct solve: NA, not NaN or 0
  expect_true(any(first))
  expect_true(all(is.na(b$history$trace[first])) && !any(is.nan(b$history$trace)))
  expect_identical(b$history$trace[!first], a$history$trace[!first])
  for (nm in c("f", "weights", "var", "root", "test", "iterations", "newton_steps"))
    expect_identical(b[[nm]], a[[nm]], info = nm)
  keep <- function(d) d[setdiff(names(d), c("trace", "seconds"))]
  expect_identical(keep(b$history), keep(a$history))
  expect_identical(keep(b$steps), keep(a$steps))
  # a budget below n (blocked actions): the incremental trace is recorded
  expect_true(all(is.finite(fit_fixture(fx, policy = "cholesky", max_iter = 10)$history$trace)))
  # the methods cope with the NA column
  pdf(NULL)
  on.exit(dev.off())
  expect_identical(plot(b, what = "history"), b)
  expect_output(print(b), "poisson likelihood")
  expect_output(print(summary(b)), "train log-likelihood")
  expect_error(fit_fixture(fx, history_trace = "never"), "history_trace")
})

test_that("plot draws 1-D, 2-D and history views", {
  pdf(NULL)
  on.exit(dev.off())
  x <- matrix(seq(-2, 2, length.out = 25))
  f1 <- gp_laplace(x, as.integer(x[, 1] > 0), max_iter = 10, verbose = FALSE, seed = 1)
  expect_identical(plot(f1), f1)
  expect_identical(plot(f1, what = "history"), f1)
  # the user's graphical arguments replace the method's defaults
  expect_identical(plot(f1, main = "m", xlab = "x", ylim = c(-3, 3)), f1)
  expect_identical(plot(f1, what = "history", main = "h", xlab = "it"), f1)
  fx <- laplace_fixture("softmax")
  f2 <- gp_laplace(fx$x, fx$y, likelihood = "softmax", verbose = FALSE, seed = 1)
  expect_identical(plot(f2, n_grid = 20), f2)
  expect_identical(plot(f2, n_grid = 20, main = "m", xlab = "a", ylab = "b"), f2)
  f3 <- gp_laplace(cbind(x, x, x), as.integer(x[, 1] > 0), verbose = FALSE, seed = 1)
  expect_error(plot(f3), "d = 3")
})

test_that("the 1-D Poisson plot draws data and model on the rate scale", {
  pdf(NULL)
  on.exit(dev.off())
  set.seed(4)
  x <- matrix(seq(0, 3, length.out = 40))
  offset <- log(rep(c(5, 20), 20)) # exposures 5 and 20
  rate <- exp(1 + sin(2 * x[, 1]))
  y <- rpois(40, rate * exp(offset))
  fit <- gp_laplace(x, y, likelihood = "poisson", offset = offset, lengthscale = 0.7,
                    outputscale = 1, mean = 1, max_iter = 40, verbose = FALSE, seed = 1)
  expect_true(fit$converged)
  expect_identical(plot(fit, main = "m", xlab = "t", ylim = c(0, 10)), fit)
  v <- scalegp:::laplace_plot_series(fit, 1L, 50)
  # the points are the data's rates, count / exposure; the line the rate exp(f)
  # per unit exposure (the latent f carries no offset), the band its quantiles
  expect_identical(v$py, y / exp(offset))
  p <- predict(fit, matrix(v$x))
  expect_equal(v$mid, exp(as.vector(p$mean)), tolerance = 1e-14)
  expect_true(all(v$lo < v$mid & v$mid < v$hi))
  expect_identical(v$ylab, "rate (count / exposure)")
  # both on one scale: at the data, the line is within Poisson noise of the data's
  # rates. A rate r with exposure e has sd sqrt(r / e) <= sqrt(e^2.1 / 5) = 1.3
  # (the rate's maximum is e^2); the median of 40 |residual| / sd is ~0.67 for a
  # fitted curve, 0.67 + 6 sd(median) ~ 1.5 at most (here 0.55); points at the
  # log counts against the rate, one of the scale mix-ups, give about 4.
  at <- exp(as.vector(predict(fit, x)$mean))
  z <- abs(v$py - at) / sqrt(at / exp(offset))
  expect_lt(stats::median(z), 1.5)
})

test_that("every bad argument is an error naming it", {
  x <- matrix(seq(-1, 1, length.out = 10))
  y <- rep(0:1, 5)
  gl <- function(...) gp_laplace(..., verbose = FALSE)
  expect_error(gl(x, c(0, 1, 2, rep(0, 7))), "gp_laplace: 'y' bernoulli labels must be 0 or 1 \\(element 3 is 2\\)")
  expect_error(gl(x, y[-1]), "gp_laplace: 'y' is 9 x 1; need 10 x 1")
  expect_error(gl(x, c(NA, y[-1])), "'y' contains NaN or Inf")
  expect_error(gl(x, c(NaN, y[-1])), "'y' contains NaN or Inf")
  expect_error(gl(x, c(Inf, y[-1]), likelihood = "gaussian"), "'y' contains NaN or Inf")
  expect_error(gl(x, factor(letters[1:10])), "'y' must have exactly 2 levels")
  expect_error(gl(x, c(NA, y[-1]) == 1), "'y' contains NA")
  expect_error(gl(x, "a"), "'y' must be a numeric vector")
  expect_error(gl(x, c(0.5, y[-1]), likelihood = "poisson"), "'y' poisson counts must be non-negative integers")
  expect_error(gl(x, c(-1, y[-1]), likelihood = "poisson"), "'y' poisson counts must be non-negative integers")
  expect_error(gl(x, c(0, y[-1] + 1), likelihood = "softmax"), "'y' softmax labels must be integers in 1..C")
  expect_error(gl(x, c(1.5, y[-1] + 1), likelihood = "softmax"), "'y' softmax labels must be integers in 1..C")
  expect_error(gl(x, rep(1, 10), likelihood = "softmax"), "'y' has C = 1 class")
  expect_error(gl(x, factor(rep("a", 10)), likelihood = "softmax"), "'y' has C = 1 class")
  expect_error(gl(x, y == 1, likelihood = "softmax"), "'y' is logical")
  expect_error(gl(x, factor(y), likelihood = "poisson"), "'y' is a factor")
  expect_error(gl(matrix(c(NaN, x[-1])), y), "'x' contains NaN")
  expect_error(gl(x, y, likelihood = "probit"), "'likelihood' must be one of .* \\(got \"probit\"\\)")
  expect_error(gl(x, y, policy = "lanczos"), "'policy' must be one of \"cg\", \"cholesky\", \"auto\" \\(got \"lanczos\"\\)")
  expect_error(gl(x, y, kernel = "gauss"), "'kernel' must be one of")
  expect_error(gl(x, y, lengthscale = 0), "'lengthscale' must be positive")
  expect_error(gl(x, y, outputscale = -1), "'outputscale' must be positive")
  expect_error(gl(x, y, likelihood = "gaussian", noise = 0), "'noise' must be positive")
  expect_error(gl(x, y, likelihood = "gaussian", noise = rep(1, 3)), "'noise' needs 1 or 10 values")
  expect_error(gl(x, y, likelihood = "poisson", offset = rep(0, 9)), "'offset' is 9 x 1; need 10 x 1")
  expect_error(gl(x, y, likelihood = "poisson", offset = c(NA, rep(0, 9))), "'offset' contains NaN")
  expect_error(gl(x, y, offset = rep(0, 10)), "'offset' is only used with likelihood = \"poisson\"")
  expect_error(gl(x, y, max_iter = 0), "'max_iter' must be a whole number >= 1")
  expect_error(gl(x, y, max_newton = 0), "'max_newton' must be a whole number >= 1")
  expect_error(gl(x, y, rank = -1), "'rank' must be a whole number >= 0")
  expect_error(gl(x, y, rank = 2.5), "'rank' must be a whole number")
  expect_error(gl(x, y, tol = -1), "'tol' must be a number >= 0")
  expect_error(gl(x, y, xtest = matrix(0, 2, 2)), "'xtest' has 2 columns but 'x' has 1")
  expect_error(gl(x, y, xtest = matrix(NaN)), "'xtest' contains NaN")
  expect_error(gl(x, y, likelihood = "poisson", xtest = x, xtest_offset = 1),
               "'xtest_offset' needs 10 x 1")
  expect_error(gl(x, y, backend = "gpu"), "'backend' must be one of")
  expect_error(gl(x, y, seed = -1), "'seed' must be a whole number >= 0")
  expect_error(gl(x, y, threads = -1), "'threads' must be a whole number")
  expect_error(gl(x, y, recycle = NA), "'recycle' must be true or false")
  expect_error(gl(x, y, inner_atol = -1), "'inner_atol' must be a number >= 0")
  expect_error(gp_laplace(x, y, verbose = "yes"), "'verbose' must be true or false")
  if (!scalegp_info()$cuda_devices)
    expect_error(gl(x, y, backend = "cuda"), "'backend' \"cuda\" is not available")
  fit <- gl(x, y)
  expect_error(predict(fit, matrix(0, 2, 2)), "predict.gp_laplace: 'newdata' has 2 columns; the fit has 1")
  expect_error(predict(fit, matrix(NA_real_)), "'newdata' contains NaN")
  expect_error(predict(fit, x, offset = rep(0, 10)), "'offset' is only used")
  # the C layer names the argument too, and stops on an interrupt
  call_fit <- function(y, interrupt_after = NULL, xtest = NULL)
    scalegp:::sgp_call(scalegp:::C_laplace_fit, x, as.double(y), xtest, NULL,
          list(tol = 0.01, seed = 1, verbose = FALSE), interrupt_after)
  expect_error(call_fit(c(2, y[-1])), "gp_laplace: 'y' bernoulli labels must be 0 or 1")
  # interrupt_after (a simulated Ctrl-C) is a test hook: honoured only with SCALEGP_TEST_HOOKS=1
  with_test_hooks(on = FALSE,
    expect_error(call_fit(y, 0L), "gp_laplace: 'interrupt_after' is a test hook"))
  with_test_hooks(
    expect_error(call_fit(y, 0L), "gp_laplace: interrupted"))
  # an error after the core fit (bad xtest reaching C) frees the fit through its holder
  expect_error(call_fit(y, xtest = matrix(0, 3, 2)), "gp_laplace: 'xtest' has 2 columns; the fit has 1")
  expect_type(call_fit(y), "list")
  # a tampered plain-data fit is refused naming the field: by the C layer, which R calls
  bad <- fit
  bad$weights <- bad$weights[-1, , drop = FALSE]
  expect_error(predict(bad, x), "predict.gp_laplace: 'object\\$weights' is 9 x 1; need 10 x 1")
  c_predict <- function(f)
    scalegp:::sgp_call(scalegp:::C_laplace_predict, unclass(f), "predict.gp_laplace", "object", x, list())
  expect_error(c_predict(bad), "predict.gp_laplace: 'object\\$weights' is 9 x 1")
  bad <- fit
  bad$root <- bad$root[-1, , drop = FALSE]
  expect_error(predict(bad, x), "'object\\$root' is 9 x [0-9]+; need 10 x any")
  expect_error(c_predict(bad), "predict.gp_laplace: 'object\\$root' is 9 x")
})

test_that("noise_max (added in the core's option table only) reaches the fit", {
  # an option is a row of the core's table; neither front names it
  x <- matrix(seq(-2, 2, length.out = 30)); y <- as.integer(x[, 1] > 0)
  expect_true("noise_max" %in% scalegp_options("gp_laplace")$name)
  a <- gp_laplace(x, y, outputscale = 25, lengthscale = 0.3, verbose = FALSE, seed = 1)
  # (the capped curvature is not the Hessian: Newton slows down, it may not converge)
  b <- suppressWarnings(gp_laplace(x, y, outputscale = 25, lengthscale = 0.3, noise_max = 2,
                                   verbose = FALSE, seed = 1))
  # W^-1 = 2 + e^f + e^-f >= 4 for bernoulli: a cap of 2 changes every pseudo-noise
  expect_gt(max(abs(a$f - b$f)), 1e-3)
  expect_error(gp_laplace(x, y, noise_max = 0, verbose = FALSE),
               "gp_laplace: 'noise_max' must be positive and finite \\(got 0\\)")
})

test_that("residual: the recursive default makes one kernel product per solver iteration", {
  # an option of the core's table. Fixed hyperparameters, tol = 0 (no
  # mode-bound products) and max_iter 5 < 32 (no refresh of K v): the default
  # makes exactly one product per iteration, "explicit" a second one (K v) for
  # every iteration after the first of each Newton step
  x <- matrix(seq(-2, 2, length.out = 40)); y <- as.integer(sin(3 * x[, 1]) > 0)
  # recycle = FALSE: with recycled, nearly dependent actions the truncated Newton
  # path itself amplifies rounding ~1e4-fold per step (1 ulp of outputscale
  # moves f by 1e-6 after 4 steps, in either mode), which would hide the modes'
  # agreement; without recycling each step is a fresh, well-conditioned solve
  fit <- function(...) suppressWarnings(gp_laplace(x, y, lengthscale = 0.5, outputscale = 4,
    mean = 0, max_iter = 5, max_newton = 4, tol = 0, recycle = FALSE, verbose = FALSE,
    seed = 1, ...))
  a <- fit(); b <- fit(residual = "explicit")
  tab <- scalegp_options("gp_laplace")
  expect_equal(tab$default[tab$name == "residual"], "\"recursive\"")
  expect_equal(a$kernel_products, a$iterations)
  expect_gte(b$kernel_products, 2 * b$iterations - b$newton_steps)
  # the two differ by rounding in K v only: per step <= 5 updates of 40-term
  # sums, times cond(K^) <= (40 * 4 + 4) / 4 = 41: ~2e-12; 4 steps, each
  # amplifying by at most cond(K^): < 4e-10 <= 1e-9
  expect_lt(max(abs(a$f - b$f)) / max(abs(b$f)), 1e-9)
  expect_error(fit(residual = "sometimes"), "gp_laplace: 'residual' must be one of")
})

test_that("precond_rank (a row of the core's table only) reaches the fit: fewer cg iterations, same solve", {
  # cg actions P^-1 r, P = F F' + W^-1 (F F' a rank-k pivoted Cholesky of K)
  expect_true("precond_rank" %in% scalegp_options("gp_laplace")$name)
  set.seed(3)
  x <- matrix(runif(80)); y <- rpois(80, exp(2 * sin(6 * x[, 1])))
  fit1 <- function(...) gp_laplace(x, y, likelihood = "poisson", lengthscale = 0.1,
                                   outputscale = 2, mean = 0, max_newton = 1, max_iter = 79,
                                   recycle = FALSE, damping = FALSE, inner_rtol = 1e-10,
                                   inner_atol = 0, verbose = FALSE, seed = 1, ...)
  a <- suppressWarnings(fit1())
  b <- suppressWarnings(fit1(precond_rank = 30))
  expect_lt(b$iterations, a$iterations)
  # both solve (K + W^-1) v = b at f = 0 (W = 1, b = y - 1) to |r| <= 1e-10 |b|:
  # f = K v differs by at most |K (K + W^-1)^-1| (|r_a| + |r_b|) <= 2e-10 |y - 1|
  expect_lte(sqrt(sum((a$f - b$f)^2)), 2e-10 * sqrt(sum((y - 1)^2)))
  expect_error(gp_laplace(x, rep(1:2, 40), likelihood = "softmax", precond_rank = 5,
                          verbose = FALSE), "precond_rank")
  expect_error(gp_laplace(x, y, likelihood = "poisson", precond_rank = -1, verbose = FALSE),
               "gp_laplace: 'precond_rank' must be")
})

test_that("class_actions (a row of the core's table only) reaches the fit: C actions per product", {
  # softmax, C = 3, one Newton step from f = 0 without damping or
  # mode-bound products: max_iter = 2 iterations make 2 kernel products, and 6
  # actions with class_actions
  expect_true("class_actions" %in% scalegp_options("gp_laplace")$name)
  set.seed(4)
  x <- matrix(rnorm(60), 30); y <- 1 + (x[, 1] > 0) + (x[, 2] > 0.5)
  fit1 <- function(mi = 2, ...) gp_laplace(x, y, likelihood = "softmax", lengthscale = 1,
                                           outputscale = 2, mean = 0, max_newton = 1, max_iter = mi,
                                           tol = 0, damping = FALSE, verbose = FALSE, seed = 1, ...)
  a <- suppressWarnings(fit1(class_actions = FALSE)); b <- suppressWarnings(fit1(class_actions = TRUE))
  expect_equal(c(a$iterations, a$kernel_products), c(2, 2))
  expect_equal(c(b$iterations, b$kernel_products), c(6, 2))
  expect_equal(ncol(b$root), 6)
  # one iteration: the action s is the sum of its class blocks, so span(S_a) is
  # inside span(S_b) and C_a <= C_b: no variance larger, to rounding (entries
  # <= outputscale 2, K^ on the centred vectors has condition <= (30 * 2 + 3) / 3
  # = 21, so each variance rounds by at most 2 * 21 * NC eps = 2 * 21 * 90 *
  # 2.2e-16 = 8.4e-13 < 1e-12)
  a1 <- suppressWarnings(fit1(1, class_actions = FALSE))
  b1 <- suppressWarnings(fit1(1, class_actions = TRUE))
  expect_true(all(b1$var <= a1$var + 1e-12))
  expect_lt(sum(b1$var), sum(a1$var))
  expect_error(fit1(class_actions = 2), "gp_laplace: 'class_actions' must be")
})

test_that("factor labels: unused levels are dropped for bernoulli, 3 classes point to softmax", {
  x <- matrix(seq(-1, 1, length.out = 12))
  y2 <- factor(rep(c("a", "c"), 6), levels = c("a", "b", "c"))
  fit <- gp_laplace(x, y2, verbose = FALSE, seed = 1)
  expect_identical(fit$levels, c("a", "c"))
  expect_identical(levels(predict(fit, x, type = "class")), c("a", "c"))
  expect_error(gp_laplace(x, factor(rep(c("a", "b", "c"), 4)), verbose = FALSE),
               "'y' must have exactly 2 levels .* \\(got 3; for more classes use likelihood = \"softmax\"\\)")
})

test_that("predict matches new data's columns by name when the fit has names", {
  set.seed(2)
  d <- data.frame(a = runif(40), b = runif(40))
  y <- as.integer(d$a > 0.5)
  fit <- gp_laplace(d, y, verbose = FALSE, seed = 1)
  nd <- data.frame(b = c(0.2, 0.9), a = c(0.1, 0.8))  # reordered
  expect_equal(predict(fit, nd)$mean, predict(fit, nd[, c("a", "b")])$mean, tolerance = 0)
  expect_equal(predict(fit, as.matrix(nd))$mean, predict(fit, nd[, c("a", "b")])$mean, tolerance = 0)
  expect_error(predict(fit, data.frame(a = 1, c = 2)), "'newdata' lacks the column 'b'")
  expect_equal(predict(fit, unname(as.matrix(nd[, c("a", "b")])))$mean,
               predict(fit, nd[, c("a", "b")])$mean, tolerance = 0)  # no names: by position
})

test_that("softmax labels with a gap warn that the missing class has no training point", {
  x <- matrix(1:10)
  expect_warning(gp_laplace(x, c(1, 2, 3, 5, 1, 2, 3, 5, 1, 2), likelihood = "softmax",
                            max_iter = 40, verbose = FALSE, seed = 1),
                 "class 4 of 5 has no training point")
  # a factor's unused level is a class without points too
  expect_warning(gp_laplace(x, factor(rep(c("a", "c"), 5), levels = c("a", "b", "c")),
                            likelihood = "softmax", max_iter = 40, verbose = FALSE, seed = 1),
                 "class 2 of 3 has no training point")
})
