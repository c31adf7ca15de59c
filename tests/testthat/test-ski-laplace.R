# ski_laplace from R: the cells layout equals gp_laplace's exact Laplace on the
# observed cells' centres (the unobserved cells carry no likelihood, so the
# grid-space Laplace is the f-space Laplace of K_OO): evidence and gradient to
# 1e-8 with the mode found to tol = 1e-10 (the evidence is stationary in the
# mode; the gradient moves by about the mode's error times its curvature).
# Then learning, points, predictions and the errors of bad input.

cells_case <- function() {
  set.seed(3)
  g <- expand.grid(i = 1:12, j = 1:10)
  eta <- 0.5 + sin(g$i / 3) + cos(g$j / 4)
  off <- rnorm(nrow(g), 0, 0.2)
  y <- rpois(nrow(g), exp(eta + off))
  off[seq(4, nrow(g), by = 6)] <- -Inf
  y[seq(4, nrow(g), by = 6)] <- 0
  list(g = g, y = matrix(y, 12, 10), off = off)
}

test_that("cells equal gp_laplace's exact Laplace on the observed cells", {
  cc <- cells_case()
  fit <- ski_laplace(y = cc$y, offset = cc$off, lengthscale = c(2, 3), outputscale = 1.3,
                     mean = 0.5, learn = character(0), loglik = TRUE, tol = 1e-10,
                     loglik_method = "exact", verbose = FALSE)
  expect_true(fit$converged)
  obs <- is.finite(cc$off)
  expect_equal(fit$observed, which(obs))
  ref <- gp_laplace(as.matrix(cc$g[obs, ]), as.vector(cc$y)[obs], likelihood = "poisson",
                    offset = cc$off[obs], lengthscale = c(2, 3), outputscale = 1.3, mean = 0.5,
                    learn = character(0), evidence = "exact", tol = 1e-10, verbose = FALSE)
  expect_true(ref$converged)
  expect_equal(fit$f, as.vector(ref$f), tolerance = 1e-8)
  expect_equal(fit$loglik, ref$loglik, tolerance = 1e-8)
  expect_equal(unname(fit$loglik_grad), unname(ref$loglik_grad), tolerance = 1e-8)
})

test_that("learning finds hyperparameters that fit the field; print and plot work", {
  set.seed(1)
  g <- expand.grid(i = 1:20, j = 1:15)
  rate <- exp(1 + sin(g$i / 4) + cos(g$j / 3))
  y <- matrix(rpois(nrow(g), rate), 20, 15)
  fit <- ski_laplace(y = y, verbose = FALSE, seed = 1)
  expect_true(fit$converged)
  expect_equal(fit$used$loglik_method, "exact")
  expect_setequal(fit$learned, c("lengthscale", "outputscale", "mean"))
  expect_true(is.finite(fit$loglik))
  # the learned field is closer to the truth than the raw log counts
  raw <- log(as.vector(y) + 0.5)
  expect_lt(mean((fit$weights - log(rate))^2), mean((raw - log(rate))^2))
  expect_output(print(fit), "ski_laplace")
  pdf(NULL); on.exit(dev.off())
  expect_silent(plot(fit))
})

test_that("points: counts W'1 sum to n; predictions at xtest", {
  set.seed(2)
  x <- cbind(runif(300, 0, 3), runif(300, 0, 2))
  fit <- ski_laplace(x, grid_size = c(20, 14), lengthscale = 0.8, outputscale = 1,
                     learn = "mean", xtest = rbind(c(1, 1), c(2, 1.5)), verbose = FALSE)
  expect_equal(fit$used$layout, "points")
  expect_equal(sum(fit$counts), 300, tolerance = 1e-12)
  # at the learned mean the fitted intensity integrates to about n: at the mode
  # sum(c - a exp(u)) = sum(alpha), and the mean's evidence gradient sum(alpha + s^)
  # vanishes, with s^ of the order of the posterior variances
  expect_lt(abs(sum(exp(fit$weights[fit$observed] + fit$offset)) / 300 - 1), 0.05)
  expect_length(fit$test$mean, 2)
  expect_true(all(fit$test$var > 0))
})

test_that("bad input gets a clear error naming the argument", {
  y <- matrix(c(1, 2, 3, 4, 5, 6), 2, 3)
  sk <- function(...) ski_laplace(..., learn = character(0), lengthscale = 1, outputscale = 1,
                                  mean = 0, verbose = FALSE)
  expect_error(sk(y = y - 2), "'y' .*non-negative")
  expect_error(sk(y = y + 0.5), "'y' .*element 1")
  expect_error(sk(y = y, offset = c(0, -Inf, 0, 0, 0, 0)), "'y' element 2 .*offset is -Inf")
  expect_error(sk(y = y, likelihood = "bernoulli"), "'y' .*0 or 1")
  expect_error(sk(y = y, likelihood = "binomial", trials = 3), "'y'")
  expect_error(sk(y = y, layout = "points"), "'layout'")
  expect_error(sk(y = y, likelihood = "softmax"), "softmax")
  expect_error(sk(y = y, offset = 1:3), "'offset'")
  expect_error(sk(y = y, grid_size = c(3, 3)), "'grid_size'")
  # a grid beyond any machine's memory is refused before anything is allocated
  pts <- cbind(c(0.1, 0.5, 0.9), c(0.2, 0.4, 0.8))
  expect_error(sk(x = pts, grid_size = c(3e6, 3e6), grid_bounds = rbind(c(0, 1), c(0, 1))),
               "'grid_size'.*GB of working memory")
})

test_that("variance = 'stochastic' maps the grid within its standard errors", {
  cc <- cells_case()
  a <- list(y = cc$y, offset = cc$off, lengthscale = c(2, 3), outputscale = 1.3, mean = 0.5,
            learn = character(0), verbose = FALSE, seed = 2, probes = 64)
  ex <- do.call(ski_laplace, c(a, variance = "exact", loglik_method = "exact"))
  for (meth in c("eigen", "slq")) {
    st <- do.call(ski_laplace, c(a, variance = "stochastic", loglik_method = meth))
    expect_length(st$grid_var, 120)
    z <- (st$grid_var[st$observed] - ex$var) / st$grid_var_se[st$observed]
    # 100 observed cells: |z| > 5 has probability ~1e-4 for near-normal estimates
    expect_lt(max(abs(z)), 5, label = meth)
  }
  pdf(NULL); on.exit(dev.off())
  expect_silent(plot(st, what = "sd"))
})

test_that("gaussian cells equal ski_gsgp with the data on the grid points", {
  # with every observation on a grid point W is a selection, so the SKI model is
  # the grid GP plus noise: the Laplace is exact (one Newton step) and its
  # evidence is ski_gsgp's exact log marginal likelihood
  set.seed(4)
  g <- expand.grid(i = 1:10, j = 1:8)
  y <- matrix(sin(g$i / 3) + cos(g$j / 2) + rnorm(80, 0, 0.3), 10, 8)
  fit <- ski_laplace(y = y, likelihood = "gaussian", noise = 0.09, lengthscale = 2,
                     outputscale = 1.5, mean = 0, learn = character(0), loglik = TRUE,
                     loglik_method = "exact", tol = 1e-10, verbose = FALSE)
  expect_true(fit$converged)
  x <- as.matrix(g)
  ref <- ski_gsgp(x, as.vector(y), grid_size = c(10, 8), grid_bounds = cbind(c(1, 1), c(10, 8)),
                  interpolation = "linear", lengthscale = 2, outputscale = 1.5, noise = 0.09,
                  mean = 0, learn = character(0), loglik = TRUE, loglik_method = "exact",
                  tol = 1e-12, xtest = x, verbose = FALSE)
  expect_equal(fit$weights, ref$test$mean, tolerance = 1e-8)
  expect_equal(fit$loglik, ref$loglik, tolerance = 1e-8)
})

test_that("points from ski_stats (files, clusters) equal points from x", {
  # the counts are W'1 with linear weights either way: the same rows in the same
  # order give the same sums bit for bit; two merged chunks add them in another
  # order (rounding of sums of at most 300 weights in [0, 1]: 1e-12)
  set.seed(3)
  x <- cbind(runif(300), runif(300) * 2)
  g <- ski_grid(x, grid_size = c(12, 20), interpolation = "linear")
  s <- ski_stats(x, rep(1, 300), g)
  args <- list(lengthscale = 0.3, outputscale = 1, learn = "mean", verbose = FALSE, seed = 1)
  f1 <- do.call(ski_laplace, c(list(x, grid_size = c(12, 20), grid_bounds = g$bounds), args))
  f2 <- do.call(ski_laplace, c(list(stats = s), args))
  expect_identical(f2$counts, f1$counts)
  expect_identical(f2$weights, f1$weights)
  expect_identical(f2$loglik, f1$loglik)
  expect_identical(do.call(ski_laplace, c(list(s), args))$weights, f1$weights)
  sm <- ski_stats_merge(ski_stats(x[1:150, ], rep(1, 150), g), ski_stats(x[151:300, ], rep(1, 150), g))
  fm <- do.call(ski_laplace, c(list(stats = sm), args))
  expect_equal(fm$counts, f1$counts, tolerance = 1e-12)
  # the learned mean moves by about the counts' change (1e-12) over the evidence's
  # curvature in it (of the order of n), far inside the optimizer's own tolerance
  expect_equal(fm$hyper$mean, f1$hyper$mean, tolerance = 1e-8)
  expect_error(ski_laplace(stats = s, grid_size = 3, verbose = FALSE), "'grid_size' is set by stats")
  expect_error(ski_laplace(x, stats = s, verbose = FALSE), "'stats' takes the place of x")
  expect_error(ski_laplace(stats = ski_stats(x, rep(1, 300), ski_grid(x, grid_size = c(12, 20))),
                           verbose = FALSE), "'stats' .*interpolation = \"linear\"")
  expect_error(ski_laplace(stats = list(a = 1), verbose = FALSE), "'stats' must be ski_stats")
})

test_that("a ppp in a polygonal window: each node's exposure is its tent's area inside", {
  skip_if_not_installed("spatstat.geom")
  # a disc of radius 1 on a 40 x 40 grid: the tents sum to one over the plane,
  # so the exposures sum to the window's area up to the midpoint rule's error at
  # its edge (a band of a sub-cell along a boundary of length 2 pi: 2 pi h / 4
  # with h = 0.05 is 0.08 of the disc's area 3.12, the polygon's); every node a
  # point reaches has exposure, so the fit runs where the cell-centre rule failed
  w <- spatstat.geom::disc(radius = 1)
  set.seed(2)
  xy <- matrix(runif(2000, -1, 1), ncol = 2)
  xy <- xy[rowSums(xy^2) < 0.95, ][1:400, ]
  pp <- spatstat.geom::ppp(xy[, 1], xy[, 2], window = w)
  pl <- ppp_layout(pp, list(grid_size = c(40, 40)), NULL)
  a <- exp(pl$offset)
  expect_lt(abs(sum(a) - spatstat.geom::area(w)), 2 * pi * 0.05 / 4)
  h <- prod((pl$opts$grid_bounds[, 2] - pl$opts$grid_bounds[, 1]) / 39)
  expect_lte(max(a), h * (1 + 1e-12))
  g <- ski_grid(grid_bounds = pl$opts$grid_bounds, grid_size = c(40, 40), interpolation = "linear")
  reached <- ski_stats(pl$x, rep(1, 400), g, bounds_policy = "clamp")$Wt1 > 0
  expect_true(all(a[reached] > 0))
  fit <- ski_laplace(pp, grid_size = c(40, 40), lengthscale = 0.3, outputscale = 1, mean = 4.8,
                     learn = character(0), verbose = FALSE)
  expect_true(fit$converged)
})
