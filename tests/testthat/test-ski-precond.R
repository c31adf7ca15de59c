# ski_gsgp(precond_rank = q, learn = character(0)): the opt-in preconditioner of the mean solve
# (docs/ski_gsgp.md, "precond_rank"). Oracle: the unpreconditioned fit of the same model at a tight
# tolerance (itself checked against the dense GP in test-ski.R).

precond_case <- function() {
  set.seed(11)
  n <- 6000
  x <- cbind(runif(n), runif(n))
  y <- sin(5 * x[, 1]) * cos(3 * x[, 2]) + rnorm(n, sd = 0.05)
  list(x = x, y = y, grid_size = c(20, 18))
}

# Both fits solve to a true relative residual tol (1e-10 is this problem's
# attainable accuracy: the plain solve stops there with stop = "accuracy").
# Their weights a = K_G W' A^{-1} y then differ from the exact ones by at most
# ||K_G W' A^{-1}|| ||r|| <= sqrt(lambda_max(K_G)) / (2 sqrt(noise)) tol ||y||
# (||C'(CC' + s I)^{-1}|| <= 1 / (2 sqrt(s)) with C = W K_G^{1/2}), and
# lambda_max(K_G) <= m outputscale (Gershgorin): each other by twice that; a
# test mean by the sum of a point's |weights| (<= 1.25^2, cubic in 2-D) times it.
precond_tol <- 1e-9
precond_bound <- function(c)
  2 * sqrt(prod(c$grid_size)) / (2 * sqrt(0.0025)) * precond_tol * sqrt(sum(c$y^2))

test_that("precond_rank gives the unpreconditioned mean with fewer iterations", {
  c <- precond_case()
  fit0 <- ski_gsgp(c$x, c$y, grid_size = c$grid_size, kernel = "matern52", lengthscale = 0.3,
                   noise = 0.0025, tol = precond_tol, max_iter = 5000, verbose = FALSE, learn = character(0))
  fit1 <- ski_gsgp(c$x, c$y, grid_size = c$grid_size, kernel = "matern52", lengthscale = 0.3,
                   noise = 0.0025, tol = precond_tol, max_iter = 5000, precond_rank = 40,
                   verbose = FALSE, learn = character(0))
  expect_true(fit0$converged && fit1$converged)
  expect_lte(max(abs(fit1$weights - fit0$weights)), precond_bound(c))
  expect_lte(fit1$rel_residual, precond_tol)
  expect_equal(fit1$precond_rank, 40L)
  expect_lt(3 * fit1$iterations, fit0$iterations)
  # test means too, and the default (0) is the plain path
  xs <- cbind(runif(50, 0.1, 0.9), runif(50, 0.1, 0.9))
  p0 <- predict(fit0, xs)$mean
  p1 <- predict(fit1, xs)$mean
  expect_lte(max(abs(p1 - p0)), 1.25^2 * precond_bound(c))
  fitd <- ski_gsgp(c$x, c$y, grid_size = c$grid_size, kernel = "matern52", lengthscale = 0.3,
                   noise = 0.0025, tol = precond_tol, max_iter = 5000, precond_rank = 0,
                   verbose = FALSE, learn = character(0))
  expect_identical(fitd$weights, fit0$weights)
  expect_identical(fitd$iterations, fit0$iterations)
})

test_that("precond_rank works from statistics and with the default tolerance", {
  c <- precond_case()
  st <- ski_stats(c$x, c$y, ski_grid(c$x, grid_size = c$grid_size))
  fit <- ski_gsgp(stats = st, lengthscale = 0.2, noise = 0.01, precond_rank = 16,
                  verbose = FALSE, learn = character(0))
  expect_true(fit$converged)
  expect_lte(fit$rel_residual, 0.01)
  expect_equal(fit$history$rel_residual[1], 1)
})

test_that("bad precond_rank values give errors naming it", {
  c <- precond_case()
  x <- c$x[1:200, ]; y <- c$y[1:200]
  for (bad in list(-1, 1.5, "a", NA, c(1, 2), Inf))
    expect_error(ski_gsgp(x, y, grid_size = c(8, 8), precond_rank = bad, verbose = FALSE, learn = character(0)),
                 "ski_gsgp: 'precond_rank' must be a whole number >= 0")
  expect_error(ski_gsgp(x, y, grid_size = c(8, 8), precond_rank = 64, verbose = FALSE, learn = character(0)),
               "'precond_rank' must be less than the 64 grid points")
  expect_error(ski_gsgp(x, y, grid_size = c(8, 8), method = "ski", precond_rank = 4,
                        verbose = FALSE, learn = character(0)),
               "'precond_rank' applies to method = \"gsgp\" only")
})
