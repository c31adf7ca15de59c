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
  expect_error(gp_laplace(x, y, likelihood = "gaussian", kernel = "rq", learn = "alpha"),
               "gp_laplace: 'learn'")
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
