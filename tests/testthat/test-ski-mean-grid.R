# ski_gsgp on uncentred data and its default grid.
#
# (a) A constant prior mean. Oracle: the dense SKI GP with a constant mean,
# A = W K_G W' + noise I formed in R from the interpolation weights, so only
# the solver tolerance separates it from ski_gsgp: the GLS mean
# mu* = 1'A^-1 y / 1'A^-1 1 and the posterior mean mu* + k~'A^-1 (y - mu* 1).
# Bound (tol: the relative residual both solves of the fit met, converged; the
# same for method "ski", whose CG solves the same two systems on the n data):
# the GLS solve A x = 1 leaves r1 = 1 - A x with ||r1|| <= tol sqrt(n), and
# mu - mu* = (y - mu* 1)'x / 1'x exactly (the offset cancels), with
# (y - mu* 1)'x = (A^-1 (y - mu* 1))'r1 and 1'x = 1'A^-1 1 + (A^-1 1)'r1, so
#   |mu - mu*| <= ||A^-1 (y - mu* 1)|| tol sqrt(n) / (1'A^-1 1 - ||A^-1 1|| tol sqrt(n));
# the centred solve leaves rc with ||rc|| <= tol ||y - mu 1||, and at a test
# point with k~ = W K_G w(x)
#   |mean - exact| <= |mu - mu*| |1 - k~'A^-1 1| + ||A^-1 k~|| tol ||y - mu 1||,
# ||A^-1 k~|| <= ||k~|| / noise being the condition-number form of the same
# bound. 500 is far above the data's variation, so a solve relative to ||y||
# (the rule before the mean) or a zero mean miss these bounds by orders of
# magnitude: the test checks that too.
#
# (b) The default grid. Oracle: the dense exact GP (not SKI) posterior mean.
# The grid rule (core/ski/ski_grid_rule.c) aims at 5% of the noise sd; the
# test allows 10%. The solves run to 1e-8 so that the grid is all that
# separates the two (the solve's own share is below 1e-6 here).

ski_dense_grid <- function(bounds, size) {
  axes <- lapply(seq_along(size), function(j) seq(bounds[j, 1], bounds[j, 2], length.out = size[j]))
  as.matrix(expand.grid(axes)) # first dimension fastest, as the core's grid
}

test_that("a constant mean: ski_gsgp matches the dense SKI GP with its GLS mean to tol", {
  set.seed(17)
  n <- 400
  x <- matrix(runif(2 * n), n, 2)
  y <- 500 + sin(4 * x[, 1]) + cos(3 * x[, 2]) + rnorm(n, sd = 0.2)
  xt <- matrix(runif(2 * 50, 0.05, 0.95), 50, 2)
  bounds <- cbind(c(-0.15, -0.15), c(1.15, 1.15))
  size <- c(14, 14)
  noise <- 0.04
  W <- ski_dense_W(x, size, bounds, "cubic")
  Wt <- ski_dense_W(xt, size, bounds, "cubic")
  G <- ski_dense_grid(bounds, size)
  KG <- dense_kernel(G, G, "rbf", 0.3, 1)
  A <- W %*% KG %*% t(W) + noise * diag(n)
  Ai1 <- solve(A, rep(1, n))
  mu_ex <- sum(Ai1 * y) / sum(Ai1)
  yc <- y - mu_ex
  Kt <- Wt %*% KG %*% t(W) # k~ at the test points, one per row
  exact <- mu_ex + drop(Kt %*% solve(A, yc))
  AiK <- solve(A, t(Kt))
  # gsgp at the default tol and a tight one; method "ski" (CG on the n data, its
  # GLS solve on the vector of ones) under the same bound
  for (run in list(list(0.01, "gsgp"), list(1e-6, "gsgp"), list(1e-6, "ski"))) {
    tol <- run[[1]]
    fit <- ski_gsgp(x, y, grid_bounds = bounds, grid_size = size, lengthscale = 0.3,
                    outputscale = 1, noise = noise, tol = tol, method = run[[2]], xtest = xt,
                    verbose = FALSE)
    expect_true(fit$converged)
    expect_identical(fit$learned, "mean")
    mu <- fit$hyper$mean
    den <- sum(Ai1) - sqrt(sum(Ai1^2)) * tol * sqrt(n)
    expect_gt(den, 0)
    b_mu <- sqrt(sum(solve(A, yc)^2)) * tol * sqrt(n) / den
    expect_lte(abs(mu - mu_ex), b_mu)
    b_mean <- b_mu * abs(1 - drop(Kt %*% Ai1)) +
      sqrt(colSums(AiK^2)) * tol * (sqrt(sum(yc^2)) + sqrt(n) * b_mu)
    expect_true(all(abs(fit$test$mean - exact) <= b_mean + 64 * .Machine$double.eps * 500))
    expect_equal(predict(fit, xt)$mean, fit$test$mean, tolerance = 1e-15)
  }
  # the bounds are tight enough to fail: the zero-mean fit at tol 1e-6 is far off
  f0 <- ski_gsgp(x, y, grid_bounds = bounds, grid_size = size, lengthscale = 0.3,
                 outputscale = 1, noise = noise, tol = 1e-6, mean = 0, xtest = xt,
                 verbose = FALSE)
  expect_identical(f0$hyper$mean, 0)
  expect_gt(max(abs(f0$test$mean - exact)), 100 * max(b_mean))
})

test_that("the mean from statistics alone, merged chunks, and the learned mean", {
  set.seed(4)
  n <- 600
  x <- runif(n, 0, 3)
  y <- 500 + sin(2 * x) + rnorm(n, sd = 0.1)
  fit <- ski_gsgp(x, y, grid_size = 60, lengthscale = 0.5, outputscale = 1, noise = 0.01,
                  tol = 1e-8, verbose = FALSE)
  s <- ski_stats_merge(ski_stats(x[1:300], y[1:300], fit),
                       ski_stats(x[301:600], y[301:600], fit, first_row = 300))
  fs <- ski_gsgp(stats = s, lengthscale = 0.5, outputscale = 1, noise = 0.01, tol = 1e-8,
                 verbose = FALSE)
  # merged statistics equal one pass up to rounding; the mean then to the GLS
  # solves (tol 1e-8 each): a residual of tol |y - mu| moves 1'A^-1 y / 1'A^-1 1
  # by about tol sd(y) times A's conditioning (noise 0.01 under a unit
  # outputscale: ~100), i.e. 1e-6 here (seen: 8e-8 since the stencil product
  # rounds with fused multiply-adds, 1e-13 before, when both runs took the same
  # CG path)
  expect_lt(abs(fs$hyper$mean - fit$hyper$mean), 100 * 1e-8)
  # learning with the mean as a coordinate ends near the GLS mean at the learned values
  fl <- ski_gsgp(x, y, grid_size = 60, probes = 16, seed = 1, verbose = FALSE)
  expect_setequal(fl$learned, c("lengthscale", "outputscale", "mean", "noise"))
  expect_equal(names(fl$loglik_grad), c("lengthscale", "outputscale", "mean", "noise"))
  gls <- ski_gsgp(x, y, grid_size = 60, lengthscale = fl$hyper$lengthscale,
                  outputscale = fl$hyper$outputscale, noise = fl$hyper$noise, tol = 1e-8,
                  verbose = FALSE)
  # the learned mean maximizes the same quadratic in mu as the GLS estimate; the
  # optimizer stops with |dL/dmu| = |1'A^-1 1| |mu - mu_gls| small
  expect_lt(abs(fl$hyper$mean - gls$hyper$mean), 0.05)
  expect_error(ski_gsgp(x, y, mean = NaN, verbose = FALSE), "ski_gsgp: 'mean' must be a finite number")
})

test_that("the default grid keeps the posterior mean within 0.1 noise sd of the exact GP", {
  set.seed(8)
  n <- 3000
  sd <- 0.3
  ell <- 0.3
  x <- matrix(runif(2 * n), n, 2)
  y <- sin(5 * x[, 1]) + cos(4 * x[, 2]) + rnorm(n, sd = sd)
  xt <- matrix(runif(2 * 200, 0.02, 0.98), 200, 2)
  for (kind in all_kernels) {
    fit <- ski_gsgp(x, y, kernel = kind, lengthscale = ell, outputscale = 1, noise = sd^2,
                    mean = 0, tol = 1e-8, max_iter = 5000, xtest = xt, verbose = FALSE)
    K <- dense_kernel(x, x, kind, ell, 1)
    diag(K) <- diag(K) + sd^2
    exact <- drop(dense_kernel(xt, x, kind, ell, 1) %*% solve(K, y))
    err <- max(abs(fit$test$mean - exact))
    expect_true(fit$converged)
    expect_lte(err, 0.1 * sd)
    # the reported estimate bounds the error it is meant to estimate, and says
    # no warning was due
    cat(sprintf("\n# %s: grid %s, max |mean - exact| %.3g, estimate %.3g (0.1 sd = %.3g)",
                kind, paste(fit$grid$size, collapse = "x"), err, fit$interp_error, 0.1 * sd))
    expect_gte(fit$interp_error, err)
    expect_lte(fit$interp_error, 0.1 * sd)
  }
  # a coarse grid the user chose: the estimate is reported with a warning
  expect_warning(f <- ski_gsgp(x, y, kernel = "matern12", lengthscale = ell, outputscale = 1,
                               noise = sd^2, mean = 0, grid_size = 20, verbose = FALSE),
                 "interpolation error of the posterior mean .* not small against the noise sd")
  expect_gt(f$interp_error, 0.1 * sd)
})
