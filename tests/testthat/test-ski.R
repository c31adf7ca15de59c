# ski_gsgp R front. Oracle: the dense GP with covariance W K_G W' + noise I of
# inst/extdata/make_ski_fixtures.R (plain R). Solves at tol 1e-11 give the
# fixture's mean and variance to 1e-7 relative (to the largest value).

test_that("gsgp fits match the dense SKI GP of the fixtures (mean, exact and LOVE variances)", {
  for (name in c("1d", "1d_linear", "2d")) {
    cs <- read_ski_case(name)
    fit <- ski_fit_case(cs, tol = 1e-11, variance = "exact", xtest = cs$xtest)
    expect_s3_class(fit, "ski_gsgp")
    expect_true(fit$converged)
    expect_lt(rel_err(fit$test$mean, cs$mean), 1e-7)
    expect_lt(rel_err(fit$test$var, cs$var), 1e-7)
    expect_equal(fit$grid$size, as.integer(cs$grid_size))
    expect_equal(fit$grid$bounds, cs$grid_bounds)
    # LOVE at full rank is exact
    m <- prod(cs$grid_size)
    love <- ski_fit_case(cs, tol = 1e-11, variance = "lanczos", rank = m, xtest = cs$xtest)
    expect_lt(rel_err(love$test$var, cs$var), 1e-7)
    # classic SKI CG gives the same posterior
    ski <- ski_fit_case(cs, tol = 1e-11, method = "ski", xtest = cs$xtest)
    expect_lt(rel_err(ski$test$mean, cs$mean), 1e-7)
    expect_lt(rel_err(ski$weights, fit$weights), 1e-7)
    expect_null(ski$test$var)
  }
})

test_that("the statistics are W'W, W'y, W'1, y'y of the dense interpolation matrix", {
  cs <- read_ski_case("2d")
  g <- ski_grid(grid_size = cs$grid_size, grid_bounds = cs$grid_bounds)
  s <- ski_stats(cs$x, cs$y, g)
  W <- ski_dense_W(cs$x, cs$grid_size, cs$grid_bounds, "cubic")
  expect_equal(s$n, nrow(cs$x))
  expect_equal(s$yty, sum(cs$y^2), tolerance = 1e-13)
  expect_equal(s$ysum, sum(cs$y), tolerance = 1e-13)
  expect_equal(s$Wty, drop(crossprod(W, cs$y)), tolerance = 1e-12)
  expect_equal(s$Wt1, colSums(W), tolerance = 1e-12)
  # stencil: WtW[g, s] = B[g, g + o_s], offsets in {-3..3}^2, first dimension fastest
  B <- crossprod(W)
  m1 <- cs$grid_size[1]; m2 <- cs$grid_size[2]
  expect_equal(dim(s$WtW), c(m1 * m2, 49L))
  D <- matrix(0, m1 * m2, 49)
  for (gi in 0:(m1 * m2 - 1)) for (o2 in -3:3) for (o1 in -3:3) {
    i1 <- gi %% m1 + o1; i2 <- gi %/% m1 + o2
    if (i1 >= 0 && i1 < m1 && i2 >= 0 && i2 < m2)
      D[gi + 1, (o1 + 3) + 7 * (o2 + 3) + 1] <- B[gi + 1, i1 + m1 * i2 + 1]
  }
  expect_lt(max(abs(s$WtW - D)), 1e-12 * max(abs(D)))
})

test_that("chunked and merged statistics equal one pass and give the same fit", {
  cs <- read_ski_case("1d")
  g <- ski_grid(grid_size = cs$grid_size, grid_bounds = cs$grid_bounds)
  one <- ski_stats(cs$x, cs$y, g)
  parts <- lapply(list(1:20, 21:55, 56:80), function(i)
    ski_stats(cs$x[i, , drop = FALSE], cs$y[i], g, first_row = i[1] - 1))
  merged <- do.call(ski_stats_merge, parts)
  expect_s3_class(merged, "ski_stats")
  for (f in c("n", "yty", "ysum", "Wty", "Wt1", "WtW"))
    expect_lt(max(abs(merged[[f]] - one[[f]])), 1e-12 * max(1, abs(one[[f]])))
  hyper <- list(kernel = cs$kernel, lengthscale = cs$lengthscale, outputscale = cs$outputscale,
                noise = cs$noise, tol = 1e-11, mean = 0, verbose = FALSE)
  f1 <- do.call(ski_gsgp, c(list(stats = merged, xtest = cs$xtest), hyper))
  f2 <- ski_fit_case(cs, tol = 1e-11, xtest = cs$xtest)
  expect_lt(rel_err(f1$test$mean, f2$test$mean), 1e-8)
  expect_lt(rel_err(f1$test$mean, cs$mean), 1e-7)
  # thread count does not change the statistics
  expect_identical(ski_stats(cs$x, cs$y, g, threads = 1)$WtW, ski_stats(cs$x, cs$y, g, threads = 2)$WtW)
})

test_that("fits and statistics survive saveRDS/readRDS", {
  cs <- read_ski_case("2d")
  fit <- ski_fit_case(cs, tol = 1e-10, variance = "lanczos", rank = 40)
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f))
  saveRDS(fit, f)
  back <- readRDS(f)
  p1 <- predict(fit, cs$xtest)
  p2 <- predict(back, cs$xtest)
  expect_identical(p1, p2)
  expect_identical(predict(back, cs$xtest, variance = "exact"),
                   predict(fit, cs$xtest, variance = "exact"))
  saveRDS(fit$stats, f)
  s <- readRDS(f)
  refit <- ski_gsgp(stats = s, kernel = cs$kernel, lengthscale = cs$lengthscale,
                    noise = cs$noise, tol = 1e-10, verbose = FALSE, learn = character(0))
  expect_identical(refit$weights, ski_gsgp(stats = fit$stats, kernel = cs$kernel,
                                           lengthscale = cs$lengthscale, noise = cs$noise,
                                           tol = 1e-10, verbose = FALSE, learn = character(0))$weights)
})

test_that("LOVE variances at low rank stay between the exact variance and the prior", {
  cs <- read_ski_case("2d")
  # rank 5 of 120 grid points: said so (the LOVE check), not converged
  expect_warning(fit <- ski_fit_case(cs, tol = 1e-10, variance = "lanczos", rank = 5,
                                     xtest = cs$xtest), "lanczos variances are not resolved")
  expect_false(fit$test$converged)
  expect_false(fit$converged)
  expect_true(all(fit$test$var >= 0))
  expect_true(all(fit$test$var >= cs$var - 1e-8))
  expect_equal(fit$rank, 5L)
  expect_equal(dim(fit$love$Ft), c(5L, prod(cs$grid_size)))
})

test_that("non-convergence gives converged = FALSE, the residual and a warning", {
  cs <- read_ski_case("1d")
  expect_warning(fit <- ski_fit_case(cs, tol = 1e-12, max_iter = 2), "did not converge")
  expect_false(fit$converged)
  expect_equal(fit$iterations, 2L)
  expect_gt(fit$rel_residual, 1e-12)
  expect_equal(nrow(fit$history), 3L)
  expect_equal(fit$history$rel_residual[1], 1)
})

test_that("the log marginal likelihood is close to the dense one", {
  cs <- read_ski_case("1d")
  fit <- ski_fit_case(cs, tol = 1e-10, loglik = TRUE, probes = 64, loglik_method = "slq")
  W <- ski_dense_W(cs$x, cs$grid_size, cs$grid_bounds, "cubic")
  G <- matrix(seq(cs$grid_bounds[1], cs$grid_bounds[2], length.out = cs$grid_size))
  A <- W %*% dense_kernel(G, G, cs$kernel, cs$lengthscale, cs$outputscale) %*% t(W) +
    cs$noise * diag(nrow(W))
  ld <- as.numeric(determinant(A)$modulus)
  df <- sum(cs$y * solve(A, cs$y))
  ll <- -0.5 * (ld + df + nrow(W) * log(2 * pi))
  expect_equal(fit$datafit, df, tolerance = 1e-8)
  expect_lt(abs(fit$logdet - ld), max(4 * fit$logdet_se, 0.02 * abs(ld)))
  expect_lt(abs(fit$loglik - ll), max(4 * fit$logdet_se, 0.02 * abs(ld)))
  # the same seed gives the same estimate; statistics with sketches give it too
  expect_identical(ski_fit_case(cs, tol = 1e-10, loglik = TRUE, probes = 64,
                                loglik_method = "slq")$loglik, fit$loglik)
  # exact ("auto" on this grid): equal to the dense one up to rounding (the
  # two computations' conditioning, test_ski_loglik_grad.c: far below 1e-9 here)
  fe <- ski_fit_case(cs, tol = 1e-10, loglik = TRUE)
  expect_equal(c(fe$logdet, fe$datafit, fe$loglik), c(ld, df, ll), tolerance = 1e-9)
  expect_identical(c(fe$logdet_se, fe$probes_used), c(0, 0))
  g <- ski_grid(grid_size = cs$grid_size, grid_bounds = cs$grid_bounds)
  s <- ski_stats_merge(ski_stats(cs$x[1:40, , drop = FALSE], cs$y[1:40], g, probes = 64, seed = 1),
                       ski_stats(cs$x[41:80, , drop = FALSE], cs$y[41:80], g, first_row = 40,
                                 probes = 64, seed = 1))
  f2 <- ski_gsgp(stats = s, kernel = cs$kernel, lengthscale = cs$lengthscale,
                 outputscale = cs$outputscale, noise = cs$noise, tol = 1e-10, loglik = TRUE,
                 mean = 0, loglik_method = "slq", verbose = FALSE)
  expect_equal(f2$loglik, fit$loglik, tolerance = 1e-6)
})

test_that("print, summary, plot and the default grid work", {
  set.seed(3)
  x <- runif(300, 0, 2)
  fit <- ski_gsgp(x, sin(3 * x) + rnorm(300, sd = 0.1), lengthscale = 0.3, noise = 0.01,
                  verbose = FALSE, learn = character(0))
  # default grid: spacing at most lengthscale / 3, data inside the valid range
  h <- diff(fit$grid$bounds[1, ]) / (fit$grid$size - 1)
  expect_lte(h, 0.3 / 3 + 1e-12)
  expect_lte(fit$grid$bounds[1, 1], min(x) - 2 * h + 1e-12)
  expect_output(print(fit), "ski_gsgp")
  expect_output(print(summary(fit)), "CG iterations")
  pdf(NULL)
  on.exit(dev.off())
  expect_silent(plot(fit))
  expect_silent(plot(fit, main = "m", xlab = "t", ylim = c(-3, 3)))  # the user's arguments win
  x2 <- cbind(runif(200), runif(200))
  fit2 <- ski_gsgp(x2, x2[, 1] - x2[, 2], lengthscale = 0.5, noise = 0.01, grid_size = 15,
                   verbose = FALSE, learn = character(0))
  expect_silent(plot(fit2, n = 30))
  expect_silent(plot(fit2, n = 30, xlab = "a", main = "m"))
  expect_output(print(fit$stats), "ski_stats")
})

test_that("the parallel example runs and equals the one-shot fit", {
  skip_on_os("windows")
  path <- system.file("examples", "ski_parallel.R", package = "scalegp")
  if (!nzchar(path)) path <- "../../inst/examples/ski_parallel.R"
  expect_output(source(path, local = new.env()), "largest relative difference")
})

test_that("bad inputs give errors naming the argument", {
  cs <- read_ski_case("1d")
  x <- cs$x; y <- cs$y
  expect_error(ski_gsgp(x, y[-1], verbose = FALSE, learn = character(0)), "ski_gsgp: 'y' has length 79")
  expect_error(ski_gsgp(matrix(1:18, 2), 1:2, verbose = FALSE, learn = character(0)), "'x' has 9 columns")
  expect_error(ski_gsgp(rbind(x, NaN), c(y, 1), verbose = FALSE, learn = character(0)), "'x' contains NaN")
  expect_error(ski_gsgp(x, replace(y, 3, NA), verbose = FALSE, learn = character(0)), "'y' contains NaN")
  expect_error(ski_gsgp(x, y, lengthscale = 0, verbose = FALSE, learn = character(0)), "'lengthscale' must be positive")
  expect_error(ski_gsgp(x, y, lengthscale = c(1, 2), verbose = FALSE, learn = character(0)), "'lengthscale' must be numeric of length 1")
  expect_error(ski_gsgp(x, y, noise = -1, verbose = FALSE, learn = character(0)), "'noise' must be positive")
  expect_error(ski_gsgp(x, y, outputscale = NaN, verbose = FALSE, learn = character(0)), "'outputscale' must be positive")
  expect_error(ski_gsgp(x, y, grid_size = 3, verbose = FALSE, learn = character(0)), "grid_size")
  expect_error(ski_gsgp(x, y, grid_size = 2.5, verbose = FALSE, learn = character(0)), "'grid_size' must be 1 to 8 whole numbers")
  expect_error(ski_gsgp(x, y, grid_bounds = c(0.5, 2), grid_size = 20, verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'x' .*outside", ignore.case = TRUE)
  expect_error(ski_gsgp(x, y, grid_bounds = matrix(1:4, 2), verbose = FALSE, learn = character(0)), "'grid_bounds' must be a 1-by-2")
  expect_error(ski_gsgp(x, y, method = "exact", verbose = FALSE, learn = character(0)), "ski_gsgp: 'method' must be one of")
  expect_error(ski_gsgp(x, y, variance = "full", verbose = FALSE, learn = character(0)), "ski_gsgp: 'variance' must be one of")
  expect_error(ski_gsgp(x, y, interpolation = "quintic", verbose = FALSE, learn = character(0)), "ski_gsgp: 'interpolation' must be one of")
  expect_error(ski_gsgp(x, y, backend = "gpu", verbose = FALSE, learn = character(0)), "ski_gsgp: 'backend' must be one of")
  expect_error(ski_gsgp(rbind(x, Inf), c(y, 1), verbose = FALSE, learn = character(0)), "'x' contains .*Inf")
  expect_error(ski_gsgp(x, replace(y, 3, -Inf), verbose = FALSE, learn = character(0)), "'y' contains .*Inf")
  expect_error(ski_gsgp(x, y, variance = "lanczos", rank = -1, verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'rank' must be a whole number >= 1")
  expect_error(ski_gsgp(x, y, loglik = TRUE, probes = 0, verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'probes' must be a whole number >= 1")
  expect_error(ski_gsgp(cbind(x, x), y, lengthscale = c(1, 2, 3), verbose = FALSE, learn = character(0)),
               "'lengthscale' must be numeric of length 1 or 2")
  expect_error(ski_gsgp(x, y, grid_size = c(10, 10), verbose = FALSE, learn = character(0)), "'grid_size'")
  expect_error(ski_gsgp(x, y, grid_bounds = c(2, 0.5), grid_size = 20, verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'grid_bounds' row 1 needs upper > lower")
  expect_error(ski_gsgp(x, y, bounds_policy = "wrap", verbose = FALSE, learn = character(0)), "ski_gsgp: 'bounds_policy' must be one of")
  expect_error(ski_stats(x, y, ski_grid(grid_size = 20, grid_bounds = c(-1, 4)), probes = -1),
               "ski_stats: 'probes' must be a whole number")
  expect_error(ski_gsgp(x, y, tol = 0, verbose = FALSE, learn = character(0)), "'tol' must be positive")
  expect_error(ski_gsgp(x, y, max_iter = 0, verbose = FALSE, learn = character(0)), "'max_iter' must be a whole number >= 1")
  expect_error(ski_gsgp(x, y, foo = 1, verbose = FALSE, learn = character(0)), "ski_gsgp: unknown option 'foo'")
  expect_error(ski_gsgp(verbose = FALSE, learn = character(0)), "'x' and 'y' are needed")
  expect_error(ski_gsgp(x, y, xtest = 10, verbose = FALSE, grid_size = 20, learn = character(0)), "xtest")
  # points outside the grid: clamp and drop are options
  fit_c <- ski_gsgp(x, y, grid_bounds = c(0.5, 2), grid_size = 20, bounds_policy = "clamp",
                    verbose = FALSE, learn = character(0))
  expect_true(fit_c$converged)
  fit_d <- ski_gsgp(x, y, grid_bounds = c(0.5, 2), grid_size = 20, bounds_policy = "drop",
                    verbose = FALSE, learn = character(0))
  expect_lt(sum(fit_d$stats$Wt1), nrow(x))
  # test points: "drop" gives NA where a point has no taps (cubic valid range
  # [0.5 + h, 2 - h], h = 1.5 / 19), "clamp" a finite prediction everywhere
  p_d <- predict(fit_d, c(0, 1, 1.9, 2.5), variance = "exact")
  expect_identical(is.na(p_d$mean), c(TRUE, FALSE, FALSE, TRUE))
  expect_identical(is.na(p_d$var), c(TRUE, FALSE, FALSE, TRUE))
  expect_true(all(p_d$var[2:3] > 0))
  expect_true(all(is.finite(predict(fit_c, c(0, 1, 2.5))$mean)))
  # statistics
  g1 <- ski_grid(grid_size = 20, grid_bounds = c(-1, 4))
  g2 <- ski_grid(grid_size = 21, grid_bounds = c(-1, 4))
  a <- ski_stats(x, y, g1)
  expect_error(ski_stats_merge(a, ski_stats(x, y, g2)), "ski_stats_merge: 'b' was built on another grid")
  expect_error(ski_stats_merge(a, a, ski_stats(x, y, ski_grid(grid_size = 20, grid_bounds = c(-1, 4),
                                                              interpolation = "linear"))),
               "'...1' was built on another grid")
  expect_error(ski_stats_merge(a, list(1)), "'b' must be ski_stats \\(from ski_stats or ski_stats_merge\\)")
  # do.call with a list of chunks named anyhow; nothing at all is an error
  expect_equal(do.call(ski_stats_merge, list(p1 = a, p2 = a))$n, 2 * a$n)
  expect_equal(do.call(ski_stats_merge, list(a, a, a))$n, 3 * a$n)
  expect_error(ski_stats_merge(), "ski_stats_merge: 'a' is missing")
  # the core's merge checks and messages, the same texts as Octave's
  expect_error(ski_stats_merge(a, a, ski_stats(x, y, g1, probes = 2)),
               "ski_stats_merge: '...1' has other probe sketches than 'a' (probes and seed must agree)",
               fixed = TRUE)
  big <- a
  big$yty <- 1.5e308
  expect_error(ski_stats_merge(big, big),
               "ski_stats_merge: 'b' makes the merged 'yty' overflow (not finite); rescale y",
               fixed = TRUE)
  m3 <- ski_stats_merge(a, a, a)
  expect_equal(m3$n, 3 * a$n)
  expect_equal(m3$WtW, 3 * a$WtW, tolerance = 1e-14)
  expect_identical(names(m3), names(a))
  expect_equal(unclass(ski_stats_merge(a)), unclass(a))
  expect_error(ski_stats(x, y, list(size = 3)), "ski_stats: 'grid' must be a grid")
  expect_error(ski_stats(x, y, g1, verbose = NA), "ski_stats: 'verbose' must be true or false")
  # progress lines appear only on passes longer than a second
  expect_silent(ski_stats(x, y, g1, verbose = TRUE))
  expect_error(ski_stats(cbind(x, x), y, g1), "'x' has 2 columns but the grid has 1")
  bad <- a; bad$WtW[1, 1] <- 1
  expect_error(ski_gsgp(stats = bad, verbose = FALSE, learn = character(0)), "ski_gsgp: 'stats' 'WtW' .the stencil of W'W. has a non-zero entry")
  bad <- a; bad$Wty[2] <- NaN
  expect_error(ski_gsgp(stats = bad, verbose = FALSE, learn = character(0)), "'stats' must have finite 'Wty'")
  bad <- a; bad$WtW <- bad$WtW[, -1]
  expect_error(ski_gsgp(stats = bad, verbose = FALSE, learn = character(0)), "'stats' has a 'WtW' that is not")
  expect_error(ski_gsgp(stats = a, loglik = TRUE, verbose = FALSE, learn = character(0),
                        loglik_method = "slq"), "'stats' has no probe sketches")
  expect_error(ski_gsgp(stats = a, loglik_method = "all", verbose = FALSE),
               "ski_gsgp: 'loglik_method' must be one of")
  expect_error(ski_gsgp(stats = a, grid_size = 10, verbose = FALSE, learn = character(0)), "'stats' fixes the grid")
  expect_error(ski_gsgp(stats = a, interpolation = "linear", verbose = FALSE, learn = character(0)),
               "'interpolation' differs from that of 'stats'")
  expect_error(ski_gsgp(stats = a, method = "ski", verbose = FALSE, learn = character(0)), "needed by method = \"ski\"")
  fit <- ski_gsgp(stats = a, verbose = FALSE, learn = character(0))
  expect_error(predict(fit, cbind(1, 2)), "'newdata' has 2 columns")
  expect_error(predict(fit, 1, variance = "lanczos"), "'variance' \"lanczos\" needs a fit")
})

test_that("backend reaches the core context and verbose reports progress", {
  cs <- read_ski_case("1d")
  a <- ski_fit_case(cs, backend = "cpu")
  b <- ski_fit_case(cs, backend = "auto")
  expect_identical(a$weights, b$weights)
  expect_equal(a$backend, "cpu")
  expect_identical(predict(a, cs$xtest, backend = "auto"), predict(a, cs$xtest))
  if (!scalegp_info()$cuda_devices) {
    expect_error(ski_fit_case(cs, backend = "cuda"),
                 "ski_gsgp: 'backend' \"cuda\" is not available")
    expect_error(predict(a, cs$xtest, backend = "cuda"),
                 "predict.ski_gsgp: 'backend' \"cuda\" is not available")
  } else {
    # accepted; the SKI solvers still run on the CPU, so the fit is the same
    expect_identical(ski_fit_case(cs, backend = "cuda")$weights, a$weights)
  }
  # verbose: the summary at the end (progress lines appear on runs > 1 s)
  expect_output(ski_gsgp(cs$x, cs$y, grid_size = cs$grid_size, grid_bounds = cs$grid_bounds,
                         lengthscale = cs$lengthscale, noise = cs$noise, verbose = TRUE, learn = character(0)),
                "<ski_gsgp> gsgp, 80 points")
})

test_that("every kernel runs on both K_G paths and gsgp equals ski", {
  cs <- read_ski_case("2d")
  for (k in c("rbf", "matern12", "matern32", "matern52")) for (interp in c("cubic", "linear")) {
    args <- list(cs$x, cs$y, grid_size = cs$grid_size, grid_bounds = cs$grid_bounds,
                 kernel = k, lengthscale = cs$lengthscale, noise = cs$noise,
                 interpolation = interp, tol = 1e-10, verbose = FALSE, xtest = cs$xtest,
                 learn = character(0))
    g <- do.call(ski_gsgp, args)
    s <- do.call(ski_gsgp, c(args, method = "ski"))
    expect_true(g$converged && s$converged)
    expect_lt(rel_err(s$test$mean, g$test$mean), 1e-7)
    expect_equal(g$grid$interpolation, interp)
  }
})
