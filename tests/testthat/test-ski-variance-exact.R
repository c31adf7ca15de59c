# ski_gsgp's variances and what it says of them: exact variances resolved to
# a bound on their relative error (SGP_SKI_RTOL = 1e-4, core/ski/ski_var.c),
# the LOVE cache checked at grid nodes (core/ski/ski_love_check.c), variances
# set to 0 from below counted, the data fit of the log-likelihood to the same
# bound; statistics with data is an error. Oracle: the dense SKI GP
# (ski_dense_var, helper-ski.R: no cancellation, relative error below 1e-8).

quietly <- function(expr) withCallingHandlers(expr, warning = function(w) {
  if (grepl("interpolation error", conditionMessage(w))) invokeRestart("muffleWarning")
})

test_that("exact variances equal the dense SKI GP's to 1e-3 whenever converged (noise 1e-2 to 1e-8)", {
  set.seed(1)
  n <- 60
  x <- sort(runif(n, 0, 3))
  y <- sin(2 * x) + rnorm(n, sd = 0.1)
  xt <- seq(0.05, 2.95, length.out = 15)
  gs <- 400 # at tol 0.01 the old rule (residual <= tol ||k||) gave 5.4, 400,
            # 3.6e4 and 3.3e6 times these variances
  for (noise in c(1e-2, 1e-4, 1e-6, 1e-8)) {
    f <- quietly(ski_gsgp(x, y, grid_size = gs, lengthscale = 0.5, outputscale = 1, noise = noise,
                          mean = 0, variance = "exact", xtest = xt, verbose = FALSE))
    d <- ski_dense_KG(f$grid, "rbf", 0.5, 1)
    v <- ski_dense_var(ski_dense_W(matrix(x), gs, f$grid$bounds, "cubic"),
                       ski_dense_W(matrix(xt), gs, f$grid$bounds, "cubic"), d$KG, noise)
    lab <- sprintf("noise %g", noise)
    # the bound the solves met (1e-4 relative) plus the oracle's rounding
    # (below 1e-8): 1e-3 leaves ten times the bound
    expect_true(f$test$converged, label = lab)
    expect_true(f$converged, label = lab)
    expect_lte(f$test$var_error, 1e-4, label = lab)
    expect_lt(max(abs(f$test$var / v - 1)), 1e-3, label = lab)
    expect_identical(f$test$clamped, 0L)
    expect_identical(predict(f, xt, variance = "exact")$var, f$test$var)
  }
})

test_that("exact variance solves that cannot meet their bound say so: converged FALSE, a warning", {
  set.seed(1)
  x <- sort(runif(60, 0, 3))
  y <- sin(2 * x) + rnorm(60, sd = 0.1)
  xt <- c(0.5, 1.5, 2.5)
  f <- quietly(ski_gsgp(x, y, grid_size = 400, lengthscale = 0.5, outputscale = 1, noise = 1e-8,
                        mean = 0, verbose = FALSE))
  # a residual of 1e-2 of ||k|| leaves the bound ||r||^2 / noise far above
  # variances of ~1e-9: with max_iter 5 the variance solves stop there
  f$max_iter <- 5
  expect_warning(p <- predict(f, xt, variance = "exact"),
                 "predict.ski_gsgp: the exact variance solves did not all converge: max_iter")
  expect_false(p$converged)
  expect_true(p$var_error > 1e-4)
  w <- character(0)
  g <- withCallingHandlers(
    ski_gsgp(x, y, grid_size = 400, lengthscale = 0.5, outputscale = 1, noise = 1e-8, mean = 0,
             max_iter = 5, variance = "exact", xtest = xt, verbose = FALSE),
    warning = function(c) { w <<- c(w, conditionMessage(c)); invokeRestart("muffleWarning") })
  expect_true(any(grepl("^ski_gsgp: the exact variance solves did not all converge", w)))
  expect_false(g$converged)
  expect_false(g$test$converged)
})

test_that("LOVE: a rank too small for a 2-D problem is detected and bounded; full rank is exact", {
  set.seed(4)
  x <- cbind(runif(300), runif(300))
  y <- sin(3 * x[, 1]) * cos(2 * x[, 2]) + rnorm(300, sd = 0.03)
  xt <- cbind(runif(20, 0.1, 0.9), runif(20, 0.1, 0.9))
  fit <- function(rank, ...)
    quietly(ski_gsgp(x, y, grid_size = c(20, 20), lengthscale = 0.2, outputscale = 1,
                     noise = 1e-3, mean = 0, variance = "lanczos", rank = rank, xtest = xt,
                     verbose = FALSE, ...))
  expect_warning(f <- fit(10), "ski_gsgp: the lanczos variances are not resolved")
  expect_false(f$test$converged)
  expect_false(f$converged)
  expect_true(f$love$error > 1e-4)
  d <- ski_dense_KG(f$grid, "rbf", 0.2, 1)
  W <- ski_dense_W(x, f$grid$size, f$grid$bounds, "cubic")
  v <- ski_dense_var(W, ski_dense_W(xt, f$grid$size, f$grid$bounds, "cubic"), d$KG, 1e-3)
  expect_gt(max(f$test$var / v - 1), 1e-4) # the warning is no false alarm
  # the bound holds at the check points: in each eighth of the grid's index
  # range the node with the most data weight (W'1)
  m <- prod(f$grid$size)
  nodes <- vapply(0:7, function(s) {
    idx <- (s * m %/% 8 + 1):((s + 1) * m %/% 8)
    idx[which.max(f$stats$Wt1[idx])]
  }, 0)
  pn <- suppressWarnings(predict(f, d$points[nodes, ], variance = "lanczos"))
  vn <- ski_dense_var(W, ski_dense_W(d$points[nodes, ], f$grid$size, f$grid$bounds, "cubic"),
                      d$KG, 1e-3)
  expect_lte(max(abs(pn$var / vn - 1)), f$love$error)
  # full rank (the Krylov space holds every direction): resolved and exact
  expect_silent(f2 <- fit(400))
  expect_true(f2$test$converged)
  expect_lte(f2$love$error, 1e-4)
  expect_lt(max(abs(f2$test$var / v - 1)), 1e-3)
})

test_that("variances set to 0 from below are counted and said", {
  set.seed(2)
  x <- runif(150, 0, 3)
  y <- sin(2 * x) + rnorm(150, sd = 0.1)
  f <- ski_gsgp(x, y, grid_size = 25, lengthscale = 0.4, noise = 0.01, outputscale = 1,
                mean = 0, variance = "lanczos", verbose = FALSE)
  p <- predict(f, c(1, 2))
  expect_identical(p$clamped, 0L)
  # an explained part three times too large (||F'w||^2 nine times) exceeds
  # the prior: those variances would be negative
  f$love$Ft <- 3 * f$love$Ft
  xs <- seq(0.5, 2.5, by = 0.25)
  expect_warning(p <- predict(f, xs), "lanczos variances? (was|were) set to 0|fell below 0")
  expect_gt(p$clamped, 0L)
  expect_identical(p$clamped, sum(p$var == 0))
})

test_that("the log-likelihood's data fit meets its bound at the default tol", {
  set.seed(1)
  n <- 60
  x <- sort(runif(n, 0, 3))
  y <- sin(2 * x) + rnorm(n, sd = 0.1)
  for (noise in c(1e-2, 1e-6)) { # at tol 0.01 alone: 3.1e-4 and 6.7e-4 short of it
    w <- character(0)
    fit <- withCallingHandlers(
      ski_gsgp(x, y, grid_size = 400, lengthscale = 0.5, outputscale = 1, noise = noise, mean = 0,
               loglik = TRUE, loglik_method = "slq", probes = 4, verbose = FALSE),
      warning = function(c) { w <<- c(w, conditionMessage(c)); invokeRestart("muffleWarning") })
    expect_false(any(grepl("log-likelihood", w)), label = sprintf("noise %g: no rough estimate", noise))
    W <- ski_dense_W(matrix(x), 400, fit$grid$bounds, "cubic")
    A <- W %*% ski_dense_KG(fit$grid, "rbf", 0.5, 1)$KG %*% t(W) + noise * diag(n)
    df <- sum(y * solve(A, y)) # rounding eps cond(A) <= 1e-9 relative
    # the bound (1e-4 relative) and the dense solve's rounding
    expect_lt(abs(fit$datafit / df - 1), 1e-4 * (1 + 1e-3), label = sprintf("noise %g", noise))
  }
})

test_that("statistics given with x and y: an error naming them (method \"gsgp\")", {
  x <- runif(50)
  y <- sin(3 * x)
  f <- ski_gsgp(x, y, grid_size = 20, lengthscale = 0.3, noise = 0.01, outputscale = 1, mean = 0,
                verbose = FALSE)
  expect_error(ski_gsgp(x, y, stats = f$stats, lengthscale = 0.3, verbose = FALSE),
               "ski_gsgp: 'x' and 'y' are given with 'stats'; method = \"gsgp\" fits from the statistics alone")
  # method "ski" runs on the data: it needs both
  g <- ski_gsgp(x, y, stats = f$stats, method = "ski", lengthscale = 0.3, noise = 0.01,
                outputscale = 1, mean = 0, verbose = FALSE)
  expect_true(g$converged)
})
