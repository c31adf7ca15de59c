# valla on a network that overfits: the default takes the noise from
# residuals the network did not fit (out-of-fold refits of an nnet) and warns; with
# unseen validation data the noise is the minimizer of their NLL and the kept state is
# the best checked one, not the start. mlp_fit standardizes gaussian targets.

boston_split <- function() {
  skip_if_not_installed("MASS")
  skip_if_not_installed("nnet")
  X <- scale(as.matrix(MASS::Boston[, -14]))
  y <- MASS::Boston$medv
  set.seed(2)
  te <- sample(nrow(X), 106)
  set.seed(102)
  xtr <- X[-te, ]; ytr <- y[-te]
  net <- nnet::nnet(xtr, ytr, size = 10, linout = TRUE, maxit = 1000, trace = FALSE)
  list(net = net, xtr = xtr, ytr = ytr, xte = X[te, ], yte = y[te])
}

cover <- function(p, y) mean(abs(y - p$mean) <= qnorm(0.975) * sqrt(p$var))

test_that("the default sees an overfitted nnet: wider intervals, honest coverage, a warning", {
  d <- boston_split()
  rmse <- function(x, y) sqrt(mean((y - predict(d$net, x))^2))
  # the premise: this network fits its training data far better than new data
  expect_gt(rmse(d$xte, d$yte) / rmse(d$xtr, d$ytr), 2)
  old <- valla(d$net, d$xtr, d$ytr, xtest = d$xte, noise_fit = "adam", folds = 0,
               iterations = 1000, seed = 1, verbose = FALSE)
  set.seed(5)
  expect_warning(new <- valla(d$net, d$xtr, d$ytr, xtest = d$xte, iterations = 1000, seed = 1,
                              verbose = FALSE),
                 "valla: the network's residuals on the validation data .* \\(overfitting\\)")
  expect_gt(mean(new$test$var), 2 * mean(old$test$var))
  # 106 test points, nominal 0.95: a binomial sd of 0.021, so 0.85 is 4.7 sd below;
  # the old default (noise from x's residuals) covers about 0.55 here
  expect_gte(cover(new$test, d$yte), 0.85)
  expect_gt(cover(new$test, d$yte), cover(old$test, d$yte) + 0.15)
})

test_that("with unseen validation data the noise minimizes their NLL and the best state is kept", {
  d <- boston_split()
  v <- 1:50
  xv <- d$xte[v, ]; yv <- d$yte[v]
  fit <- suppressWarnings(valla(d$net, d$xtr, d$ytr, validation = list(xv, yv),
                                iterations = 1000, seed = 1, verbose = FALSE))
  # oracle: the mean Gaussian NLL of the validation data at the kept state's latent
  # variances, minimized over log noise by optimize (tolerance 1e-10 in log s, so the
  # minimizer is found to ~1e-5 relative: a smooth minimum is flat to second order)
  p <- predict(fit, xv)
  r2 <- (yv - p$mean)^2
  nll <- function(ls) mean(log(p$latent_var + exp(ls)) + r2 / (p$latent_var + exp(ls)))
  best <- optimize(nll, c(-10, 10) + log(mean(r2)), tol = 1e-10)$minimum
  expect_equal(log(fit$noise), best, tolerance = 1e-4)
  h <- fit$history$validation
  expect_equal(fit$best_iteration, h$iteration[which.min(h$nll)])
  # the validation NLL improved after the first check, so the start is not kept
  expect_gt(fit$best_iteration, 1)
  # the paper's rule (Adam's noise on x) gives a noise the validation data reject
  adam <- suppressWarnings(valla(d$net, d$xtr, d$ytr, validation = list(xv, yv),
                                 noise_fit = "adam", iterations = 1000, seed = 1,
                                 verbose = FALSE))
  expect_lt(adam$noise, 0.5 * fit$noise)
})

test_that("refit is checked and used; folds = 0 keeps the hold-out", {
  d <- boston_split()
  expect_error(valla(d$net, d$xtr, d$ytr, refit = 3, verbose = FALSE),
               "valla: 'refit' must be a function")
  expect_error(valla(d$net, d$xtr, d$ytr, folds = 1, verbose = FALSE),
               "valla: 'folds' must be 0 or at least 2 \\(got 1\\)")
  calls <- 0
  f <- function(x, y) { calls <<- calls + 1; d$net }  # no refit: in-sample residuals
  fit <- valla(d$net, d$xtr, d$ytr, refit = f, folds = 3, iterations = 10, seed = 1,
               verbose = FALSE)
  expect_equal(calls, 3)
  expect_silent(valla(d$net, d$xtr, d$ytr, folds = 0, iterations = 10, seed = 1,
                      verbose = FALSE))
})

test_that("mlp_fit trains raw targets as well as standardized ones (mcycle)", {
  skip_if_not_installed("MASS")
  x <- scale(MASS::mcycle$times)
  y <- MASS::mcycle$accel
  m <- mean(y); s <- sqrt(mean((y - m)^2))
  raw <- mlp_fit(x, y, hidden = c(20, 20), iterations = 2000, lr = 0.01, seed = 1)
  std <- mlp_fit(x, (y - m) / s, hidden = c(20, 20), iterations = 2000, lr = 0.01, seed = 1)
  rmse_raw <- sqrt(mean((y - mlp_forward(raw, x))^2))
  rmse_std <- s * sqrt(mean(((y - m) / s - mlp_forward(std, x))^2))
  # both runs train on the same standardized targets up to the rounding of (y - m) / s
  # (1e-16 relative), which 2000 Adam steps do not amplify to 1e-6; without the
  # internal standardization the raw run ends near RMSE 39 against 21
  expect_equal(rmse_raw, rmse_std, tolerance = 1e-6)
  expect_equal(as.vector(mlp_forward(raw, x)), m + s * as.vector(mlp_forward(std, x)),
               tolerance = 1e-6)
  expect_lt(rmse_raw, 30)
  expect_equal(raw$loss, rmse_raw^2, tolerance = 1e-10)  # the loss is in y's units
})
