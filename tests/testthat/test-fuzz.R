# Cases of the fuzz run (inst/fuzz/fuzz_r.R) kept as regular tests: each
# failure it found and fixed, and a sample of the clean errors. In-process
# (expect_error naming the argument), except the threads crashes, which run in
# child processes through the harness so that a regression cannot take the test
# process down.

set.seed(11)
fz_x <- cbind(runif(20), runif(20))
fz_y <- as.integer(fz_x[, 1] > 0.5)
fz_fit <- function(...) gp_laplace(fz_x, fz_y, verbose = FALSE, seed = 1, ...)

# expect_error(expr, pattern) that also fails on any warning before the error
# (R's integer coercion used to warn "NAs introduced by coercion" first).
expect_error_no_warning <- function(expr, pattern) {
  warned <- character(0)
  withCallingHandlers(expect_error(expr, pattern),
                      warning = function(w) {
                        warned <<- c(warned, conditionMessage(w))
                        invokeRestart("muffleWarning")
                      })
  expect_identical(warned, character(0))
}

test_that("threads above 256 are refused by the core's rule, naming threads", {
  msg <- "'threads' must be a whole number from 0 \\(the OpenMP default\\) to 256"
  for (t in c(257, 5000, 1e5, 1e6, 2^31, 0.5, -1, NaN, Inf))
    expect_error(gp_kernel(fz_x, threads = t),
                 "gp_kernel: 'threads' must be a whole number from 0 \\(the OpenMP default\\) to 256")
  expect_error(gp_kernel(fz_x, threads = "2"), "'threads' must be one whole number")
  expect_error(fz_fit(threads = 1e6), "gp_laplace: 'threads' must be a whole number from 0 \\(the OpenMP default\\) to 256")
  expect_error(predict(fz_fit(), fz_x, threads = 1e6), paste("predict.gp_laplace:", msg))
  g <- ski_grid(fz_x, grid_size = 10)
  expect_error(ski_stats(fz_x, fz_y, g, threads = 1e6, verbose = FALSE),
               "ski_stats: 'threads' must be a whole number from 0 \\(the OpenMP default\\) to 256")
  expect_error(ski_gsgp(fz_x, fz_y, grid_size = 10, threads = 5000, verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'threads' must be a whole number from 0 \\(the OpenMP default\\) to 256")
  expect_error(mlp_fit(fz_x, fz_y, hidden = 2, iterations = 1, threads = 1e5, verbose = FALSE),
               "mlp_fit: 'threads' must be a whole number from 0 \\(the OpenMP default\\) to 256")
  expect_equal(gp_kernel(fz_x, threads = 256), gp_kernel(fz_x, threads = 1))
})

test_that("the threads crashes stay fixed (fuzz harness, one child process per case)", {
  script <- system.file("fuzz", "fuzz_r.R", package = "scalegp")
  skip_if(script == "", "inst/fuzz not installed")
  skip_if_not(.Platform$OS.type == "unix", "the harness forks")
  out <- suppressWarnings(system2(
    file.path(R.home("bin"), "Rscript"),
    c(script, shQuote("--filter=^(gp_kernel|gp_laplace|mlp_fit|ski_stats): threads = (1e6|1e5|5000)$")),
    stdout = TRUE, stderr = FALSE, env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":"))))
  total <- grep("^total", out, value = TRUE)
  expect_length(total, 1L)
  counts <- as.integer(strsplit(trimws(sub("^total", "", total)), " +")[[1]])
  expect_identical(counts, c(12L, 12L, 0L, 0L, 0L, 0L))  # inputs, all clean errors
})

test_that("whole numbers past 2^31 are accepted where the core takes them, else a range error", {
  expect_error_no_warning(fz_fit(max_iter = 2^31),
                          "gp_laplace: 'max_iter' must be at most 2147483647 \\(got 2147483648\\)")
  expect_error_no_warning(fz_fit(max_newton = 1e10), "'max_newton' must be at most 2147483647")
  expect_error_no_warning(fz_fit(rank = 2^60), "'rank' must be at most 9007199254740992")
  expect_error_no_warning(gp_laplace(fz_x, fz_y, seed = 2^60), "'seed' must be at most 9007199254740992")
  expect_error_no_warning(gp_laplace(fz_x, c(1e300, rep(1, 19)), likelihood = "softmax"),
                          "'y' has labels up to 1e\\+300 but only n = 20 points")
  expect_error_no_warning(mlp_fit(fz_x, fz_y, hidden = 2^31), "'hidden' a layer of 2147483648 units")
  expect_error_no_warning(mlp_fit(fz_x, fz_y, iterations = 2^31), "'iterations' must be at most")
  expect_error_no_warning(valla_metrics(list(mean = fz_y, var = rep(1, 20)), fz_y, bins = 2^31),
                          "'bins' must be at most 2147483647")
  # int64 options of the core take doubles up to 2^53 (on the raw inputs: the
  # standardized ones make these separable labels a fit whose outputscale runs to
  # its bound, which the budgeted cg policy does not bring to the mode)
  expect_equal(fz_fit(rank = 2^31, scale = FALSE)$f, fz_fit(scale = FALSE)$f)
  expect_equal(fz_fit(max_total_iter = 2^40, scale = FALSE)$f, fz_fit(scale = FALSE)$f)
  g <- ski_grid(fz_x, grid_size = 10)
  far <- ski_stats(fz_x, fz_y, g, first_row = 2^31 + 5, probes = 2, verbose = FALSE)
  expect_identical(far$n, 20)
  expect_true(all(is.finite(far$Wtz)))
  expect_false(identical(far$Wtz, ski_stats(fz_x, fz_y, g, probes = 2, verbose = FALSE)$Wtz))
  expect_error(ski_stats(fz_x, fz_y, g, first_row = 2^60), "'first_row' must be at most")
})

test_that("noise with a non-gaussian likelihood is an error, not ignored", {
  expect_error(fz_fit(noise = -5), "gp_laplace: 'noise' is only used with likelihood = \"gaussian\"")
  expect_error(fz_fit(noise = 0.5), "'noise' is only used with likelihood = \"gaussian\"")
  expect_error(gp_laplace(fz_x, rpois(20, 2), likelihood = "poisson", noise = 1),
               "'noise' is only used")
  yg <- sin(3 * fz_x[, 1])
  a <- gp_laplace(fz_x, yg, likelihood = "gaussian", learn = character(0), verbose = FALSE,
                  seed = 1)
  b <- gp_laplace(fz_x, yg, likelihood = "gaussian", noise = 1, learn = character(0),
                  verbose = FALSE, seed = 1)
  expect_identical(a$f, b$f)  # fixed and not given: 1
  expect_error(gp_laplace(fz_x, yg, likelihood = "gaussian", noise = -5), "'noise' must be positive")
})

test_that("a vector of d values is one point when the fit has d > 1 inputs", {
  fit <- fz_fit()
  expect_identical(predict(fit, c(0.3, 0.6)), predict(fit, matrix(c(0.3, 0.6), 1)))
  expect_identical(dim(gp_kernel(fz_x, c(0.3, 0.6))), c(20L, 1L))
  expect_length(fz_fit(xtest = c(0.3, 0.6))$test$mean, 1L)
  x1 <- matrix(seq(0, 1, length.out = 10))
  f1 <- gp_laplace(x1, rep(0:1, 5), verbose = FALSE, seed = 1)
  expect_length(predict(f1, c(0.2, 0.5))$mean, 2L)  # d = 1: still two points
})

test_that("tampered gp_laplace fits are refused naming the field, by every method", {
  fit <- fz_fit()
  tamper <- list(
    list("root", fit$root[, 0, drop = FALSE], "'%s\\$root' has 0 columns but the fit took"),
    list("root", fit$root[-1, , drop = FALSE], "'%s\\$root' is 19 x"),
    list("root", NULL, "'%s\\$root' must be a numeric matrix \\(got nothing\\)"),
    list("weights", replace(fit$weights, 3, NaN), "'%s\\$weights' contains NaN"),
    list("x", "a", "'%s\\$x' must be a numeric matrix \\(got strings\\)"),
    list("var", -fit$var, "'%s\\$var' has negative variances"),
    list("likelihood", "probit", "'%s\\$likelihood' must be one of"),
    list("n_class", 3, "'%s\\$n_class' must be 1"),
    list("kernel", list(kernel = "rbf", lengthscale = -1, outputscale = 1),
         "'%s\\$kernel' must have 1 or d = 2 positive"),
    list("y", rep(2, 20), "'%s\\$y' must be 20 finite labels"),
    list("noise", 1, "'%s\\$noise' must be absent \\(NULL or \\[\\]\\) for likelihood = \"bernoulli\""),
    list("iterations", -1, "'%s\\$iterations' must be a whole number >= 0"),
    list("converged", NA, "'%s\\$converged' must be TRUE or FALSE"),
    list("policy", "lanczos", "'%s\\$policy' must be one of \"cg\", \"cholesky\""),
    list("history", NULL, "'%s\\$history' must be a data frame"))
  pdf(NULL)
  on.exit(grDevices::dev.off())
  for (t in tamper) {
    bad <- fit
    bad[t[[1]]] <- list(t[[2]])
    expect_error(predict(bad, fz_x), sprintf(t[[3]], "object"))
    expect_error(print(bad), sprintf(t[[3]], "x"))
    expect_error(summary(bad), sprintf(t[[3]], "object"))
    expect_error(plot(bad), sprintf(t[[3]], "x"))
  }
  expect_error(predict(structure(unclass(fit)[1:3], class = "gp_laplace"), fz_x),
               "'object\\$x' is missing")
  expect_error(scalegp:::predict.gp_laplace("a", fz_x), "'object' must be a gp_laplace fit")
  # a response equal to its mean is solved at once: the budget buys variance
  z <- gp_laplace(fz_x, rep(0, 20), likelihood = "gaussian", verbose = FALSE, seed = 1)
  expect_identical(ncol(z$root), as.integer(z$iterations))
  expect_length(predict(z, fz_x)$mean, 20L)
  expect_output(print(fit), "gp_laplace: bernoulli likelihood")
})

test_that("predict.valla reads d exactly (object$d partially matched datafit)", {
  ski <- ski_gsgp(fz_x, fz_y, grid_size = 10, loglik = TRUE, probes = 2, verbose = FALSE, learn = character(0))
  expect_false(is.null(ski$datafit))
  expect_error(predict(structure(unclass(ski), class = "valla"), fz_x),
               "predict.valla: 'object\\$[A-Za-z_0-9]+' is missing")
})

test_that("scales beyond double precision are errors naming the input", {
  expect_true(all(is.finite(gp_kernel(fz_x, outputscale = 1e300))))
  expect_warning(fz_fit(outputscale = 1e300), "did not converge")  # honest, finite results
  expect_error(gp_kernel(fz_x, lengthscale = 1e-300), "gp_kernel: 'x' divided by the lengthscale")
  expect_error(gp_kernel(fz_x * 1e200), "'x' divided by the lengthscale")
  expect_error(predict(fz_fit(), fz_x * 1e200), "predict.gp_laplace: 'newdata' divided by the lengthscale")
  expect_error(fz_fit(xtest = fz_x * 1e200), "gp_laplace: 'xtest' divided by the lengthscale")
  for (k in c("matern12", "matern32", "matern52")) {  # far apart: 0, not Inf * 0
    K <- gp_kernel(fz_x, kernel = k, lengthscale = 1e-60)
    expect_true(all(is.finite(K)))
    expect_equal(K, diag(20))
  }
  expect_error(gp_laplace(fz_x, rpois(20, 2), likelihood = "poisson", offset = rep(1e300, 20)),
               "'offset' log exposures must lie in \\[-700, 700\\]")
})

test_that("unclear errors of the fuzz run now name the argument", {
  expect_error(fz_fit(xtest_offset = rep(0, 5)), "'xtest_offset' needs 'xtest'")
  expect_error(predict(fz_fit(), fz_x, type = "nonsense"),
               "'type' must be one of \"list\", \"response\", \"class\", \"link\" \\(got \"nonsense\"\\)")
  expect_error(predict(fz_fit(), fz_x, type = NA), "'type' must be one of .* \\(got NA\\)")
  expect_error(gp_kernel(matrix(0, 1e6, 1), matrix(0, 1e6, 1)),
               "gp_kernel: 'x2' and 'x' give a 1000000 x 1000000 kernel matrix")
})

test_that("ski: y whose squares overflow is refused naming y (not yty = Inf)", {
  g <- ski_grid(fz_x, grid_size = 10)
  expect_error(ski_stats(fz_x, rep(1e300, 20), g),
               "ski_stats: 'y' its sum of squares \\(the statistic yty\\) overflows")
  expect_error(ski_gsgp(fz_x, rep(1e300, 20), grid_size = 10, verbose = FALSE, learn = character(0)), "ski_gsgp: 'y' ")
  expect_error(ski_gsgp(fz_x, rep(1e300, 20), grid_size = 10, method = "ski", verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'y' ")
})

test_that("ski_stats_merge refuses non-finite or overflowing statistics", {
  s <- ski_stats(fz_x, fz_x[, 2], ski_grid(fz_x, grid_size = 10))
  bad <- s
  bad$WtW <- bad$WtW * NaN
  expect_error(ski_stats_merge(s, bad), "ski_stats_merge: 'b' has a 'WtW' with NaN or Inf")
  expect_error(ski_stats_merge(bad, s), "ski_stats_merge: 'a' has a 'WtW' with NaN or Inf")
  big <- s
  big$yty <- 1.5e308
  expect_error(ski_stats_merge(big, big), "'b' makes the merged 'yty' overflow")
})

test_that("ski_gsgp names its own arguments (xtest, x, grid_pad) and predict names newdata", {
  fit <- ski_gsgp(fz_x, fz_x[, 2], grid_size = 10, verbose = FALSE, learn = character(0))
  expect_error(ski_gsgp(fz_x, fz_x[, 2], grid_size = 10, xtest = fz_x * NaN, verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'xtest' contains NaN")
  expect_error(ski_gsgp(fz_x, fz_x[, 2], grid_size = 10, xtest = fz_x + 5, verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'xtest' row 1, column 1 .* is outside the grid")
  expect_error(ski_gsgp(fz_x, fz_x[, 2], grid_size = 10, xtest = cbind(1, 2, 3), verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'xtest' has 3 columns")
  expect_error(predict(fit, fz_x * 1e300), "predict.ski_gsgp: 'newdata' row 1, column 1 .* outside")
  expect_error(predict(fit, fz_x * NaN), "predict.ski_gsgp: 'newdata' contains NaN")
  x300 <- matrix(0.5, 20, 2) * 1e300
  expect_error(ski_gsgp(x300, fz_x[, 2], verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'x' the range of column 1 .* gives no grid in doubles")
  expect_error(ski_grid(x300), "ski_grid: 'x' the range of column 1")
  expect_error(ski_gsgp(c(-1e308, 1e308, 0), c(1, 2, 3), verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'x' the range of column 1 .* overflow")
  expect_error(ski_gsgp(fz_x, fz_x[, 2], grid_pad = 0, verbose = FALSE, learn = character(0)),
               "ski_gsgp: 'grid_pad' is 0: with fewer than 1 cell of padding")
  # valid with linear interpolation or another bounds_policy
  expect_s3_class(ski_gsgp(fz_x, fz_x[, 2], grid_pad = 0, interpolation = "linear",
                           verbose = FALSE, learn = character(0)), "ski_gsgp")
  expect_s3_class(ski_gsgp(fz_x, fz_x[, 2], grid_pad = 0, bounds_policy = "clamp",
                           verbose = FALSE, learn = character(0)), "ski_gsgp")
})

test_that("tampered ski fits: non-finite results and iterations are refused naming the field", {
  fit <- ski_gsgp(fz_x, fz_x[, 2], grid_size = 10, loglik = TRUE, probes = 2, seed = 1,
                  verbose = FALSE, learn = character(0))
  for (name in c("rel_residual", "loglik", "logdet", "logdet_se", "iterations")) {
    f <- fit
    f[[name]] <- Inf
    expect_error(print(f), sprintf("print.ski_gsgp: 'x\\$%s' must be", name))
    expect_error(summary(f), sprintf("summary.ski_gsgp: 'object\\$%s' must be", name))
  }
  f <- fit
  f$timings[["solve"]] <- Inf
  expect_error(summary(f), "'object\\$timings' must be named finite seconds")
  f$timings <- fit$timings - 1  # (a timing may be 0: negate would not do)
  expect_error(summary(f), "'object\\$timings' must be named finite seconds >= 0")
  f$timings <- fit$timings[-1]
  expect_error(summary(f), "'object\\$timings' must be named finite seconds")
  f <- fit
  f$iterations <- 2.5
  expect_error(print(f), "'x\\$iterations' must be a whole number")
  expect_output(print(fit), "mean solve")
})
