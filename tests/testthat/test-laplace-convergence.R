# gp_laplace's convergence is honest: converged = TRUE only when the
# mode is found to tol, checked against dense Newton/Laplace in plain R.

# Bernoulli-logit Laplace at the mode (R&W Alg. 3.1 in the a-form, and the
# variance by the B = I + W^1/2 K W^1/2 Cholesky), Newton to rounding.
dense_bernoulli <- function(K, y) {
  n <- length(y); f <- numeric(n)
  for (it in 1:200) {
    p <- plogis(f); W <- p * (1 - p)
    fn <- (K %*% solve(diag(n) + W * K, W * f + y - p))[, 1]
    step <- max(abs(fn - f)); f <- fn
    if (step < 1e-14 * max(1, abs(f))) break
  }
  p <- plogis(f); sW <- sqrt(p * (1 - p))
  V <- backsolve(chol(diag(n) + outer(sW, sW) * K), sW * K, transpose = TRUE)
  list(f = f, var = diag(K) - colSums(V^2))
}

# Poisson-log mode by damped dense Newton (a-form: f = K a, Psi without K^-1).
dense_poisson <- function(K, y) {
  n <- length(y); f <- a <- numeric(n)
  psi <- function(f, a) sum(y * f - exp(f)) - 0.5 * sum(f * a)
  for (it in 1:500) {
    lam <- exp(f)
    an <- solve(diag(n) + lam * K, lam * f + y - lam); fn <- (K %*% an)[, 1]
    t <- 1
    while (t > 1e-12 && !isTRUE(psi(f + t * (fn - f), a + t * (an - a)) >= psi(f, a))) t <- t / 2
    step <- max(abs(t * (fn - f))); f <- f + t * (fn - f); a <- a + t * (an - a)
    if (step < 1e-13 * max(1, abs(f))) break
  }
  f
}

test_that("real binary data (MASS::Pima.tr): defaults and a full budget give the dense Laplace", {
  skip_if_not_installed("MASS")
  d <- get(utils::data("Pima.tr", package = "MASS", envir = environment()))
  x <- scale(as.matrix(d[, 1:7])); y <- as.integer(d$type == "Yes")
  K <- gp_kernel(x, kernel = "matern32", lengthscale = 2, outputscale = 1)
  ref <- dense_bernoulli(K, y)
  for (policy in c("cholesky", "cg")) {
    fit <- gp_laplace(x, y, kernel = "matern32", lengthscale = 2, outputscale = 1, mean = 0,
                      policy = policy, max_iter = nrow(x), verbose = FALSE)
    expect_true(fit$converged)
    # converged: max |f - f_mode| <= tol = 1e-6 at the returned f and at the
    # posterior's linearization point; the variance moves with W(f), whose
    # log-derivative is 1 - 2p in [-1, 1], so by at most ~1e-6 relative too
    expect_lte(max(abs(fit$f - ref$f)), 1e-6)
    expect_lte(max(abs(fit$var - ref$var) / ref$var), 2e-6)
    expect_lte(utils::tail(fit$steps$mode_error, 1), 1e-6)
  }
})

test_that("Poisson counts of 1e3 to 1e6 reach the mode (default damping)", {
  x <- matrix(seq(0, 1, length.out = 20), 20, 1)
  K <- gp_kernel(x, lengthscale = 0.3)
  set.seed(3)
  for (scale in c(1e3, 1e4, 1e5, 1e6)) {
    y <- rpois(20, scale * exp(sin(6 * x[, 1])))
    fit <- gp_laplace(x, y, likelihood = "poisson", lengthscale = 0.3, learn = character(0),
                      policy = "cholesky",
                      max_iter = 20, max_newton = 50, verbose = FALSE)
    expect_true(fit$converged)
    expect_lte(max(abs(fit$f - dense_poisson(K, y))), 1e-6)
  }
  # the issue's case: equal counts of 1000 (mode near log 1000 = 6.9)
  fit <- gp_laplace(matrix(runif(20), 20, 1), rep(1000, 20), likelihood = "poisson",
                    verbose = FALSE, seed = 1)
  expect_true(fit$converged)
  expect_true(all(abs(fit$f - log(1000)) < 0.05))
  expect_true(all(is.finite(predict(fit, type = "response"))))
})

test_that("non-convergence is reported: budgets, undamped divergence, stalls", {
  set.seed(4)
  x <- matrix(runif(200), 100, 2); y <- rbinom(100, 1, 0.5)
  expect_warning(fit <- gp_laplace(x, y, max_total_iter = 0, verbose = FALSE),
                 "did not converge \\(stop reason \"budget\"")
  expect_false(fit$converged)
  # subset of data (unit vectors on 10 of 40 points) is not the full mode
  x1 <- matrix(seq(-2, 2, length.out = 40)); y1 <- as.integer(sin(2 * x1[, 1]) > 0)
  expect_warning(fit <- gp_laplace(x1, y1, policy = "cholesky", max_iter = 10, recycle = FALSE,
                                   damping = FALSE, max_newton = 60, verbose = FALSE),
                 "stalled")
  expect_false(fit$converged)
  expect_lt(fit$newton_steps, 60)
  expect_gt(utils::tail(fit$steps$mode_error, 1), 1e-6)
})

test_that("softmax cg gives the same fit for 1, 2 and 3 threads (1e-10)", {
  set.seed(5)
  n <- 600; x <- matrix(runif(2 * n), n, 2)
  y <- 1 + (x[, 1] > 0.5) + (x[, 2] > 0.6)
  # one action per iteration: thread counts change BLAS's summation order only,
  # and this path's 100 actions keep it at 1e-10. The data are separable (1/pi
  # up to noise_max = 1e12 in W^+), so K^ is as ill-conditioned as the cap
  # allows and the rounding a path amplifies grows with its actions: class
  # actions (300 here) are tested below with the cap that bounds cond(K^)
  fits <- lapply(1:3, function(th) suppressWarnings(
    gp_laplace(x, y, likelihood = "softmax", lengthscale = 0.2, outputscale = 2,
               threads = th, verbose = FALSE, seed = 1, class_actions = FALSE, policy = "cg")))
  for (k in 2:3) {
    expect_lte(max(abs(fits[[k]]$f - fits[[1]]$f)) / max(abs(fits[[1]]$f)), 1e-10)
    expect_lte(max(abs(fits[[k]]$var - fits[[1]]$var)) / max(fits[[1]]$var), 1e-10)
  }
  # class actions with noise_max = 1e4: on the centred vectors, where the
  # actions live, x'W^+x = x'diag(1/pi)x lies in [|x|^2, 1e4 |x|^2], so
  # cond(K^) <= n s2 + 1e4 = 11200, and a solve's rounding is at most
  # NC eps cond(K^) = 1800 * 2.2e-16 * 11200 = 4.5e-9 relative; Newton steps
  # contract towards the mode, so 1e-8 bounds what threads can change
  fits <- lapply(1:2, function(th) suppressWarnings(
    gp_laplace(x, y, likelihood = "softmax", lengthscale = 0.2, outputscale = 2,
               threads = th, verbose = FALSE, seed = 1, noise_max = 1e4, policy = "cg")))
  expect_equal(ncol(fits[[1]]$root), 300)
  expect_lte(max(abs(fits[[2]]$f - fits[[1]]$f)) / max(abs(fits[[1]]$f)), 1e-8)
  expect_lte(max(abs(fits[[2]]$var - fits[[1]]$var)) / max(fits[[1]]$var), 1e-8)
})

test_that("a long truncated softmax solve stays finite and damped steps never lower Psi", {
  # Ill-conditioned K^ (outputscale 4: 1/pi up to ~1e6 in W^+, and K^ = K on the
  # per-point sums): a one-pass Gram-Schmidt lost orthogonality here and, with
  # the inexact-Newton forcing term, the solver's residual blew up
  set.seed(11); n <- 150; d <- 9
  x <- matrix(rnorm(n * d), n, d)
  y <- max.col(x %*% matrix(rnorm(d * 6), d, 6) + matrix(rnorm(n * 6, sd = 0.7), n, 6))
  fit <- suppressWarnings(gp_laplace(x, y, likelihood = "softmax", lengthscale = 3,
                                     outputscale = 4, max_iter = 200, max_newton = 12,
                                     verbose = FALSE, seed = 1))
  expect_false(fit$stop_reason == "diverged")
  expect_true(all(is.finite(fit$f)) && all(is.finite(fit$var)) && all(fit$var >= 0))
  expect_true(all(fit$history$trace >= 0))
  # damping accepts a step only if Psi does not drop below its rounding (4 n C eps |Psi|)
  psi <- fit$steps$psi
  expect_true(all(diff(psi) >= -4 * n * 6 * .Machine$double.eps * (abs(psi[-1]) + 1)))
  # and the run moves towards the mode
  expect_lt(utils::tail(fit$steps$mode_error, 1), 1e-3 * fit$steps$mode_error[1])
})

test_that("small budgets are never worse than the prior predictive (MASS::fgl, MASS::Pima) and Psi ascends", {
  # small budgets never predict worse than no data: held-out log loss <= the prior
  # predictive's (log C; the class frequencies' entropy) + 0.05 at max_iter 1, 2, 5
  skip_if_not_installed("MASS")
  logloss <- function(P, k) -mean(log(pmax(P[cbind(seq_along(k), k)], 1e-300)))
  sets <- list(
    glass = local({ d <- MASS::fgl; set.seed(3); i <- sample(nrow(d))
      x <- scale(as.matrix(d[, 1:9])); list(x = x[i[1:150], ], y = d$type[i[1:150]],
        xs = x[i[-(1:150)], ], ys = d$type[i[-(1:150)]]) }),
    pima = local({ tr <- MASS::Pima.tr; te <- MASS::Pima.te
      mu <- colMeans(tr[, 1:7]); sd <- apply(tr[, 1:7], 2, stats::sd)
      sc <- function(d) scale(as.matrix(d[, 1:7]), mu, sd)
      list(x = sc(tr), y = as.integer(tr$type == "Yes"), xs = sc(te), ys = te$type) }))
  for (nm in names(sets)) {
    s <- sets[[nm]]
    soft <- nm == "glass"
    k <- as.integer(s$ys)
    freq <- as.numeric(table(if (soft) s$y else factor(s$y))) / length(s$y)
    prior <- if (soft) log(nlevels(s$y)) else -sum(freq * log(freq))
    for (mi in c(1, 2, 5)) {
      fit <- suppressWarnings(gp_laplace(s$x, s$y, likelihood = if (soft) "softmax" else "bernoulli",
                                         lengthscale = sqrt(ncol(s$x)), outputscale = 4, max_iter = mi,
                                         verbose = FALSE))
      P <- predict(fit, s$xs, type = "response")
      if (!soft) P <- cbind(1 - P, P)
      expect_true(all(is.finite(P)))
      expect_lte(logloss(P, k), prior + 0.05)
      psi <- fit$steps$psi
      expect_true(all(diff(psi) >= -4 * length(fit$f) * .Machine$double.eps * abs(psi[-length(psi)])))
    }
  }
})
