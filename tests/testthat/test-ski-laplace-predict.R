# predict.ski_laplace from a fit given back as plain data: the core reads the
# fit's grid, weights, f, counts, offset, hyper and used, recomputes the
# curvature from f and runs the fit's own prediction code, so predict at the
# fit's xtest is identical to fit$test (the same arithmetic on the same
# numbers), also after saveRDS/readRDS; a damaged fit names the field.

skl_case <- function(...) {
  set.seed(3)
  g <- expand.grid(i = 1:12, j = 1:10)
  off <- rnorm(nrow(g), 0, 0.2)
  y <- rpois(nrow(g), exp(0.5 + sin(g$i / 3) + cos(g$j / 4) + off))
  off[seq(4, nrow(g), by = 6)] <- -Inf
  y[seq(4, nrow(g), by = 6)] <- 0
  xt <- cbind(c(1, 2.5, 6.2, 11.9, 7), c(1, 3.3, 9.9, 5, 2.25))
  list(fit = ski_laplace(y = matrix(y, 12, 10), offset = off, xtest = xt, verbose = FALSE, ...),
       xt = xt)
}

test_that("predict equals the fit's test, also after saveRDS/readRDS", {
  cc <- skl_case(lengthscale = c(2, 3), outputscale = 1.3, mean = 0.5, learn = character(0))
  fit <- cc$fit
  p <- predict(fit, cc$xt)
  expect_identical(p$mean, fit$test$mean)
  expect_identical(p$var, fit$test$var)
  expect_identical(p$response, fit$test$response)
  expect_identical(p$response_var, fit$test$response_var)
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f))
  saveRDS(fit, f)
  back <- readRDS(f)
  expect_identical(predict(back, cc$xt), p)
  expect_identical(predict(fit, cc$xt, type = "link"), fit$test$mean)
  expect_identical(predict(fit, cc$xt, type = "response"), fit$test$response)
  pn <- predict(fit, cc$xt, variance = "none")
  expect_identical(pn$mean, p$mean)
  expect_null(pn$var)
  # an exposure multiplies the rate's mean by exp(offset): a few ulps
  r2 <- predict(fit, cc$xt, type = "response", offset = rep(log(2), 5))
  expect_equal(r2, 2 * p$response, tolerance = 1e-14)
})

test_that("learned hyperparameters: predict equals the fit's test; logLik, nobs, coef", {
  cc <- skl_case(seed = 1)
  fit <- cc$fit
  expect_identical(predict(fit, cc$xt)$var, fit$test$var)
  ll <- logLik(fit)
  expect_equal(as.double(ll), fit$loglik)
  expect_equal(attr(ll, "df"), 3L)  # one lengthscale, the outputscale, the mean
  expect_equal(nobs(fit), length(fit$observed))
  expect_equal(names(coef(fit)), c("lengthscale", "outputscale", "mean"))
})

test_that("a damaged fit or a bad argument gives an error naming it", {
  cc <- skl_case(lengthscale = 2, outputscale = 1, mean = 0.5, learn = character(0))
  fit <- cc$fit
  bad <- fit; bad$weights <- bad$weights[1:10]
  expect_error(predict(bad, cc$xt),
               "predict.ski_laplace: 'object$weights' has 10 values; need 120 (one per grid point)",
               fixed = TRUE)
  bad <- fit; bad$used <- NULL
  expect_error(predict(bad, cc$xt), "'object$used' is missing", fixed = TRUE)
  bad <- fit; bad$f <- as.character(bad$f)
  expect_error(predict(bad, cc$xt), "'object$f' must be numeric", fixed = TRUE)
  bad <- fit; bad$hyper$lengthscale <- -1
  expect_error(predict(bad, cc$xt), "'object$hyper$lengthscale' must be", fixed = TRUE)
  bad <- fit; bad$used$likelihood <- "nope"
  expect_error(predict(bad, cc$xt), "'object$used$likelihood' must be one of", fixed = TRUE)
  expect_error(predict(fit, cc$xt, foo = 1), "'foo' is not an argument of predict.ski_laplace",
               fixed = TRUE)
  expect_error(predict(fit, cc$xt, type = "class"), "predict.ski_laplace: 'type'")
  expect_error(predict(fit, cbind(cc$xt, 1)), "newdata")
  expect_error(predict(fit, cc$xt, offset = 1:2), "'offset' must be 5 finite numbers")
  expect_error(predict(fit), "'newdata' is missing")
  bad <- fit; bad$weights <- NULL
  expect_error(logLik(bad), "logLik.ski_laplace: 'object$weights'", fixed = TRUE)
})
