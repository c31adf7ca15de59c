# The count likelihoods of gp_laplace: binomial (trials per point) and the
# negative binomial NB2 (dispersion, offsets), against a dense Laplace oracle
# written out here: Newton on the dense K with each likelihood's formulas, and
# the evidence -1/2 a'(f - m) + log p(y | f) - 1/2 log|I + W^1/2 K W^1/2| at the
# mode. Newton with policy "cholesky" and the full budget reaches the mode to
# rounding (quadratic convergence), so the fit and the oracle agree to 1e-8
# relative with room for the conditioning of B (below 1e3 here); the evidence
# gradient against central differences (h = 1e-4: truncation ~1e-9, rounding
# ~1e-12 / h) to 1e-6 relative.

counts_case <- function(likelihood, n = 30) {
  set.seed(11)
  x <- matrix(sort(rnorm(n)))
  t <- sin(2 * x[, 1]) + 0.3 * rnorm(n)
  trials <- 1 + (seq_len(n) - 1) %% 7
  offset <- 0.3 * rnorm(n)
  y <- if (likelihood == "binomial") rbinom(n, trials, plogis(t))
       else rnbinom(n, size = 2.5, mu = exp(1 + t + offset))
  list(x = x, y = y, trials = trials, offset = offset, dispersion = 2.5,
       lengthscale = 0.8, outputscale = 1.3, mean = 0.4)
}

# log p(y | f) per point, its gradient and W = -d2 log p, from the formulas.
counts_lik <- function(cs, likelihood, f) {
  y <- cs$y
  if (likelihood == "binomial") {
    p <- plogis(f); t <- cs$trials
    return(list(lp = dbinom(y, t, p, log = TRUE), g = y - t * p, w = t * p * (1 - p)))
  }
  r <- cs$dispersion; mu <- exp(f + cs$offset)
  list(lp = dnbinom(y, size = r, mu = mu, log = TRUE), g = r * (y - mu) / (r + mu),
       w = r * mu * (y + r) / (r + mu)^2)
}

counts_oracle <- function(cs, likelihood, lengthscale = cs$lengthscale,
                          outputscale = cs$outputscale, mean = cs$mean) {
  K <- outputscale * exp(-as.matrix(dist(cs$x / lengthscale))^2 / 2)
  n <- nrow(K)
  f <- rep(mean, n)
  for (it in 1:100) {
    l <- counts_lik(cs, likelihood, f)
    sw <- sqrt(l$w)
    L <- chol(diag(n) + outer(sw, sw) * K)
    b <- l$w * (f - mean) + l$g
    a <- b - sw * backsolve(L, forwardsolve(t(L), sw * (K %*% b)))
    fn <- mean + drop(K %*% a)
    step <- max(abs(fn - f))
    f <- fn
    if (step < 1e-13) break
  }
  l <- counts_lik(cs, likelihood, f)
  sw <- sqrt(l$w)
  L <- chol(diag(n) + outer(sw, sw) * K)
  list(f = f, evidence = -0.5 * sum(a * (f - mean)) + sum(l$lp) - sum(log(diag(L))))
}

counts_fit <- function(cs, likelihood, ...) {
  args <- list(cs$x, cs$y, likelihood = likelihood, policy = "cholesky", max_iter = nrow(cs$x),
               max_newton = 50, tol = 1e-12, lengthscale = cs$lengthscale,
               outputscale = cs$outputscale, mean = cs$mean, learn = character(0),
               verbose = FALSE, seed = 1)
  args <- c(args, if (likelihood == "binomial") list(trials = cs$trials)
                  else list(offset = cs$offset, dispersion = cs$dispersion))
  args[names(list(...))] <- list(...)
  do.call(gp_laplace, args)
}

for (lik in c("binomial", "negbin")) {
  test_that(paste(lik, "mode and evidence match the dense Laplace oracle"), {
    cs <- counts_case(lik)
    fit <- counts_fit(cs, lik)
    expect_true(fit$converged)
    or <- counts_oracle(cs, lik)
    expect_lte(max(abs(fit$f[, 1] - or$f)) / max(abs(or$f)), 1e-8)
    expect_lte(abs(fit$loglik - or$evidence) / abs(or$evidence), 1e-8)
  })

  test_that(paste(lik, "evidence gradient matches central differences"), {
    cs <- counts_case(lik)
    fit <- counts_fit(cs, lik)
    h <- 1e-4
    ev <- function(dl = 0, ds = 0, dm = 0)
      counts_fit(cs, lik, lengthscale = cs$lengthscale * exp(dl),
                 outputscale = cs$outputscale * exp(ds), mean = cs$mean + dm)$loglik
    fd <- c((ev(dl = h) - ev(dl = -h)) / (2 * h), (ev(ds = h) - ev(ds = -h)) / (2 * h),
            (ev(dm = h) - ev(dm = -h)) / (2 * h))
    g <- fit$loglik_grad[c("lengthscale", "outputscale", "mean")]
    expect_lte(max(abs(g - fd) / pmax(abs(g), 1)), 1e-6)
  })
}

test_that("binomial labels and trials are checked, naming y or trials", {
  cs <- counts_case("binomial")
  y <- cs$y
  bad <- function(v) { y2 <- y; y2[3] <- v; y2 }
  expect_error(counts_fit(c(cs[-2], list(y = bad(-1))), "binomial"),
               "gp_laplace: 'y' binomial counts must be whole numbers in 0..trials \\(trials = 3\\) \\(element 3 is -1\\)")
  expect_error(counts_fit(c(cs[-2], list(y = bad(0.5))), "binomial"), "'y' binomial counts")
  expect_error(counts_fit(c(cs[-2], list(y = bad(4))), "binomial"), "element 3 is 4")
  expect_error(counts_fit(cs, "binomial", trials = replace(cs$trials, 5, 0)),
               "gp_laplace: 'trials' must be whole numbers >= 1 \\(element 5 is 0\\)")
  expect_error(counts_fit(cs, "binomial", trials = 1:3), "'trials' needs 1 or 30 values")
  expect_error(gp_laplace(cs$x, as.numeric(cs$y > 0), trials = cs$trials, verbose = FALSE),
               "'trials' is only used with likelihood = \"binomial\"")
})

test_that("binomial fits predict probabilities, summarize and plot", {
  cs <- counts_case("binomial")
  fit <- counts_fit(cs, "binomial")
  expect_identical(fit$trials, as.double(cs$trials))
  p <- predict(fit, cs$x[1:5, , drop = FALSE], type = "response")
  expect_true(all(p > 0 & p < 1))
  expect_error(predict(fit, cs$x, type = "class"), "needs a bernoulli or softmax fit")
  s <- summary(fit)
  expect_equal(s$loglik, sum(dbinom(cs$y, cs$trials, plogis(fit$f[, 1]), log = TRUE)),
               tolerance = 1e-12)
  pdf(NULL); on.exit(dev.off())
  expect_identical(plot(fit), fit)
  v <- scalegp:::laplace_plot_series(fit, 1L, 20)
  expect_identical(v$py, cs$y / cs$trials)
})

test_that("negbin labels and dispersion are checked, naming y or dispersion", {
  cs <- counts_case("negbin")
  y <- cs$y
  expect_error(counts_fit(c(cs[-2], list(y = replace(y, 3, -1))), "negbin"),
               "gp_laplace: 'y' negbin counts must be non-negative integers \\(element 3 is -1\\)")
  expect_error(counts_fit(c(cs[-2], list(y = replace(y, 3, 0.5))), "negbin"),
               "'y' negbin counts must be non-negative integers \\(element 3 is 0.5\\)")
  expect_error(counts_fit(cs, "negbin", dispersion = 0), "gp_laplace: 'dispersion' must be positive")
  expect_error(counts_fit(cs, "negbin", dispersion = -1), "'dispersion' must be positive")
  expect_error(counts_fit(cs, "negbin", trials = cs$trials),
               "'trials' is only used with likelihood = \"binomial\"")
})

test_that("negbin fits keep the dispersion, predict rates and summarize", {
  cs <- counts_case("negbin")
  fit <- counts_fit(cs, "negbin")
  expect_identical(fit$dispersion, 2.5)
  expect_equal(summary(fit)$loglik,
               sum(dnbinom(cs$y, size = 2.5, mu = exp(fit$f[, 1] + cs$offset), log = TRUE)),
               tolerance = 1e-12)
  p <- predict(fit, cs$x[1:4, , drop = FALSE])
  expect_equal(p$rate_mean, exp(p$mean + p$var / 2), tolerance = 1e-14)
  expect_identical(predict(fit, cs$x[1:4, , drop = FALSE], type = "response"), p$rate_mean)
  # a damaged dispersion is named by the fit check
  bad <- fit
  bad$dispersion <- -1
  expect_error(predict(bad, cs$x), "'object\\$dispersion' must be one positive finite number")
})
