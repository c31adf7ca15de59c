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

test_that("values whose squares overflow are refused naming the input", {
  big <- "is too large \\(at most 1e\\+100 in magnitude"
  expect_error(vz$q(vz$net, vz$x * 1e300, vz$y), paste0("valla: 'x'", " .* ", big))
  expect_error(vz$q(vz$net, vz$x, vz$y * 1e300), paste0("valla: 'y'", " .* ", big))
  expect_error(valla(vz$net, vz$x, vz$y, inducing = vz$x[1:5, ] * 1e300, iterations = 20,
                     verbose = FALSE), paste0("valla: 'inducing'", " .* ", big))
  expect_error(predict(vz$fit, vz$x * 1e300), paste0("predict.valla: 'newdata'", " .* ", big))
  expect_error(mlp_fit(vz$x, rep(1e300, vz$n), hidden = 3, iterations = 20, verbose = FALSE),
               paste0("mlp_fit: 'y'", " .* ", big))
  expect_error(mlp_fit(vz$x * 1e300, vz$y, hidden = 3, iterations = 20, verbose = FALSE),
               paste0("mlp_fit: 'x'", " .* ", big))
  expect_error(valla_metrics(list(mean = vz$y, var = rep(0.1, vz$n)), rep(1e300, vz$n)),
               paste0("valla_metrics: 'y'", " .* ", big))
  expect_error(valla_metrics(list(mean = rep(1e300, vz$n), var = rep(0.1, vz$n)), vz$y),
               paste0("valla_metrics: 'pred'", " .* ", big))
  expect_true(all(is.finite(predict(vz$fit, vz$x * 1e50)$mean)))  # large but fine
})

test_that("a prior_var too large for the inducing kernel is an error naming prior_var", {
  expect_error(valla(vz$net, vz$x, vz$y, inducing = 27, iterations = 20, prior_var = 1e300,
                     seed = 1, verbose = FALSE),
               "valla: 'prior_var' 1e\\+300 makes I \\+ L'K_ZZ L \\(M = 27 inducing points\\) lose")
})

test_that("predict.valla and plot.valla check type, prob_method and what by name", {
  expect_error(predict(vz$fit, vz$x, type = "nonsense"),
               "predict.valla: 'type' must be one of \"list\", \"response\", \"class\" \\(got \"nonsense\"\\)")
  expect_error(predict(vz$fit, vz$x, type = NA), "predict.valla: 'type' must be one of .* \\(got NA\\)")
  expect_error(predict(vz$fit, vz$x, type = c("list", "class")), "'type' must be one of .* \\(got 2 strings\\)")
  expect_error(predict(vz$fit_c, vz$x, prob_method = "z"), "'prob_method' must be one of \"probit\", \"mc\" \\(got \"z\"\\)")
  expect_error(predict(vz$fit_c, vz$x, prob_method = 1), "'prob_method' must be one of .* \\(got 1\\)")
  expect_error(plot(vz$fit, what = "x"), "plot.valla: 'what' is unknown: \"x\"")
  expect_length(predict(vz$fit, vz$x, type = "response"), vz$n)
  expect_identical(predict(vz$fit_c, vz$x), predict(vz$fit_c, vz$x, prob_method = "probit"))
})

test_that("tampered model, stop_reason and levels of a valla fit are refused by name", {
  set <- function(fit, name, value) { fit[name] <- list(value); fit }
  fit <- vz$fit
  for (f in list(function(o) predict(o, vz$x), print, summary, plot))
    expect_error(f(set(fit, "model", NA)), "'(object|x)\\$model' must be a network as plain data")
  expect_error(print(set(fit, "stop_reason", NA)), "print.valla: 'x\\$stop_reason' must be one of")
  expect_error(print(set(fit, "stop_reason", fit$stop_reason[-1])), "'x\\$stop_reason' must be one of")
  expect_output(print(set(fit, "stop_reason", NULL)), "valla")
  fc <- vz$fit_c
  expect_error(predict(set(fc, "levels", NA), vz$x, type = "class"),
               "'object\\$levels' must be empty or 3 distinct class names")
  expect_error(predict(set(fc, "levels", character(0)), vz$x, type = "class"),
               "'object\\$levels' must be empty or 3 distinct class names")
  expect_error(predict(set(fc, "levels", c("a", "a", "b")), vz$x), "'object\\$levels'")
  expect_error(predict(set(fit, "levels", "a"), vz$x), "'object\\$levels' must be empty for a gaussian fit")
  ok <- set(fc, "levels", c("a", "b", "c"))
  expect_identical(levels(predict(ok, vz$x, type = "class")), c("a", "b", "c"))
})

test_that("xtest beyond 1e100 and a model whose likelihood does not fit its outputs are named", {
  expect_error(vz$q(vz$net, vz$x, vz$y, xtest = vz$x[1:5, ] * 1e300),
               "valla: 'xtest' holds .* \\(at most 1e\\+100 in magnitude")
  # the fuzz run's modifyList spliced mlp_c's likelihood onto mlp's one-output weights
  spliced <- modifyList(list(model = vz$net), list(model = vz$net_c))$model
  expect_error(vz$q(spliced, vz$x, rep(1, vz$n)),
               "valla: 'model' says likelihood = \"softmax\" but has 1 output \\(softmax needs C >= 2\\)")
  one <- vz$q(vz$net_c, vz$x, rep(1, vz$n))  # one class present of the network's 3: a fit
  expect_true(all(is.finite(predict(one, vz$x)$prob)))
})

test_that("y and x of different lengths: the error names both", {
  expect_error(vz$q(vz$net, vz$x[-1, ], vz$y), "valla: 'y' has length 30 but 'x' has 29 rows")
  expect_error(valla(vz$net, vz$x, vz$y, inducing = 5, iterations = 20, verbose = FALSE,
                     validation = list(vz$x[1:4, ], vz$y[1:5])),
               "'validation\\$y' has length 5 but 'validation\\$x' has 4 rows")
})
