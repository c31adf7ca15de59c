# Fuzz findings on valla, mlp_fit and valla_metrics (inst/fuzz/fuzz_r.R) kept as
# fast tests: huge inputs, choice arguments and tampered fits give errors that
# name the argument or the fit field.

vz <- local({
  n <- 30; i <- 1:n
  x <- cbind((i * 0.618034) %% 1, (i * 0.414214 + 0.1) %% 1)
  y <- sin(4 * x[, 1]) + 0.05 * cos(17 * i)
  ys <- 1 + (x[, 1] > 0.3) + (x[, 2] > 0.6)
  net <- mlp_fit(x, y, hidden = 4, iterations = 50, seed = 1, verbose = FALSE)
  net_c <- mlp_fit(x, ys, hidden = 4, likelihood = "softmax", iterations = 50, seed = 1,
                   verbose = FALSE)
  q <- function(...) suppressWarnings(valla(..., inducing = 5, iterations = 20, seed = 1,
                                              verbose = FALSE))
  list(n = n, x = x, y = y, ys = ys, net = net, net_c = net_c, q = q,
       fit = q(net, x, y), fit_c = q(net_c, x, ys))
})

test_that("predict.valla and plot.valla check type, prob_method and what by name", {
  expect_error(predict(vz$fit, vz$x, type = "nonsense"),
               "predict.valla: 'type' is unknown: \"nonsense\"; use one of \"list\"")
  expect_error(predict(vz$fit, vz$x, type = NA), "predict.valla: 'type' must be one string")
  expect_error(predict(vz$fit, vz$x, type = c("list", "class")), "'type' must be one string")
  expect_error(predict(vz$fit_c, vz$x, prob_method = "z"), "'prob_method' is unknown: \"z\"")
  expect_error(predict(vz$fit_c, vz$x, prob_method = 1), "'prob_method' must be one string")
  expect_error(plot(vz$fit, what = "x"), "plot.valla: 'what' is unknown: \"x\"")
  expect_length(predict(vz$fit, vz$x, type = "response"), vz$n)
  expect_identical(predict(vz$fit_c, vz$x), predict(vz$fit_c, vz$x, prob_method = "probit"))
})

test_that("tampered model, stop_reason and levels of a valla fit are refused by name", {
  set <- function(fit, name, value) { fit[name] <- list(value); fit }
  fit <- vz$fit
  for (f in list(function(o) predict(o, vz$x), print, summary, plot))
    expect_error(f(set(fit, "model", NA)), "'(object|x)\\$model' must be a network as plain data")
  expect_error(print(set(fit, "stop_reason", NA)), "print.valla: 'x\\$stop_reason' must be NULL or one of")
  expect_error(print(set(fit, "stop_reason", fit$stop_reason[-1])), "'x\\$stop_reason' must be NULL")
  expect_output(print(set(fit, "stop_reason", NULL)), "valla")
  fc <- vz$fit_c
  expect_error(predict(set(fc, "levels", NA), vz$x, type = "class"),
               "'object\\$levels' must be NULL or 3 distinct class names")
  expect_error(predict(set(fc, "levels", character(0)), vz$x, type = "class"),
               "'object\\$levels' must be NULL or 3 distinct class names")
  expect_error(predict(set(fc, "levels", c("a", "a", "b")), vz$x), "'object\\$levels'")
  expect_error(predict(set(fit, "levels", "a"), vz$x), "'object\\$levels' must be NULL for a gaussian fit")
  ok <- set(fc, "levels", c("a", "b", "c"))
  expect_identical(levels(predict(ok, vz$x, type = "class")), c("a", "b", "c"))
})
