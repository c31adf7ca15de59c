# gp_laplace's reliability against dense oracles (plain R, solve()): a
# right-hand side that meets the tolerance at once still buys variance; a
# gaussian fit on c y with scales c^2 is c times the fit on y; softmax's
# converged = TRUE holds along the per-point sums too.

rbf <- function(a, b, ell, s) {
  d2 <- outer(rowSums(a^2), rowSums(b^2), "+") - 2 * a %*% t(b)
  s * exp(-0.5 * pmax(d2, 0) / ell^2)
}

# the exact gaussian posterior at the training points
dense_gp <- function(x, y, mean, noise, ell, s) {
  K <- rbf(x, x, ell, s)
  A <- K + noise * diag(nrow(x))
  list(K = K, f = mean + as.vector(K %*% solve(A, y - mean)),
       var = diag(K - K %*% solve(A, K)))
}

gl <- function(...) gp_laplace(..., verbose = FALSE, seed = 1)

test_that("a gaussian y equal to its prior mean still spends the budget on variance", {
  set.seed(1)
  x <- matrix(runif(30))
  ex <- dense_gp(x, rep(5, 30), 5, 0.1, 0.3, 1)
  fit <- gl(x, rep(5, 30), likelihood = "gaussian", mean = 5, noise = 0.1, lengthscale = 0.3,
            outputscale = 1, learn = character(0), policy = "cg")
  expect_true(fit$converged)
  # b = y - m = 0 meets the tolerance before any action; the budget (cg, 5
  # iterations) goes to the actions of a surrogate system, the mean stays C b = 0
  expect_equal(fit$iterations, 5)
  expect_equal(ncol(fit$root), 5)
  expect_equal(as.vector(fit$f), rep(5, 30), tolerance = 0)
  # a valid IterGP posterior: var = diag(K - K Q Q'K) with Q'K^Q = I (rounding:
  # cond(K^) eps, K^ = K + 0.1 I has cond <= 1 + 30 / 0.1)
  Q <- fit$root
  expect_equal(crossprod(Q, (ex$K + 0.1 * diag(30)) %*% Q), diag(5), tolerance = 1e-10)
  expect_equal(as.vector(fit$var), diag(ex$K - ex$K %*% Q %*% t(Q) %*% ex$K), tolerance = 1e-10)
  # never below the exact variance (C <= K^-1), and far below the prior's 1:
  # the exact reduction sum lambda^2 / (lambda + 0.1) lies almost all (>= 99%,
  # checked) in K's top 5 eigenvectors, which 5 Krylov actions from K xi find
  # but for a remainder, so they buy at least 90% of it
  expect_true(all(fit$var >= ex$var - 1e-12))
  lam <- eigen(ex$K, symmetric = TRUE, only.values = TRUE)$values
  red <- lam^2 / (lam + 0.1)
  expect_gt(sum(red[1:5]) / sum(red), 0.99)
  expect_gt(sum(1 - fit$var), 0.9 * sum(1 - ex$var))
  expect_lt(max(fit$var), 0.1)
  # predictions carry it; the fit passes its own check
  p <- predict(fit, x)
  expect_equal(p$var, as.vector(fit$var), tolerance = 1e-10)
  # a preconditioner would undo the weighting by K (P^-1 K xi ~ xi): the
  # surrogate's actions are plain, the same as without one
  pc <- gl(x, rep(5, 30), likelihood = "gaussian", mean = 5, noise = 0.1, lengthscale = 0.3,
           outputscale = 1, learn = character(0), precond_rank = 5)
  expect_equal(pc$var, fit$var, tolerance = 1e-10)
  # the cholesky policy goes on with its unit actions: 5 points at their exact
  # subset-of-data variance
  ch <- gl(x, rep(5, 30), likelihood = "gaussian", mean = 5, noise = 0.1, lengthscale = 0.3,
           outputscale = 1, learn = character(0), policy = "cholesky")
  expect_true(ch$converged)
  expect_equal(ch$iterations, 5)
  I <- 1:5
  sod <- diag(ex$K - ex$K[, I] %*% solve(ex$K[I, I] + 0.1 * diag(5), ex$K[I, ]))
  expect_equal(as.vector(ch$var), sod, tolerance = 1e-10)
})

test_that("a full budget whose right-hand side meets the tolerance at once is the exact state", {
  set.seed(1)
  x <- matrix(runif(30))
  ex <- dense_gp(x, rep(5, 30), 5, 0.1, 0.3, 1)
  fit <- gl(x, rep(5, 30), likelihood = "gaussian", mean = 5, noise = 0.1, lengthscale = 0.3,
            outputscale = 1, learn = character(0), max_iter = 30)
  expect_true(fit$converged)
  expect_equal(ncol(fit$root), 30)
  expect_equal(fit$iterations, 0)
  expect_equal(as.vector(fit$var), ex$var, tolerance = 1e-10)
  expect_equal(predict(fit, x)$var, ex$var, tolerance = 1e-10)
  # n = 1: the default budget is full; print, summary and predict read the fit
  one <- gl(x[1, , drop = FALSE], 5, likelihood = "gaussian", mean = 5, noise = 0.1,
            lengthscale = 0.3, outputscale = 1, learn = character(0))
  expect_true(one$converged)
  expect_equal(as.vector(one$var), 1 - 1 / 1.1, tolerance = 1e-14)
  expect_output(print(one), "Newton steps")
  expect_output(print(summary(one)))
  xs <- matrix(c(0.2, 0.9))
  ks <- rbf(xs, x[1, , drop = FALSE], 0.3, 1)
  expect_equal(predict(one, xs)$var, as.vector(1 - ks^2 / 1.1), tolerance = 1e-12)
})

test_that("a gaussian fit on c y with scales c^2 is c times the fit on y, and the dense GP's", {
  set.seed(2)
  n <- 40
  x <- matrix(runif(2 * n), n)
  y <- sin(3 * x[, 1]) + cos(2 * x[, 2]) + 0.3 * rnorm(n)
  fit_c <- function(cc, ...) gl(x, cc * y, likelihood = "gaussian", mean = 0.5 * cc,
                                noise = 0.1 * cc^2, lengthscale = 0.3, outputscale = cc^2,
                                learn = character(0), ...)
  base <- fit_c(1)
  ex <- dense_gp(x, y, 0.5, 0.1, 0.3, 1)
  for (cc in c(1e-6, 1e6)) {
    fit <- fit_c(cc)
    expect_true(fit$converged)
    # the same actions in exact arithmetic: the rounding of scaling by c
    # (not a power of 2) through ~20 CG iterations on cond(K^) <= 1 + n / 0.1
    # stays far below 1e-8
    expect_equal(fit$iterations, base$iterations)
    expect_equal(fit$f / cc, base$f, tolerance = 1e-8)
    expect_equal(fit$var / cc^2, base$var, tolerance = 1e-8)
    # dense GP: f - f* = K K^-1 res and ||K K^-1|| <= 1, so ||f - f*|| is
    # at most the residual tolerance max(inner_atol c, inner_rtol ||c (y - m)||)
    tol <- max(1e-5 * cc, 1e-5 * cc * sqrt(sum((y - 0.5)^2)))
    expect_lte(sqrt(sum((fit$f - cc * ex$f)^2)), tol)
    # IterGP's variance is never below the exact one (rounding: eps cond(K^) c^2)
    expect_true(all(fit$var >= cc^2 * (ex$var - 1e-12)))
    # a full budget is the exact state: the dense GP's variances
    full <- fit_c(cc, max_iter = n)
    expect_equal(as.vector(full$var) / cc^2, ex$var, tolerance = 1e-9)
    expect_equal(as.vector(full$f) / cc, ex$f, tolerance = 1e-9)
  }
})

# Newton for bernoulli / poisson on Psi(f) = log p(y | f) - 1/2 (f - m)'K^-1 (f - m)
# in R&W's a-form (f = m + K a), to max |step| < 1e-13.
dense_mode <- function(K, y, lik) {
  n <- length(y)
  f <- rep(0, n)
  for (it in 1:100) {
    if (lik == "bernoulli") { p <- 1 / (1 + exp(-f)); g <- y - p; w <- p * (1 - p) }
    else { g <- y - exp(f); w <- exp(f) }
    a <- solve(diag(n) + w * K, w * f + g)
    fn <- as.vector(K %*% a)
    step <- max(abs(fn - f)); f <- fn
    if (step < 1e-13) break
  }
  f
}

test_that("bernoulli and poisson keep tol on the link's scale at any outputscale", {
  set.seed(4)
  n <- 40
  x <- matrix(runif(2 * n), n)
  z <- sin(4 * x[, 1]) + x[, 2]
  ys <- list(bernoulli = as.numeric(runif(n) < 1 / (1 + exp(-2 * z))), poisson = rpois(n, exp(z)))
  for (lik in names(ys)) for (s in c(1e-4, 1e2)) {
    fit <- gl(x, ys[[lik]], likelihood = lik, mean = 0, lengthscale = 0.3, outputscale = s,
              learn = character(0), max_iter = 20, max_newton = 50)
    expect_true(fit$converged)
    # the mode bound holds in 2-norm, so max |f - mode| <= tol = 1e-6 (the
    # oracle's own error: cond(I + W K) eps << 1e-6)
    mode <- dense_mode(rbf(x, x, 0.3, s), ys[[lik]], lik)
    expect_lte(max(abs(fit$f - mode)), 1e-6)
  }
})

# Softmax: 6 Gaussian clusters in 4-D, class `drop` without points (n_class
# stays 6: a factor's levels are its classes).
softmax_data <- function(n = 150, C = 6, d = 4, drop = 1L) {
  set.seed(3)
  centers <- matrix(rnorm(C * d, sd = 6), C)
  lab <- sample(setdiff(seq_len(C), drop), n, replace = TRUE)
  x <- centers[lab, ] + matrix(rnorm(n * d, sd = 2), n)
  list(x = x, y = factor(lab, levels = seq_len(C)), lab = lab, C = C)
}

# Dense Newton on Psi(f) = sum log softmax - 1/2 f'K^-1 f, K = I_C (x) K_x, in
# the a-form f = K a, a = (I + W K)^-1 (W f + g) with W = diag(p) - p p' per
# point (singular along the per-point sums): no K^-1, no pseudo-inverse.
dense_softmax_mode <- function(Kx, lab, C) {
  n <- nrow(Kx); NC <- n * C
  Y <- matrix(0, n, C); Y[cbind(seq_len(n), lab)] <- 1
  Kf <- kronecker(diag(C), Kx)
  f <- rep(0, NC)
  for (it in 1:100) {
    F <- matrix(f, n)
    E <- exp(F - apply(F, 1, max))
    p <- as.vector(E / rowSums(E))
    Pm <- matrix(0, NC, n)
    Pm[cbind(seq_len(NC), rep(seq_len(n), C))] <- p
    WK <- p * Kf - Pm %*% crossprod(Pm, Kf)
    Wf <- p * f - Pm %*% crossprod(Pm, f)
    fn <- as.vector(Kf %*% solve(diag(NC) + WK, Wf + as.vector(Y) - p))
    step <- max(abs(fn - f)); f <- fn
    if (step < 1e-13) break
  }
  list(f = matrix(f, n), Y = Y)
}

# grad Psi = (Y - P(f)) - K^-1 f, K^-1 applied per class by solve(K_x)
softmax_grad <- function(F, Kx, Y) {
  E <- exp(F - apply(F, 1, max))
  (Y - E / rowSums(E)) - solve(Kx, F)
}

test_that("softmax without points of a class: converged means within tol of the dense mode", {
  D <- softmax_data()
  Kx <- rbf(D$x, D$x, 4, 2)
  mode <- dense_softmax_mode(Kx, D$lab, D$C)
  lmin <- min(eigen(Kx, symmetric = TRUE, only.values = TRUE)$values)
  for (tol in c(1e-6, 1e-8)) {
    fit <- suppressWarnings(gl(D$x, D$y, likelihood = "softmax", lengthscale = 4, outputscale = 2,
                               mean = 0, learn = character(0), policy = "cholesky",
                               max_iter = 150 * 6, tol = tol))
    expect_equal(fit$n_class, 6)
    expect_true(fit$converged)
    # the bound is on ||f - mode||_2 >= max |f - mode|; the oracle's error is
    # cond(I + W K) eps, far below 1e-8
    expect_lte(max(abs(fit$f - mode$f)), tol)
    # the mode's sums are 0 (mean 0): the likelihood ignores them
    expect_lte(max(abs(rowSums(fit$f))), tol)
    # grad Psi = (K^-1 + W)(f - mode) up to O(|f - mode|^2): its max is at most
    # (1 / lambda_min(K_x) + 1) tol (W's eigenvalues <= 1)
    expect_lte(max(abs(softmax_grad(fit$f, Kx, mode$Y))), (1 / lmin + 1) * tol)
  }
})

test_that("softmax with unit actions keeps the per-point sums of f at the mode's (0)", {
  # the cholesky policy's unit actions are not centred, and the W^+ iteration
  # leaves a sum where it is: a truncated budget on the fixture (all classes)
  fx <- list(p = read_fixture("laplace_softmax_params.csv"),
             tr = read_fixture("laplace_softmax_train.csv"))
  d <- fx$p[5]; C <- fx$p[4]
  x <- fx$tr[, 1:d, drop = FALSE]
  fit <- gl(x, fx$tr[, d + 1], likelihood = "softmax",
            kernel = c("rbf", "matern12", "matern32", "matern52")[fx$p[1] + 1],
            lengthscale = fx$p[-(1:5)], outputscale = fx$p[2], mean = 0, policy = "cholesky",
            max_iter = 20, learn = character(0))
  expect_true(fit$converged)
  expect_lte(max(abs(fit$f - fx$tr[, d + 2 + 1:C])), 1e-6)
})

test_that("time_limit bounds the learning as well as the Newton loop", {
  # Learning on 2e4 points takes minutes; with time_limit = 0.05 no evaluation of the
  # learning starts after 0.05 s, and the Newton loop stops after its first step.
  set.seed(1)
  n <- 2e4
  x <- matrix(runif(n))
  y <- as.integer(x > 0.5)
  t0 <- proc.time()[["elapsed"]]
  expect_warning(f <- gp_laplace(x, y, time_limit = 0.05, verbose = FALSE, seed = 1),
                 "time limit was reached.*raise time_limit|raise time_limit.*time limit")
  expect_lt(proc.time()[["elapsed"]] - t0, 60)
  expect_false(f$converged)
  expect_identical(f$stop_reason, "time_limit")
  expect_true(is.na(f$loglik))
  expect_output(print(f), "log evidence not computed; nothing learned", fixed = TRUE)
})
