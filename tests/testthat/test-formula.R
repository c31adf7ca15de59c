# The formula / data-frame interface (R/formula.R): a formula fit is the matrix
# fit on model.matrix's columns without the intercept, and predict rebuilds them.

formula_df <- function(n = 30) {
  set.seed(3)
  data.frame(x1 = runif(n, -2, 2), x2 = runif(n), g = factor(rep(c("a", "b", "c"), length.out = n)),
             h = rep(c("u", "v"), length.out = n), ok = rep(c(TRUE, FALSE, FALSE), length.out = n),
             o = ordered(rep(c("lo", "mid", "hi"), length.out = n), c("lo", "mid", "hi")),
             yb = rbinom(n, 1, 0.5), cnt = rpois(n, 2), expo = runif(n, 1, 2),
             stringsAsFactors = FALSE)
}

laplace_fixed <- function(...) {
  gp_laplace(..., lengthscale = 1, outputscale = 2, learn = character(0), seed = 1,
             verbose = FALSE)
}

test_that("a formula fit equals the matrix fit on model.matrix's columns", {
  df <- formula_df()
  fit <- laplace_fixed(yb ~ x1 + g + h + ok + o, data = df)
  mm <- model.matrix(~ x1 + g + h + ok + o, df)[, -1]
  ref <- laplace_fixed(mm, df$yb)
  expect_identical(unname(fit$x), unname(mm))
  expect_identical(colnames(fit$x), colnames(mm))
  expect_identical(fit$f, ref$f)
  expect_identical(fit$var, ref$var)
  expect_identical(predict(fit)$prob, predict(ref)$prob)
  expect_identical(fit$xlevels, list(g = c("a", "b", "c"), h = c("u", "v"),
                                     o = c("lo", "mid", "hi")))
  expect_identical(fit$contrasts$o, "contr.poly")
  expect_s3_class(fit$terms, "terms")
  # y ~ . takes every other column; the data frame may come second, as in lm
  dot <- laplace_fixed(yb ~ ., df[c("yb", "x1", "g", "h")])
  expect_identical(dot$f, laplace_fixed(model.matrix(~ x1 + g + h, df)[, -1], df$yb)$f)
})

test_that("a factor response keeps its levels and subset picks rows", {
  df <- formula_df()
  df$cls <- factor(ifelse(df$yb == 1, "yes", "no"))
  fit <- laplace_fixed(cls ~ x1 + x2, data = df, subset = x1 > -1.5)
  keep <- df$x1 > -1.5
  ref <- laplace_fixed(as.matrix(df[keep, c("x1", "x2")]), df$cls[keep])
  expect_identical(fit$f, ref$f)
  expect_identical(fit$levels, c("no", "yes"))
  expect_s3_class(predict(fit, df[1:3, ], type = "class"), "factor")
})

test_that("an offset() term is the poisson offset, at fit and predict", {
  df <- formula_df()
  fit <- laplace_fixed(cnt ~ x1 + offset(log(expo)), data = df, likelihood = "poisson")
  ref <- laplace_fixed(matrix(df$x1, dimnames = list(NULL, "x1")), df$cnt,
                       likelihood = "poisson", offset = log(df$expo))
  expect_identical(fit$f, ref$f)
  expect_identical(predict(fit, df[1:4, ])$rate_mean,
                   predict(ref, ref$x[1:4, , drop = FALSE], offset = log(df$expo[1:4]))$rate_mean)
  expect_error(laplace_fixed(cnt ~ x1 + offset(log(expo)), data = df, likelihood = "poisson",
                             offset = rep(0, 30)), "offset")
})

test_that("na.omit drops rows with NA; na.exclude pads the fitted values with NA", {
  df <- formula_df()
  df$x2[c(2, 5)] <- NA
  om <- laplace_fixed(yb ~ x1 + x2, data = df)
  ref <- laplace_fixed(as.matrix(df[-c(2, 5), c("x1", "x2")]), df$yb[-c(2, 5)])
  expect_identical(om$f, ref$f)
  expect_length(predict(om)$prob, 28)
  ex <- laplace_fixed(yb ~ x1 + x2, data = df, na.action = na.exclude)
  p <- predict(ex)
  expect_length(p$prob, 30)
  expect_true(all(is.na(p$prob[c(2, 5)])))
  expect_identical(p$prob[-c(2, 5)], predict(ref)$prob)
  expect_identical(fitted(ex), p$prob)
  expect_length(fitted(om), 28)
  # NA in new data gives NA there
  pn <- predict(om, df[1:3, ])
  expect_true(is.na(pn$mean[2]) && !anyNA(pn$mean[-2]))
  expect_error(laplace_fixed(yb ~ x1 + x2, data = df, na.action = na.fail), "missing values")
})

test_that("predict on a reordered data frame gives identical answers; missing names and new levels are errors", {
  df <- formula_df()
  fit <- laplace_fixed(yb ~ x1 + g + h, data = df)
  nd <- df[1:5, c("x1", "g", "h")]
  p <- predict(fit, nd)
  expect_identical(predict(fit, nd[5:1, c("h", "x1", "g")])$mean, rev(p$mean))
  expect_identical(predict(fit, nd[, c("h", "g", "x1")]), p)
  nd$g <- as.character(nd$g)  # character where the fit had a factor: same levels
  expect_identical(predict(fit, nd)$mean, p$mean)
  expect_error(predict(fit, df[1:3, c("x1", "h")]), "lacks the variable 'g'")
  expect_error(predict(fit, df[1:3, "x1", drop = FALSE]), "variables 'g', 'h'")
  bad <- df[1:3, ]
  bad$g <- c("a", "z", "a")
  expect_error(predict(fit, bad), "new level 'z' of factor 'g'")
  # xtest as a data frame goes through the same terms
  fx <- laplace_fixed(yb ~ x1 + g + h, data = df, xtest = df[1:5, c("h", "g", "x1")])
  expect_identical(fx$test$mean, p$mean)
})

test_that("data, subset, na.action without a formula and weights with one are errors", {
  df <- formula_df()
  expect_error(laplace_fixed(as.matrix(df[, 1:2]), df$yb, data = df), "only when 'x' is a formula")
  expect_error(laplace_fixed(yb ~ x1, data = df, weights = rep(1, 30)), "'weights' is not supported")
  expect_error(laplace_fixed(~ x1, data = df), "without a response")
})

test_that("ski_gsgp: a formula fit equals its matrix call; a factor predictor is an error naming it", {
  set.seed(4)
  df <- data.frame(b = runif(80), a = runif(80), g = factor(rep(c("p", "q"), 40)))
  df$y <- sin(3 * df$a) + df$b + rnorm(80, sd = 0.1)
  df$a[7] <- NA
  args <- list(lengthscale = 0.4, noise = 0.01, grid_size = 12, variance = "exact", seed = 1,
               verbose = FALSE)
  fit <- do.call(ski_gsgp, c(list(y ~ a + b, data = df), args))
  ok <- !is.na(df$a)
  ref <- do.call(ski_gsgp, c(list(cbind(a = df$a, b = df$b)[ok, ], df$y[ok]), args))
  expect_identical(fit$weights, ref$weights)
  nd <- df[1:8, c("b", "a")]
  p <- predict(fit, nd)
  expect_identical(p$mean[-7], predict(ref, as.matrix(nd[-7, c("a", "b")]))$mean)
  expect_true(is.na(p$mean[7]) && is.na(p$var[7]))
  expect_error(predict(fit, df[1:3, "b", drop = FALSE]), "lacks the variable 'a'")
  expect_error(ski_gsgp(y ~ a + g, data = df, lengthscale = 0.4, noise = 0.01),
               "ski_gsgp: 'x' has the factor predictor 'g'")
  expect_error(ski_gsgp(y ~ a + offset(b), data = df, lengthscale = 0.4, noise = 0.01),
               "has an offset\\(\\) term; only gp_laplace \\(poisson\\) takes one")
})

test_that("mlp_fit and valla: the network's formula builds its inputs; predict takes data frames", {
  set.seed(5)
  df <- data.frame(a = runif(40, -1, 1), g = factor(rep(c("p", "q", "r"), length.out = 40)))
  df$y <- sin(2 * df$a) + as.integer(df$g) / 3 + rnorm(40, sd = 0.1)
  mm <- model.matrix(~ a + g, df)[, -1]
  tr <- list(hidden = 6, iterations = 50, lr = 0.01, seed = 1)
  net <- do.call(mlp_fit, c(list(y ~ ., data = df), tr))
  ref <- do.call(mlp_fit, c(list(mm, df$y), tr))
  expect_identical(net$weights, ref$weights)
  expect_identical(net$coefnames, colnames(mm))
  expect_identical(mlp_forward(net, df[5:1, c("g", "a")]), mlp_forward(ref, mm[5:1, ]))
  expect_identical(mlp_forward(ref, mm[5:1, 3:1]), mlp_forward(ref, mm[5:1, ]))
  expect_error(mlp_forward(ref, mm[, 1:2]), "lacks the column 'gr'")
  lla <- list(method = "lla", prior_var = 1, noise = 0.05, seed = 1, verbose = FALSE)
  fit <- do.call(valla, c(list(net, y ~ ., data = df, xtest = df[1:4, ]), lla))
  vref <- do.call(valla, c(list(ref, mm, df$y, xtest = mm[1:4, ]), lla))
  expect_identical(fit$test, vref$test)
  nd <- df[1:4, c("g", "a")]
  nd$a[2] <- NA
  p <- predict(fit, nd)
  expect_identical(p$var[-2], predict(vref, mm[c(1, 3, 4), ])$var)
  expect_true(is.na(p$mean[2]))
  # a formula that is not the network's: the missing input column is named
  expect_error(do.call(valla, c(list(net, y ~ a, data = df), lla)),
               "lacks the columns 'gq', 'gr'")
  # a network's factor levels code the data even when a level is absent from it
  sub <- do.call(valla, c(list(net, y ~ ., data = df[df$g != "r", ]), lla))
  expect_identical(sub$d, 3L)
  # a named matrix meets the network's input names (reordered columns: same fit)
  expect_identical(do.call(valla, c(list(ref, mm[, 3:1], df$y, xtest = mm[1:4, ]), lla))$test,
                   vref$test)
  # validation as a data frame goes through the same terms
  tv <- list(inducing = 5, iterations = 20, seed = 1, verbose = FALSE)
  v <- do.call(valla, c(list(net, y ~ ., df[1:30, ], validation = df[31:40, ]), tv))
  v2 <- do.call(valla, c(list(ref, mm[1:30, ], df$y[1:30],
                              validation = list(mm[31:40, ], df$y[31:40])), tv))
  expect_identical(v$L, v2$L)
})

test_that("valla takes an nnet formula fit with a formula on the same data", {
  skip_if_not_installed("nnet")
  set.seed(6)
  df <- data.frame(a = runif(30), g = factor(rep(c("p", "q"), 15)))
  df$y <- df$a + as.integer(df$g) + rnorm(30, sd = 0.1)
  nn <- nnet::nnet(y ~ ., data = df, size = 3, linout = TRUE, trace = FALSE)
  lla <- list(method = "lla", prior_var = 1, noise = 0.05, seed = 1, verbose = FALSE)
  fit <- do.call(valla, c(list(nn, y ~ ., data = df), lla))
  mm <- model.matrix(~ a + g, df)[, -1]
  ref <- do.call(valla, c(list(nn, mm, df$y), lla))
  expect_identical(predict(fit, df[, c("g", "a")])$var, predict(ref, mm)$var)
  expect_identical(mlp_forward(nn, df[1:3, ]), mlp_forward(nn, mm[1:3, ]))
})

test_that("plot of a 2-D gp_laplace fit with named inputs draws (its grid has the names)", {
  set.seed(3)
  df <- data.frame(glu = runif(40), bmi = runif(40))
  df$y <- as.integer(df$glu + df$bmi > 1)
  fit <- suppressWarnings(gp_laplace(y ~ glu + bmi, data = df, verbose = FALSE, seed = 1))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_identical(plot(fit), fit)
})
