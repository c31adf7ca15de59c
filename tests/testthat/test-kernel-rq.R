# The rational-quadratic kernel ("rq") against a dense R formula.

rq_dense <- function(a, b, ell, s2, alpha) {
  a <- as.matrix(a); b <- as.matrix(b)
  ell <- rep_len(ell, ncol(a))
  r2 <- matrix(0, nrow(a), nrow(b))
  for (l in seq_len(ncol(a))) r2 <- r2 + outer(a[, l] / ell[l], b[, l] / ell[l], "-")^2
  s2 * (1 + r2 / (2 * alpha))^(-alpha)
}

test_that("gp_kernel(kernel = \"rq\") matches the formula", {
  set.seed(11)
  # the tiles' squared distances carry a few eps times the squared norms
  # (about 30 here) and |dk/dr2| <= s/2: 1e-12 s bounds the difference
  for (d in c(2L, 6L)) {  # direct differences and the dgemm path
    x <- matrix(rnorm(40 * d), 40)
    x2 <- matrix(rnorm(25 * d), 25)
    ell <- seq(0.6, 1.8, length.out = d)
    for (alpha in c(0.4, 3)) {
      K <- gp_kernel(x, x2, kernel = "rq", lengthscale = ell, outputscale = 1.7, alpha = alpha)
      expect_lt(max(abs(K - rq_dense(x, x2, ell, 1.7, alpha))), 1e-12 * 1.7)
    }
    # alpha's default is 1
    expect_equal(gp_kernel(x, kernel = "rq"), rq_dense(x, x, 1, 1, 1), tolerance = 1e-12)
  }
})

test_that("alpha is checked by the core", {
  x <- matrix(1:4, 2)
  expect_error(gp_kernel(x, kernel = "rq", alpha = 0), "gp_kernel: 'alpha'")
  expect_error(gp_kernel(x, kernel = "rq", alpha = -1), "gp_kernel: 'alpha'")
  expect_error(gp_kernel(x, kernel = "rq2"), "gp_kernel: 'kernel' must be one of .*\"rq\"")
})

test_that("gp_laplace with rq gives the exact Gaussian posterior mean", {
  set.seed(5)
  n <- 40
  x <- matrix(runif(n * 2), n)
  y <- sin(4 * x[, 1]) + 0.1 * rnorm(n)
  xt <- matrix(runif(10), 5)
  fit <- gp_laplace(x, y, likelihood = "gaussian", kernel = "rq", alpha = 0.7,
                    lengthscale = c(0.3, 0.5), outputscale = 1.2, noise = 0.05,
                    mean = 0, policy = "cholesky")
  expect_equal(fit$kernel$alpha, 0.7)
  K <- rq_dense(x, x, c(0.3, 0.5), 1.2, 0.7)
  w <- solve(K + 0.05 * diag(n), y)
  # a Cholesky solve of K + 0.05 I (condition number below (n 1.2 + 0.05) / 0.05,
  # about 1e3) loses about 1e3 eps: 1e-8 is a wide bound
  expect_lt(max(abs(fit$f - K %*% w)), 1e-8)
  p <- predict(fit, xt)
  expect_lt(max(abs(p$mean - rq_dense(xt, x, c(0.3, 0.5), 1.2, 0.7) %*% w)), 1e-8)
  # alpha alone learned, the rest as given (its own test below; these smooth data
  # take it to its upper bound, rbf's limit, which the fit warns of)
  fa <- NULL
  expect_warning(fa <- gp_laplace(x, y, likelihood = "gaussian", kernel = "rq", learn = "alpha",
                                  lengthscale = c(0.3, 0.5), outputscale = 1.2, noise = 0.05,
                                  mean = 0, verbose = FALSE), "alpha stopped at its upper bound")
  expect_identical(fa$learned, "alpha")
  # a fit without its alpha is refused, not predicted with another kernel
  bad <- fit
  bad$kernel$alpha <- NULL
  expect_error(predict(bad, xt), "alpha")
})

test_that("ski_gsgp with rq carries alpha into its fit and predictions", {
  set.seed(5)
  n <- 200
  x <- matrix(runif(n))
  y <- sin(6 * x[, 1]) + 0.2 * rnorm(n)
  xt <- matrix(seq(0.1, 0.9, length.out = 7))
  fit <- ski_gsgp(x, y, kernel = "rq", alpha = 0.5, lengthscale = 0.3, outputscale = 1,
                  noise = 0.04, mean = 0, xtest = xt)
  expect_equal(fit$alpha, 0.5)
  expect_identical(predict(fit, xt)$mean, fit$test$mean)
  # the grid rule asks for more cells at a smaller alpha (shorter scales mixed
  # in); a small noise, so that neither takes the minimum of 3 cells per ell
  sizes <- sapply(c(0.5, 4), function(a)
    ski_gsgp(x, y, kernel = "rq", alpha = a, lengthscale = 0.3, outputscale = 1,
             noise = 1e-4, mean = 0)$grid$size)
  expect_gt(sizes[1], sizes[2])
  bad <- fit
  bad$alpha <- NULL
  expect_error(predict(bad, xt), "alpha")
})

# alpha learned by the evidence: data drawn from an rq GP with alpha 0.15 (a
# mixture of lengthscales that an rbf, alpha -> Inf, cannot mimic; 250 points
# over 60 lengthscales, so that the long ones show). The learning moves alpha
# from its start 1 towards the truth, and to the maximizer of the evidence's
# profile over alpha (the other hyperparameters learned at each alpha; optimize
# over a log grid's bracket): the two maximize one function, each to its
# optimizer's tolerance (optimize's 1e-2 in log alpha; for L-BFGS a relative
# change of 1e-6 of a log evidence of order 100, which the profile's curvature
# in log alpha, at least 0.8 (it falls by more than 0.2 at half and twice the
# maximizer, checked), turns into 0.016 in log alpha). So the learned point's
# profile value is within 1e-3 of the maximum and alpha within 5% of the
# profile's maximizer.
test_that("gp_laplace learns rq's alpha: the evidence's maximizer over alpha", {
  set.seed(3)
  n <- 250
  x <- matrix(sort(runif(n, 0, 60)))
  K <- rq_dense(x, x, 1, 1, 0.15) + diag(1e-8, n)
  y <- drop(t(chol(K)) %*% rnorm(n)) + rnorm(n, sd = 0.05)
  fit1 <- function(...) suppressWarnings(gp_laplace(x, y, likelihood = "gaussian", kernel = "rq",
                                                    policy = "cholesky", max_iter = n, seed = 1,
                                                    verbose = FALSE, ...))
  fit <- fit1()
  expect_true("alpha" %in% fit$learned)
  expect_lt(fit$hyper$alpha, 0.5)
  ev <- function(a) fit1(alpha = a, learn = c("lengthscale", "outputscale", "mean", "noise"))$loglik
  g <- exp(seq(log(0.02), log(20), length.out = 7))
  e <- vapply(g, ev, 0)
  k <- which.max(e)
  lo <- log(g[max(k - 1, 1)]); hi <- log(g[min(k + 1, length(g))])
  opt <- stats::optimize(function(la) -ev(exp(la)), lower = lo, upper = hi, tol = 1e-2)
  a_max <- exp(opt$minimum)
  expect_gt(-opt$objective - max(ev(a_max / 2), ev(a_max * 2)), 0.2)
  expect_lt(-opt$objective - ev(fit$hyper$alpha), 1e-3)
  expect_equal(fit$hyper$alpha, a_max, tolerance = 0.05)
  expect_equal(fit$kernel$alpha, fit$hyper$alpha) # the value the fit used
  expect_match(capture.output(print(fit))[3], "alpha")
  expect_true("alpha" %in% names(coef(fit)))
  # a given alpha is not learned by auto; a kernel without alpha has none to learn
  expect_false("alpha" %in% fit1(alpha = 0.5)$learned)
  expect_error(gp_laplace(x, y, likelihood = "gaussian", learn = "alpha"),
               "gp_laplace: 'learn' names \"alpha\", which kernel = \"rbf\" does not have")
  expect_error(ski_gsgp(x, y, kernel = "rq", learn = "alpha"), "ski_gsgp: 'learn'")
})
