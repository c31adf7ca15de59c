# loglik_method = "eigen": the learning's preconditioned SLQ in the kernel's
# eigenbasis (ski_loglik_eig.c; its value, quadratic terms and gradient are
# tested against dense matrices in tests/core/test_ski_loglik_grad.c). Here the
# R surface on test-ski-learn.R's 1-D signal (n = 1000, 150-point grid) against
# the exact SKI evidence's optimum. In 1-D the marginal preconditioner is B
# itself, the exact inverse of the solves' matrix, so the log-likelihood and
# its gradient are exact up to rounding: each probe's quadrature is log of a
# Ritz value 1 + O(m eps cond(M)), m = 150, cond(M) <= 1 + s lambda_max(K_G B) /
# noise ~ 1e6 here, so its se is below m * 3e-8 ~ 5e-6 (seen 2.6e-12), asserted
# below 1e-6 of the log-likelihood (~8e-4). The learned log lengthscale keeps the
# bound that test-ski-learn.R's analysis gives plain SLQ probes, 4 probe sd =
# 4 * 0.1 / sqrt(30) = 0.073: what is left of it here is the optimizers' two
# stopping rules on one function (0.005 seen).
test_that("eigen learning lands at the exact evidence's optimum within the probes' error", {
  set.seed(3)
  n <- 1000
  x <- sort(runif(n, 0, 4))
  y <- sin(3 * x) + 0.5 * cos(7 * x) + rnorm(n, sd = 0.1)
  fe <- ski_gsgp(x, y, grid_size = 150, loglik_method = "eigen", seed = 1, verbose = FALSE)
  fx <- ski_gsgp(x, y, grid_size = 150, loglik_method = "exact", verbose = FALSE)
  expect_setequal(fe$learned, c("lengthscale", "outputscale", "noise", "mean"))
  expect_lt(abs(log(fe$hyper$lengthscale / fx$hyper$lengthscale)), 4 * 0.1 / sqrt(30))
  expect_lt(fe$loglik_se, 1e-6 * abs(fe$loglik))
  expect_equal(fx$loglik_se, 0)
})

test_that("eigen names the kernels it needs", {
  set.seed(1)
  x2 <- matrix(runif(400), 200)
  y2 <- sin(3 * x2[, 1]) + rnorm(200, sd = 0.1)
  expect_error(ski_gsgp(x2, y2, grid_size = c(20, 20), kernel = "matern52",
                        loglik_method = "eigen", verbose = FALSE),
               "'loglik_method' \"eigen\" needs a separable kernel")
})
