# gp_laplace's reliability against dense oracles (plain R, solve()):
# softmax's converged = TRUE holds along the per-point sums too.

rbf <- function(a, b, ell, s) {
  d2 <- outer(rowSums(a^2), rowSums(b^2), "+") - 2 * a %*% t(b)
  s * exp(-0.5 * pmax(d2, 0) / ell^2)
}

gl <- function(...) gp_laplace(..., verbose = FALSE, seed = 1)

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
