# gp_laplace's input scaling (option scale, the default): the kernel sees each
# column standardized where the lengthscale is not given, the fit keeps centre and
# scale, predict applies them, a given lengthscale is on the inputs' own scale.

sc_rbf <- function(a, b, ell, s) {
  a <- sweep(a, 2, ell, "/")
  b <- sweep(b, 2, ell, "/")
  d2 <- outer(rowSums(a^2), rowSums(b^2), "+") - 2 * a %*% t(b)
  s * exp(-0.5 * pmax(d2, 0))
}

# columns whose scales differ by 100 and more: a weight in pounds, a 0/1 and a count
sc_data <- function(n = 60, seed = 2) {
  set.seed(seed)
  x <- cbind(lwt = round(rnorm(n, 130, 30)), smoke = rbinom(n, 1, 0.4), ptl = rpois(n, 0.3))
  y <- rbinom(n, 1, plogis(-(x[, 1] - 130) / 30 + x[, 2] + 0.5 * x[, 3] - 0.5))
  xn <- cbind(lwt = c(95, 130, 210), smoke = c(1, 0, 1), ptl = c(0, 2, 1))
  list(x = x, y = y, xn = xn)
}

# (X - centre) / scale as the core computes it (the same IEEE operations)
sc_apply <- function(x, s) sweep(sweep(x, 2, s$centre), 2, s$scale, "/")

gls <- function(...) gp_laplace(..., seed = 1, verbose = FALSE)

test_that("scale = TRUE on x is scale = FALSE on x standardized by hand", {
  d <- sc_data()
  a <- gls(d$x, d$y)
  s <- a$scaling
  expect_true(s$scaled)
  expect_equal(s$centre, unname(colMeans(d$x)), tolerance = 1e-14)
  expect_equal(s$scale, unname(apply(d$x, 2, sd)), tolerance = 1e-14)
  # reported on the inputs' own scale: the one learned value times each sd
  expect_identical(a$kernel$lengthscale, s$lengthscale * s$scale)
  expect_identical(a$hyper$lengthscale, a$kernel$lengthscale)
  expect_length(a$loglik_grad, 3)  # one lengthscale, outputscale, mean: theta as learned
  z <- sc_apply(d$x, s)
  b <- gls(z, d$y, scale = FALSE)
  # the same evidence from a start that differs by rounding in the inputs: the
  # optimizer stops at a relative change of the evidence below ftol_rel = 1e-6,
  # so the two evidences agree to 1e-6 |L| and the learned log values to
  # sqrt(2e-6 |L| / |L''|) (|L| ~ 35, |L''| ~ 1 for 60 points: 1e-2); both
  # runs take the same steps unless a line-search decision flips at rounding
  expect_equal(a$loglik, b$loglik, tolerance = 1e-6)
  expect_equal(log(c(s$lengthscale, a$hyper$outputscale)),
               log(c(b$kernel$lengthscale, b$hyper$outputscale)), tolerance = 1e-2)
  # at the same hyperparameters the fits are one computation on the same doubles
  # (the core's standardized inputs are z bit for bit): the exact Laplace to rounding,
  # cond(B) eps ~ 1e3 * 2e-16, so 1e-10
  c <- gls(z, d$y, scale = FALSE, lengthscale = s$lengthscale,
           outputscale = a$hyper$outputscale, mean = a$hyper$mean, learn = character(0))
  expect_equal(a$f, c$f, tolerance = 1e-10)
  expect_equal(predict(a, d$xn)$prob, predict(c, sc_apply(d$xn, s))$prob, tolerance = 1e-10)
  expect_match(capture.output(print(a))[4], "^  inputs       standardized \\(centre: mean")
  expect_true(any(grepl("lengthscale [0-9.]+ learned on them is shown per column",
                        capture.output(summary(a)))))
})

test_that("predict applies the stored centre and scale to new inputs", {
  d <- sc_data()
  a <- gls(d$x, d$y, xtest = d$xn)
  s <- a$scaling
  # the predictive mean by hand: the prior mean plus K(z*, z) weights, with the
  # kernel on the standardized inputs; n = 60 terms of size |K| |w|: rounding 1e-13
  kz <- sc_rbf(sc_apply(d$xn, s), sc_apply(d$x, s), rep(s$lengthscale, 3), a$hyper$outputscale)
  p <- predict(a, d$xn)
  expect_equal(p$mean, a$hyper$mean + as.vector(kz %*% a$weights), tolerance = 1e-12)
  # the predictions made inside the fit call take the same path
  expect_identical(p, a$test)
  # the raw inputs with the kernel as reported (one lengthscale per column): the same
  # stationary kernel, the distances rounded differently
  kr <- sc_rbf(d$xn, d$x, a$kernel$lengthscale, a$hyper$outputscale)
  expect_equal(p$mean, a$hyper$mean + as.vector(kr %*% a$weights), tolerance = 1e-10)
})

test_that("a saved fit predicts identically; update keeps working", {
  d <- sc_data()
  a <- gp_laplace(d$x, d$y, seed = 1, verbose = FALSE)  # (update evaluates this call)
  f <- tempfile(fileext = ".rds")
  on.exit(unlink(f))
  saveRDS(a, f)
  r <- readRDS(f)
  expect_identical(predict(r, d$xn), predict(a, d$xn))
  expect_identical(coef(r), coef(a))
  u <- update(a, scale = FALSE)
  expect_false(u$scaling$scaled)
  expect_identical(u$scaling$scale, c(1, 1, 1))
  expect_identical(u$scaling$centre, c(0, 0, 0))
  # the reported lengthscales given back: the same model on the inputs' own scale
  g <- update(a, lengthscale = a$kernel$lengthscale, outputscale = a$hyper$outputscale,
              mean = a$hyper$mean, learn = character(0))
  expect_equal(predict(g, d$xn)$prob, predict(a, d$xn)$prob, tolerance = 1e-10)
})

test_that("a given lengthscale is on the inputs' own scale: centring only", {
  d <- sc_data()
  for (lik in c("bernoulli", "poisson")) {
    y <- if (lik == "poisson") rpois(60, 2) else d$y
    a <- gls(d$x, y, likelihood = lik, lengthscale = c(40, 1, 1), outputscale = 2)
    b <- gls(d$x, y, likelihood = lik, lengthscale = c(40, 1, 1), outputscale = 2, scale = FALSE)
    expect_false(a$scaling$scaled)
    expect_identical(a$scaling$scale, c(1, 1, 1))
    expect_identical(a$kernel$lengthscale, c(40, 1, 1))
    expect_match(a$scaling$note, "centred only: the lengthscale is given")
    # centring moves the distances by rounding only, 2 eps max|x| / ell per column
    # (~1e-14 for lwt ~ 200 at ell = 40), which the exact Laplace's conditioning
    # (cond(B) ~ 1e3 here) carries to 1e-11; 1e-9 leaves a margin
    expect_equal(a$f, b$f, tolerance = 1e-9)
    expect_equal(a$loglik, b$loglik, tolerance = 1e-9)
    expect_equal(predict(a, d$xn)$mean, predict(b, d$xn)$mean, tolerance = 1e-9)
  }
})

test_that("a fit saved before scaling (no scaling field) still predicts, as given", {
  d <- sc_data()
  b <- gls(d$x, d$y, scale = FALSE)
  old <- b
  old$scaling <- NULL
  expect_identical(predict(old, d$xn), predict(b, d$xn))
  expect_output(print(old), "gp_laplace")
  expect_false(any(grepl("inputs ", capture.output(print(old)))))
  # a damaged scaling is an error naming it
  bad <- gls(d$x, d$y)
  bad$scaling$scale <- bad$scaling$scale[1:2]
  expect_error(predict(bad, d$xn), "predict.gp_laplace: 'object$scaling' must be", fixed = TRUE)
  bad <- gls(d$x, d$y)
  bad$kernel$lengthscale <- bad$kernel$lengthscale * 2
  expect_error(predict(bad, d$xn), "'object$kernel' lengthscale must be scaling's", fixed = TRUE)
})

test_that("softmax, ARD, a constant column and a formula's dummies are scaled alike", {
  d <- sc_data()
  set.seed(5)
  y3 <- 1 + (d$x[, 1] + rnorm(60, 0, 30) > 125) + rbinom(60, 1, 0.4)
  a <- gls(d$x, y3, likelihood = "softmax")
  expect_true(a$scaling$scaled)
  expect_length(a$kernel$lengthscale, 3)
  # ARD learned (learn names the lengthscale, a start of d values is given): the
  # lengthscales are the user's, on the inputs' own scale, so no scaling
  ard <- gls(d$x, d$y, lengthscale = c(30, 1, 1), learn = "lengthscale")
  expect_false(ard$scaling$scaled)
  xc <- cbind(d$x, k = 5)
  cst <- gls(xc, d$y)
  expect_identical(cst$scaling$scale[4], 1)
  expect_identical(cst$scaling$centre[4], 5)
  expect_match(cst$scaling$note, "a constant column keeps scale 1")
  df <- data.frame(y = d$y, lwt = d$x[, 1], race = factor(rep(c("w", "b", "o"), 20)))
  ff <- gls(y ~ lwt + race, data = df)
  # R's sd sums differently: to rounding of a sum of 60 squares
  expect_equal(ff$scaling$scale, unname(apply(ff$x, 2, sd)), tolerance = 1e-14)
  p <- predict(ff, newdata = data.frame(lwt = c(100, 200), race = c("b", "o")))
  expect_length(p$prob, 2)
})

test_that("MASS::birthwt: the defaults' 5-fold log loss is no worse than glm's", {
  skip_if_not_installed("MASS")
  data("birthwt", package = "MASS", envir = environment())
  x <- stats::model.matrix(low ~ age + lwt + race + smoke + ptl + ht + ui + ftv, birthwt)[, -1]
  y <- birthwt$low
  set.seed(1)
  folds <- sample(rep(1:5, length.out = 189))
  ll <- function(p) -mean(y * log(p) + (1 - y) * log(1 - p))
  pg <- pl <- numeric(189)
  for (k in 1:5) {
    te <- folds == k
    g <- glm(y ~ ., data = data.frame(x[!te, ], y = y[!te]), family = binomial())
    pl[te] <- predict(g, data.frame(x[te, ]), type = "response")
    fit <- suppressWarnings(gls(x[!te, ], y[!te]))
    pg[te] <- predict(fit, x[te, ])$prob
  }
  # (inst/bench/bench_laplace_birthwt.R prints both: 0.5900 and glm's 0.5955)
  expect_lte(ll(pg), ll(pl))
})
