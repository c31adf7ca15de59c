# R and Octave fronts of ski_laplace agree (helper-parity.R runs the Octave side,
# parity-ski-laplace.m): one core on the same doubles with one thread and the
# same seed, so the learning takes the same path and the numbers agree to 1e-8
# (the optimizer's stops compare values: bitwise equal arithmetic gives equal
# paths); messages are identical.
test_that("ski_laplace agrees between R and Octave", {
  root <- parity_skip()
  oct <- parity_run_octave(root, "parity-ski-laplace.m")
  g <- expand.grid(i = 1:12, j = 1:10)
  y <- matrix(floor(3 * (1 + sin(g$i / 3) * cos(g$j / 4))), 12, 10)
  f1 <- ski_laplace(y = y, seed = 1, threads = 1, verbose = FALSE)
  expect_equal(f1$weights, oct[["fit1.weights"]], tolerance = 1e-8)
  expect_equal(f1$loglik, oct[["fit1.loglik"]], tolerance = 1e-8)
  expect_equal(c(f1$hyper$lengthscale, f1$hyper$outputscale, f1$hyper$mean),
               oct[["fit1.hyper"]], tolerance = 1e-8)
  expect_equal(f1$newton_steps, oct[["fit1.newton_steps"]])
  x <- cbind((1:80) %% 9 / 3, (1:80) %% 7 / 3.5)
  f2 <- ski_laplace(x, grid_size = c(10, 8), lengthscale = 0.7, outputscale = 1, learn = "mean",
                    xtest = rbind(c(1, 1), c(2, 1.5)), seed = 1, threads = 1, verbose = FALSE)
  expect_equal(f2$weights, oct[["fit2.weights"]], tolerance = 1e-8)
  expect_equal(f2$hyper$mean, oct[["fit2.mean"]], tolerance = 1e-8)
  expect_equal(f2$test$mean, oct[["fit2.test_mean"]], tolerance = 1e-8)
  expect_equal(f2$test$var, oct[["fit2.test_var"]], tolerance = 1e-8)
  # predictions from the fit read back (an exposure at the second point)
  p2 <- predict(f2, rbind(c(1.5, 1), c(0.5, 2)), offset = c(0, log(2)))
  expect_equal(p2$mean, oct[["pred2.mean"]], tolerance = 1e-8)
  expect_equal(p2$var, oct[["pred2.var"]], tolerance = 1e-8)
  expect_equal(p2$response, oct[["pred2.response"]], tolerance = 1e-8)
  # the scattered layout (cubic weights at the observations), outputscale and mean learned
  xs <- cbind(0.3 + (1:70) %% 9 * 0.27, 0.2 + (1:70) %% 4 * 0.5)
  ys <- floor(2 * (1 + sin(2 * xs[, 1]) * cos(xs[, 2])))
  f3 <- ski_laplace(xs, ys, layout = "scattered", grid_size = c(10, 8), lengthscale = 0.6,
                    learn = c("outputscale", "mean"), xtest = rbind(c(1, 1), c(2, 1.5)),
                    seed = 1, threads = 1, verbose = FALSE)
  expect_equal(f3$weights, oct[["fit3.weights"]], tolerance = 1e-8)
  expect_equal(f3$f, oct[["fit3.f"]], tolerance = 1e-8)
  expect_equal(f3$loglik, oct[["fit3.loglik"]], tolerance = 1e-8)
  expect_equal(c(f3$hyper$outputscale, f3$hyper$mean), oct[["fit3.hyper"]], tolerance = 1e-8)
  expect_equal(f3$test$var, oct[["fit3.test_var"]], tolerance = 1e-8)
  p3 <- predict(f3, rbind(c(1.5, 1), c(0.5, 1.2)))
  expect_equal(p3$mean, oct[["pred3.mean"]], tolerance = 1e-8)
  expect_equal(p3$var, oct[["pred3.var"]], tolerance = 1e-8)
  # the points layout from ski_stats of the points (linear interpolation)
  gs <- ski_grid(x, grid_size = c(10, 8), interpolation = "linear")
  f4 <- ski_laplace(stats = ski_stats(x, rep(1, 80), gs), lengthscale = 0.7, outputscale = 1,
                    learn = "mean", seed = 1, threads = 1, verbose = FALSE)
  expect_equal(f4$weights, oct[["fit4.weights"]], tolerance = 1e-8)
  expect_equal(f4$hyper$mean, oct[["fit4.mean"]], tolerance = 1e-8)
  e <- function(expr) tryCatch({ expr; "no error" }, error = conditionMessage)
  expect_identical(e(ski_laplace(stats = ski_stats(x, rep(1, 80), gs), grid_size = 3,
                                 verbose = FALSE)), oct[["err.stats_grid"]])
  # the same words after the host's function and field syntax
  bad <- f2
  bad$weights <- bad$weights[1:10]
  expect_identical(sub("^.*weights' ", "", e(predict(bad, rbind(c(1, 1))))),
                   sub("^.*weights' ", "", oct[["err.weights"]]))
  expect_identical(e(ski_laplace(y = c(1, 2.5, 3), verbose = FALSE)), oct[["err.y"]])
  expect_identical(e(ski_laplace(y = c(1, 2, 3), layout = "points", verbose = FALSE)),
                   oct[["err.layout"]])
  expect_identical(e(ski_laplace(xs, ys, layout = "scattered", loglik_method = "eigen",
                                 verbose = FALSE)), oct[["err.eigen"]])
  # summary (which prints, as R's summary.ski_laplace does, rather than
  # returning an object to print): the same lines but the history's last
  # column (its timings); the third fit's history has a value of every format
  # R's data frame print takes (fixed, scientific, a rounding that widens, a
  # 3-digit exponent, NaN, Inf)
  mask <- function(l) {
    h <- seq_along(l) >= grep("^ step ", l)[1]
    l[h] <- sub(" +\\S+$", "", l[h])
    l
  }
  expect_summary <- function(fit, key, mask) {
    o <- vapply(seq_len(oct[[paste0(key, ".summary.n")]]), function(i)
      oct[[sprintf("%s.summary.%d", key, i)]], "")
    expect_identical(mask(utils::capture.output(summary(fit))), mask(o),
                     label = sprintf("R's summary of %s", key))
  }
  expect_summary(f1, "fit1", mask)
  expect_summary(f2, "fit2", mask)
  f3 <- f1  # (the scattered fit is checked above)
  f3$history <- data.frame(step = c(1, 2, 3, 4), psi = c(9.99996, -0.5, 123456, 0),
                           mode_error = c(1e-120, 2.5, NaN, 1), damping = c(0.5, 0.25, 1, 1),
                           cg_steps = c(1, 10, 100, 1000),
                           rel_residual = c(-Inf, 1e-3, 0.0123, 1), seconds = c(Inf, 1.5e5, 2, 3))
  f3$converged <- FALSE
  f3$stop_reason <- "max_iter"
  f3$loglik <- NA
  expect_summary(f3, "fit3", identity)
  expect_match(capture.output(summary(f3))[6], "^    1     10.0   1.0e-120    0.50 ")
})
