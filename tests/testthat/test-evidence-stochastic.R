# gp_laplace with evidence = "stochastic" (docs/gp_laplace.md, "Stochastic evidence"): learning on
# the matrix-free estimate against learning on the exact evidence. The estimate is
# q^(theta) = q(theta) + e(theta), its probes fixed for the whole optimization, with
# |e| <= 3 se (se = loglik_se) except with probability ~0.3%; its gradient g^ is
# unbiased for grad q with noise of its own (sd_g, measured here over other probe
# seeds), and L-BFGS follows g^ (its line searches see g^ integrated along the
# steps, kept within 3 se of q^: optim.c's path values): it stops where g^ ~ 0,
# i.e. where the exact
# gradient is g = -(g^ - g), at most 4 sd_g in each coordinate. In the quadratic
# model of q around that point (Hessian H by central differences of the exact
# gradient) the exact optimum is then at most 1/2 |e|'|(-H)^-1||e| (e = 4 sd_g,
# signs at their worst) higher, and the value's own noise adds 6 se (the two
# estimates q^(theta_s), q^(theta_e) it compares): q(theta_s) >= q(theta_e) -
# 6 se - that. The estimate at theta_s is checked against the exact value there to
# 4 se (3 se, and the optimizer picks a favourable e).

st_data <- function(lik, n = 200, seed = 4) {
  set.seed(seed)
  x <- matrix(rnorm(2 * n), n, 2)
  t <- sin(2 * x[, 1]) + cos(x[, 2]) + 0.3 * rnorm(n)
  y <- switch(lik, bernoulli = as.integer(t > 0.3), poisson = rpois(n, exp(0.5 + t)),
              gaussian = 1 + t)
  list(x = x, y = y, offset = if (lik == "poisson") rnorm(n, sd = 0.2))
}

# Warnings are not the subject here: the fit's own solver may stop at max_newton
# (its budget, after the evidence), and L-BFGS on the estimate may end on "the line
# search could not improve" where the values lead (the estimated gradient is not
# exactly the derivative of the estimated value: both are unbiased for the exact
# ones, with their own noise). The inputs are used as they are (scale = FALSE):
# the learned values are then the coordinates st_at gives back (one isotropic
# lengthscale, not one per column on the inputs' scale).
st_fit <- function(d, lik, ...)
  suppressWarnings(gp_laplace(d$x, d$y, likelihood = lik, offset = d$offset, verbose = FALSE,
                              seed = 1, max_iter = 100, scale = FALSE, ...))

# The fit at hyperparameters given on the coordinates of loglik_grad (log lengthscale,
# log outputscale, mean, log noise), nothing learned.
st_at <- function(d, lik, th, evidence, seed = 1)
  suppressWarnings(gp_laplace(d$x, d$y, likelihood = lik, offset = d$offset, verbose = FALSE,
                              seed = seed, max_iter = 100, lengthscale = exp(th[1]),
                              outputscale = exp(th[2]), mean = th[3],
                              noise = if (lik == "gaussian") exp(th[4]), learn = character(0),
                              evidence = evidence))

# 1/2 e'|(-H)^-1| e at the learned values h, e = 4 sd of the estimated gradient
# over 8 other probe seeds (see the top of the file).
grad_noise_loss <- function(d, lik, h) {
  th <- c(log(h$lengthscale), log(h$outputscale), h$mean, if (lik == "gaussian") log(h$noise))
  step <- 1e-4
  H <- sapply(seq_along(th), function(j) {
    dj <- replace(numeric(length(th)), j, step)
    (st_at(d, lik, th + dj, "exact")$loglik_grad - st_at(d, lik, th - dj, "exact")$loglik_grad) /
      (2 * step)
  })
  H <- (H + t(H)) / 2
  g <- sapply(2:9, function(seed) st_at(d, lik, th, "stochastic", seed)$loglik_grad)
  e <- 4 * apply(g, 1, sd)
  0.5 * sum(abs(solve(-H)) * outer(e, e))
}

test_that("learning on the stochastic evidence reaches the exact optimum within its standard error", {
  for (lik in c("bernoulli", "poisson", "gaussian")) {
    d <- st_data(lik)
    learn <- c("lengthscale", "outputscale", "mean", if (lik == "gaussian") "noise")
    ex <- st_fit(d, lik, learn = learn, evidence = "exact")
    st <- st_fit(d, lik, learn = learn, evidence = "stochastic")
    expect_identical(ex$loglik_se, 0, label = lik) # exact
    se <- st$loglik_se
    expect_true(is.finite(se) && se > 0, label = lik)
    expect_setequal(st$learned, learn)
    h <- st$hyper
    at <- st_fit(d, lik, lengthscale = h$lengthscale, outputscale = h$outputscale,
                 mean = h$mean, noise = h$noise, learn = character(0), evidence = "exact")
    expect_gte(at$loglik, ex$loglik - 6 * se - grad_noise_loss(d, lik, h), label = lik)
    expect_lte(abs(st$loglik - at$loglik), 4 * se, label = lik)
    expect_equal(names(st$loglik_grad), names(ex$loglik_grad), label = lik)
  }
})

test_that("the stochastic evidence is reported with its standard error, also when nothing is learned", {
  d <- st_data("bernoulli")
  fit <- st_fit(d, "bernoulli", lengthscale = 1, outputscale = 1, mean = 0,
                learn = character(0), evidence = "stochastic", probes = 8)
  expect_true(is.finite(fit$loglik) && is.finite(fit$loglik_se) && fit$loglik_se > 0)
  expect_output(print(fit), "se ")
})

test_that("softmax has the exact evidence only", {
  set.seed(1)
  x <- matrix(rnorm(60), 30, 2)
  expect_error(gp_laplace(x, 1 + (seq_len(30) %% 3), likelihood = "softmax", learn = "auto",
                          evidence = "stochastic", verbose = FALSE),
               "softmax has the exact evidence only")
})
