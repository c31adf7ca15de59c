# gp_laplace's model selection (the evidence, its gradient, the learned point) against
# the dense R oracle of helper-evidence.R. Tolerances:
# - the evidence: both sides are sums of O(n) terms of O(1..10) with Cholesky/LU
#   rounding ~ n eps cond(B) ~ 30 * 2e-16 * 1e2: 1e-8 has a wide margin;
# - the gradient equals the oracle's analytic gradient (the oracle's own test proves
#   that one against finite differences to 1e-6) to 1e-8 relative to max(|g|, 1);
# - the learned evidence is >= the best of 5 L-BFGS-B starts of R's optim - 1e-3.

sel_data <- function(lik, n = 30, seed = 3) {
  set.seed(seed)
  x <- matrix(rnorm(2 * n), n, 2)
  t <- sin(2 * x[, 1]) + 0.3 * rnorm(n)
  y <- switch(lik, bernoulli = as.integer(t > 0), poisson = rpois(n, exp(1 + t)),
              gaussian = 1.5 + t, softmax = 1L + (seq_len(n) %% 3L))
  list(x = x, y = y, offset = if (lik == "poisson") rnorm(n, sd = 0.2))
}

sel_fit <- function(d, lik, ...)
  gp_laplace(d$x, d$y, likelihood = lik, offset = d$offset, verbose = FALSE, seed = 1,
             max_iter = 100, ...)

test_that("the evidence and its gradient equal the dense oracle (bernoulli, poisson, gaussian, softmax)", {
  cases <- list(
    list(lik = "bernoulli", kernel = "rbf", ls = c(0.8, 1.5), s = 2, mean = 0.3, noise = 1),
    list(lik = "bernoulli", kernel = "matern52", ls = 1.1, s = 1, mean = -0.2, noise = 1),
    list(lik = "poisson", kernel = "matern32", ls = c(0.9, 1.3), s = 0.5, mean = 1, noise = 1),
    list(lik = "gaussian", kernel = "rbf", ls = 0.7, s = 1.3, mean = 1, noise = 0.2),
    list(lik = "softmax", kernel = "rbf", ls = 0.9, s = 2, mean = c(0.2, -0.1, 0.4), noise = 1))
  for (cs in cases) {
    d <- sel_data(cs$lik)
    fit <- sel_fit(d, cs$lik, kernel = cs$kernel, lengthscale = cs$ls, outputscale = cs$s,
                   mean = cs$mean, noise = if (cs$lik == "gaussian") cs$noise,
                   learn = character(0))
    o <- ev_laplace(d$x, d$y, cs$lik, cs$kernel, cs$ls, cs$s, mean = cs$mean,
                    noise = cs$noise, offset = d$offset)
    expect_lte(abs(fit$loglik - (o$loglik)), 1e-8, label = cs$lik)
    g <- ev_grad(d$x, d$y, cs$lik, cs$kernel, cs$ls, cs$s, mean = cs$mean, noise = cs$noise,
                 offset = d$offset)
    expect_equal(names(fit$loglik_grad), names(g), label = cs$lik)
    expect_lte(max(abs(fit$loglik_grad - g) / pmax(abs(g), 1)), 1e-8, label = cs$lik)
    expect_length(fit$learned, 0)
  }
})

test_that("learned hyperparameters reach the best of 5 optim() starts on the dense evidence", {
  for (lik in c("bernoulli", "poisson", "gaussian")) {
    d <- sel_data(lik, n = 40)
    # the oracle learns on the raw inputs: so does the fit (scale = FALSE; with
    # scaling its one lengthscale would be reported per column, which the oracle
    # would take for ARD)
    fit <- sel_fit(d, lik, learn = "auto", scale = FALSE)
    expect_setequal(fit$learned, c("lengthscale", "outputscale", "mean",
                                   if (lik == "gaussian") "noise"))
    h <- fit$hyper
    # a random start of the oracle can leave the region where its own Newton converges
    ref <- suppressWarnings(ev_optim(d$x, d$y, lik, "rbf", h$lengthscale, h$outputscale, mean = h$mean,
                    noise = h$noise %||% 1, offset = d$offset, starts = 5, seed = 1,
                    learn = fit$learned))
    expect_gte(fit$loglik, ref$loglik - 1e-3, label = lik)
    # the reported evidence is the oracle's at the learned values, and stationary
    o <- ev_laplace(d$x, d$y, lik, "rbf", h$lengthscale, h$outputscale, mean = h$mean,
                    noise = h$noise %||% 1, offset = d$offset)
    expect_lte(abs(fit$loglik - (o$loglik)), 1e-8)
    expect_equal(nrow(fit$optim), max(fit$optim$evaluation))
  }
})

test_that("what is given is fixed, learn names what is learned, and bad values are refused", {
  d <- sel_data("bernoulli")
  a <- sel_fit(d, "bernoulli", lengthscale = 0.7, learn = "auto")
  expect_equal(a$hyper$lengthscale, 0.7)
  expect_setequal(a$learned, c("outputscale", "mean"))
  expect_setequal(sel_fit(d, "bernoulli")$learned, c("lengthscale", "outputscale", "mean"))
  # all fixed: 1, 1, 0 where not given; on the raw inputs as the oracle's (scale = FALSE:
  # else the default lengthscale 1 is on the standardized inputs)
  z <- sel_fit(d, "bernoulli", learn = character(0), scale = FALSE)
  expect_equal(z$hyper[c("lengthscale", "outputscale", "mean")],
               list(lengthscale = 1, outputscale = 1, mean = 0))
  expect_length(z$learned, 0)
  expect_lte(abs(z$loglik - (ev_laplace(d$x, d$y, "bernoulli")$loglik)), 1e-8)
  b <- sel_fit(d, "bernoulli", lengthscale = 0.7, learn = "lengthscale", outputscale = 1, mean = 0)
  expect_equal(b$learned, "lengthscale")
  expect_equal(b$hyper$outputscale, 1)
  # a maximum in what was learned: the optimizer stops at a relative change of 1e-6
  # (|dL| ~ 2e-5 here), far less than the evidence falls 20% away in log lengthscale
  # (1/2 |L''| 0.04 with |L''| of order 1 for 30 points); 1e-8 covers the rounding
  for (step in c(-0.2, 0.2))
    expect_gte(b$loglik, ev_laplace(d$x, d$y, "bernoulli", "rbf", b$hyper$lengthscale * exp(step), 1,
                                    mean = 0)$loglik - 1e-8)
  expect_error(sel_fit(d, "bernoulli", learn = "noise"),
               "gp_laplace: 'learn' names \"noise\", which only likelihood = \"gaussian\" has")
  expect_error(sel_fit(d, "bernoulli", learn = "slope"), "'learn' has unknown entries \"slope\"")
  expect_error(sel_fit(d, "bernoulli", mean = c(1, 2)), "gp_laplace: 'mean' has 2 values; need 1")
  expect_error(sel_fit(d, "bernoulli", optim_max_iter = 0), "'optim_max_iter' must be")
})

test_that("predictions use the learned constant mean, also from a saved fit", {
  d <- sel_data("poisson")
  fit <- sel_fit(d, "poisson", learn = "auto", xtest = d$x[1:5, ], xtest_offset = rep(0, 5))
  p <- scalegp:::predict.gp_laplace(unclass(fit), d$x[1:5, ], offset = rep(0, 5))
  expect_equal(p$mean, fit$test$mean, tolerance = 1e-12)
  bad <- unclass(fit)
  bad$hyper$mean <- c(1, 2)
  expect_error(scalegp:::predict.gp_laplace(bad, d$x[1:2, ], offset = c(0, 0)),
               "predict.gp_laplace: 'object$hyper$mean' must be one number", fixed = TRUE)
  bad$hyper$mean <- NaN
  expect_error(scalegp:::predict.gp_laplace(bad, d$x[1:2, ], offset = c(0, 0)),
               "predict.gp_laplace: 'object$hyper$mean' contains NaN", fixed = TRUE)
  far <- predict(fit, matrix(100, 1, 2), offset = 0)  # far from the data: the prior mean
  expect_equal(far$mean, fit$hyper$mean, tolerance = 1e-10)
})

test_that("a learned value stopped at its bound is a warning naming it, not a silent optimum", {
  # alternating labels at lengthscale 3: no signal, the evidence rises as the
  # outputscale falls, to the bound 1e-4 x its start (1 for bernoulli)
  x <- matrix(1:20); y <- rep(0:1, 10)
  expect_warning(f <- gp_laplace(x, y, lengthscale = 3, seed = 1, verbose = FALSE),
                 "outputscale stopped at its lower bound 0.0001 \\(the evidence still rises there\\)")
  expect_equal(f$hyper$outputscale, 1e-4, tolerance = 1e-6)
  expect_true("outputscale" %in% f$learned)
})
