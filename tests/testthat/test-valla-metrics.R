# valla_metrics never turns bad input into NA/NaN: empty inputs,
# NA/NaN/Inf, mismatched lengths, non-positive variances, probabilities that are
# not probabilities and labels outside the classes are errors naming the
# argument (the core's messages).

test_that("valla_metrics refuses NA, empty and inconsistent inputs, naming the argument", {
  y <- c(0.1, -0.3, 1.2, 0.4); mu <- c(0, 0, 1, 0.5); v <- c(0.5, 1, 2, 0.3)
  P <- cbind(c(0.8, 0.3, 0.4, 0.6), c(0.2, 0.7, 0.6, 0.4)); lab <- c(1, 2, 2, 1)
  err <- function(expr, msg) expect_error(expr, paste0("valla_metrics: ", msg))
  err(valla_metrics(list(mean = numeric(0), var = numeric(0)), numeric(0)), "'y' is empty")
  err(valla_metrics(matrix(0, 0, 2), numeric(0)), "'y' is empty")
  err(valla_metrics(list(mean = mu, var = v), c(NA, y[-1])), "'y' contains NaN or Inf \\(row 1")
  err(valla_metrics(list(mean = c(mu[-4], NA), var = v), y), "'pred' contains NaN or Inf \\(row 4")
  err(valla_metrics(list(mean = mu, var = c(v[-1], NaN)), y), "'var' contains NaN or Inf")
  err(valla_metrics(list(mean = mu, var = replace(v, 2, 0)), y), "'var' must be positive \\(row 2\\)")
  err(valla_metrics(mu, y, var = v[-1]), "'var' must have one predictive variance per entry of y")
  err(valla_metrics(mu[-1], y, var = v), "'pred' must have one predictive mean per entry of y")
  err(valla_metrics(list(var = v), y), "'pred' is a list or struct without 'mean' or 'prob'")
  err(valla_metrics(replace(P, 3, NA), lab), "'pred' contains NaN or Inf \\(row 3")
  err(valla_metrics(P, c(lab[-1], NA)), "'y' contains NaN or Inf \\(row 4")
  err(valla_metrics(P, factor(c("a", "b", NA, "a"))), "'y' contains NaN or Inf \\(row 3")
  err(valla_metrics(P[-1, ], lab), "'pred' must have one row of probabilities per entry of y")
  err(valla_metrics(P * 2, lab), "'pred' 1.6 at row 1 is not a probability")
  err(valla_metrics(cbind(P, 0.1), lab), "'pred' row 1 sums to 1.1")
  err(valla_metrics(P, c(1, 2, 3, 1)), "'y' the label at row 3 is not one of the 2 classes")
  err(valla_metrics(P[, 2], c(0, 1, NA, 1)), "'y' contains NaN or Inf \\(row 3")
  err(valla_metrics(c(0.2, NA, 0.6, 0.4), c(0, 1, 1, 0)), "'pred' contains NaN or Inf \\(row 2")
  expect_error(valla_metrics(P, lab, bins = NA), "'bins' must be a whole number")
  # valid inputs still give the plain formulas; AUC is NA (not an error) for one class
  m <- valla_metrics(list(mean = mu, var = v), y)
  expect_equal(m[["nll"]], mean(0.5 * log(2 * pi * v) + (y - mu)^2 / (2 * v)), tolerance = 1e-14)
  mb <- valla_metrics(P[, 2], c(1, 1, 1, 1))
  expect_true(is.na(mb[["auc"]]))
  expect_equal(mb[["accuracy"]], mean(P[, 2] > 0.5))
})
