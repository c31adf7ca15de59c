# The stats generics on every fit class: logLik (and AIC / BIC through it), nobs,
# coef, update (the fit's call), predict(type = "link", se.fit = TRUE).
# The oracles are the fit's own fields and the formulas AIC = -2 loglik + 2 df,
# BIC = -2 loglik + log(n) df: the methods only rearrange numbers, so equality
# is exact up to the rounding of that arithmetic (a few ulps).

mt_n <- 40
mt_x <- local({ set.seed(11); matrix(runif(2 * mt_n, -2, 2), mt_n) })
mt_bern <- local({ set.seed(12); rbinom(mt_n, 1, plogis(2 * sin(mt_x[, 1]))) })
mt_gauss <- local({ set.seed(13); sin(2 * mt_x[, 1]) + rnorm(mt_n, sd = 0.2) })
mt_count <- local({ set.seed(14); rpois(mt_n, exp(0.5 + cos(mt_x[, 1]))) })

expect_information_criteria <- function(fit, ll, df, n) {
  L <- logLik(fit)
  expect_s3_class(L, "logLik")
  expect_identical(as.numeric(L), ll)
  expect_identical(attr(L, "df"), as.integer(df))
  expect_identical(attr(L, "nobs"), as.integer(n))
  expect_identical(nobs(fit), as.integer(n))
  expect_equal(AIC(fit), -2 * ll + 2 * df, tolerance = 1e-14)
  expect_equal(BIC(fit), -2 * ll + log(n) * df, tolerance = 1e-14)
}

test_that("logLik, AIC, BIC and nobs of gp_laplace: the evidence, df = learned coordinates", {
  fit <- gp_laplace(mt_x, mt_bern, max_iter = 40, seed = 1, verbose = FALSE)
  expect_setequal(fit$learned, c("lengthscale", "outputscale", "mean"))
  expect_information_criteria(fit, fit$loglik, 3, mt_n)
  # ARD: each lengthscale is one coordinate; a given value is not counted
  ard <- gp_laplace(mt_x, mt_bern, lengthscale = c(1, 2), outputscale = 2,
                    learn = "lengthscale", seed = 1, verbose = FALSE)
  expect_information_criteria(ard, ard$loglik, 2, mt_n)
  # softmax: one mean per class
  cls <- as.integer(cut(mt_x[, 1], c(-Inf, -0.7, 0.7, Inf)))
  soft <- gp_laplace(mt_x, cls, likelihood = "softmax", lengthscale = 1, outputscale = 2,
                     learn = "mean", max_iter = 200, seed = 1, verbose = FALSE)
  expect_length(soft$hyper$mean, 3L)
  expect_information_criteria(soft, soft$loglik, 3, mt_n)
  # nothing learned: df 0, the evidence at the given values
  none <- gp_laplace(mt_x, mt_bern, lengthscale = 1, outputscale = 2, learn = character(0),
                     seed = 1, verbose = FALSE)
  expect_information_criteria(none, none$loglik, 0, mt_n)
  # an evidence not computed (as the core leaves it: NA, no gradient): the error
  # says how to have it
  na <- fit
  na$loglik <- na$loglik_se <- NA_real_
  na$loglik_grad <- stats::setNames(numeric(0), character(0))
  expect_error(logLik(na), "logLik.gp_laplace: .*'object\\$loglik' is NA.*evidence = \"stochastic\"")
  expect_error(AIC(na), "logLik.gp_laplace: ")
})

test_that("coef of gp_laplace is the hyperparameters used, named", {
  fit <- gp_laplace(mt_x, mt_gauss, likelihood = "gaussian", seed = 1, verbose = FALSE)
  cf <- coef(fit)
  # the inputs are standardized (option scale): the one lengthscale learned on them
  # is shown per column on the inputs' own scale, but counts once in df
  expect_named(cf, c("lengthscale1", "lengthscale2", "outputscale", "mean", "noise"))
  expect_identical(unname(cf), c(fit$hyper$lengthscale, fit$hyper$outputscale,
                                 fit$hyper$mean, fit$hyper$noise))
  expect_identical(fit$hyper$lengthscale, fit$scaling$lengthscale * fit$scaling$scale)
  expect_information_criteria(fit, fit$loglik, 4, mt_n)
  ard <- gp_laplace(mt_x, mt_bern, lengthscale = c(1, 2), outputscale = 2, learn = character(0),
                    seed = 1, verbose = FALSE)
  expect_identical(coef(ard), c(lengthscale1 = 1, lengthscale2 = 2, outputscale = 2, mean = 0))
})

test_that("update refits gp_laplace with a changed argument, also from a formula and a file", {
  fit <- gp_laplace(mt_x, mt_bern, max_iter = 40, seed = 1, verbose = FALSE)
  expect_true(is.call(fit$call))
  fit2 <- update(fit, lengthscale = 1)
  expect_s3_class(fit2, "gp_laplace")
  expect_identical(coef(fit2)[["lengthscale"]], 1)
  expect_false("lengthscale" %in% fit2$learned)  # a given value is fixed
  df <- data.frame(a = mt_x[, 1], b = mt_x[, 2], y = mt_bern)
  ff <- gp_laplace(y ~ a + b, data = df, max_iter = 40, seed = 1, verbose = FALSE)
  expect_identical(ff$call[[2L]], quote(y ~ a + b))  # the user's call, not the matrix one
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f))
  saveRDS(ff, f)
  back <- readRDS(f)
  ff2 <- update(back, lengthscale = 1)
  expect_identical(coef(ff2)[["lengthscale"]], 1)
  expect_identical(colnames(ff2$x), c("a", "b"))
  expect_equal(predict(ff2, newdata = df[1:3, ], type = "link"),
               predict(ff2, mt_x[1:3, , drop = FALSE], type = "link"), tolerance = 0)
})

test_that("predict.gp_laplace type = \"link\" and se.fit as glm's", {
  fit <- gp_laplace(mt_x, mt_bern, lengthscale = 1, outputscale = 2, learn = character(0),
                    max_iter = 40, seed = 1, verbose = FALSE)
  xs <- mt_x[1:5, , drop = FALSE]
  p <- predict(fit, xs)
  expect_identical(predict(fit, xs, type = "link"), p$mean)
  lk <- predict(fit, xs, type = "link", se.fit = TRUE)
  expect_named(lk, c("fit", "se.fit"))
  expect_identical(lk$fit, p$mean)
  expect_identical(lk$se.fit, sqrt(p$var))
  # response, logit link: the delta method at the latent mean
  rs <- predict(fit, xs, type = "response", se.fit = TRUE)
  q <- plogis(p$mean)
  expect_identical(rs$fit, p$prob)
  expect_equal(rs$se.fit, q * (1 - q) * sqrt(p$var), tolerance = 1e-15)
  # log link: the rate's sd under the latent posterior (the core's rate_var)
  pois <- gp_laplace(mt_x, mt_count, likelihood = "poisson", lengthscale = 1, outputscale = 1,
                     learn = character(0), max_iter = 40, seed = 1, verbose = FALSE)
  pp <- predict(pois, xs)
  rp <- predict(pois, xs, type = "response", se.fit = TRUE)
  expect_identical(rp, list(fit = pp$rate_mean, se.fit = sqrt(pp$rate_var)))
  expect_equal(rp$se.fit, sqrt(expm1(pp$var) * exp(2 * pp$mean + pp$var)), tolerance = 1e-13)
  # identity link: the latent sd (not the new observation's y_var)
  gau <- gp_laplace(mt_x, mt_gauss, likelihood = "gaussian", lengthscale = 1, outputscale = 1,
                    noise = 0.04, learn = character(0), max_iter = 40, seed = 1, verbose = FALSE)
  pg <- predict(gau, xs)
  expect_identical(predict(gau, xs, type = "response", se.fit = TRUE),
                   list(fit = pg$mean, se.fit = sqrt(pg$var)))
  # softmax: link gives the matrices; response has no se.fit
  cls <- as.integer(cut(mt_x[, 1], c(-Inf, -0.7, 0.7, Inf)))
  soft <- gp_laplace(mt_x, cls, likelihood = "softmax", lengthscale = 1, outputscale = 2,
                     learn = character(0), max_iter = 200, seed = 1, verbose = FALSE)
  ps <- predict(soft, xs)
  ls <- predict(soft, xs, type = "link", se.fit = TRUE)
  expect_identical(dim(ls$fit), c(5L, 3L))
  expect_identical(ls, list(fit = ps$mean, se.fit = sqrt(ps$var)))
  expect_error(predict(soft, xs, type = "response", se.fit = TRUE),
               "predict.gp_laplace: 'se.fit' with type = \"response\" is not available for softmax")
  # se.fit with the list or class, a misspelled option, a bad se.fit: errors naming them
  expect_error(predict(fit, xs, se.fit = TRUE), "predict.gp_laplace: 'se.fit' is for type = ")
  expect_error(predict(fit, xs, type = "class", se.fit = TRUE), "'se.fit' is for type = ")
  expect_error(predict(fit, xs, se_fit = TRUE),
               "predict.gp_laplace: 'se_fit' is not an argument of predict.gp_laplace")
  expect_error(predict(fit, xs, se.fit = NA), "predict.gp_laplace: 'se.fit' must be TRUE or FALSE")
  expect_error(predict(fit, xs, type = "nonsense"),
               "'type' must be one of \"list\", \"response\", \"class\", \"link\"")
})

test_that("logLik, AIC, BIC, nobs, coef, update and se.fit of ski_gsgp", {
  x1 <- mt_x[, 1]
  fit <- ski_gsgp(x1, mt_gauss, lengthscale = 0.5, outputscale = 1, noise = 0.04,
                  loglik = TRUE, verbose = FALSE)
  expect_identical(fit$learned, "mean")  # the GLS mean, estimated from the data
  expect_information_criteria(fit, fit$loglik, 1, mt_n)
  expect_identical(coef(fit), c(lengthscale = 0.5, outputscale = 1, mean = fit$hyper$mean,
                                noise = 0.04))
  learned <- suppressWarnings(ski_gsgp(x1, mt_gauss, loglik = TRUE, verbose = FALSE))
  expect_setequal(learned$learned, c("lengthscale", "outputscale", "mean", "noise"))
  expect_information_criteria(learned, learned$loglik, 4, mt_n)
  # no loglik: the error says how to have it
  plain <- ski_gsgp(x1, mt_gauss, lengthscale = 0.5, outputscale = 1, noise = 0.04,
                    verbose = FALSE)
  expect_error(logLik(plain), "logLik.ski_gsgp: .*refit with loglik = TRUE")
  expect_error(BIC(plain), "logLik.ski_gsgp: ")
  expect_identical(nobs(plain), as.integer(mt_n))
  # update: the call is kept
  fit2 <- update(fit, lengthscale = 1)
  expect_identical(coef(fit2)[["lengthscale"]], 1)
  expect_false(is.null(fit2$loglik))  # loglik = TRUE came along
  df <- data.frame(a = x1, y = mt_gauss)
  ff <- ski_gsgp(y ~ a, data = df, lengthscale = 0.5, outputscale = 1, noise = 0.04,
                 verbose = FALSE)
  expect_identical(coef(update(ff, lengthscale = 1))[["lengthscale"]], 1)
  # se.fit: the latent sd
  xs <- c(-1, 0, 1)
  p <- predict(fit, xs, variance = "exact")
  expect_identical(predict(fit, xs, variance = "exact", se.fit = TRUE),
                   list(fit = p$mean, se.fit = sqrt(p$var)))
  expect_error(predict(fit, xs, variance = "none", se.fit = TRUE),
               "predict.ski_gsgp: 'se.fit' needs variances")
  expect_error(predict(fit, xs, se_fit = TRUE),
               "predict.ski_gsgp: 'se_fit' is not an argument of predict.ski_gsgp")
})

test_that("valla: no logLik (an error saying why), nobs, coef, update and se.fit", {
  net <- mlp_fit(mt_x, mt_gauss, hidden = 8, iterations = 300, lr = 0.01, seed = 1)
  fit <- valla(net, mt_x, mt_gauss, method = "lla", noise = 0.04, prior_var = 1, seed = 1,
               verbose = FALSE)
  expect_error(logLik(fit), "logLik.valla: a valla fit has no log-likelihood")
  expect_error(AIC(fit), "logLik.valla: ")
  expect_identical(nobs(fit), as.integer(mt_n))
  expect_identical(coef(fit), c(prior_var = 1, noise = 0.04))
  fit2 <- update(fit, prior_var = 2)
  expect_identical(coef(fit2), c(prior_var = 2, noise = 0.04))
  xs <- mt_x[1:4, , drop = FALSE]
  p <- predict(fit, xs)
  expect_identical(predict(fit, xs, type = "response", se.fit = TRUE),
                   list(fit = p$mean, se.fit = sqrt(p$latent_var)))
  expect_error(predict(fit, xs, se.fit = TRUE),
               "predict.valla: 'se.fit' is for type = \"response\"")
  expect_error(predict(fit, xs, se_fit = TRUE),
               "predict.valla: 'se_fit' is not an argument of predict.valla")
})
