# Proves the dense evidence oracle of helper-evidence.R on its own (no scalegp
# code): kernel derivatives, the Newton mode, the evidence value, the analytic
# gradient (docs/gp_laplace.md, "The Laplace evidence and its gradient") against finite differences, the softmax
# log-determinant in the R&W Alg. 3.3 form, and the optimiser.
#
# Tolerances (from analysis, not from one run):
# - FD of the evidence, central, h = 1e-4: truncation h^2/6 |l'''| with |l'''|
#   in log coordinates of the order of |loglik| <= ~40 here, so <= ~1e-7; the
#   rounding part delta/h with delta ~ 1e-13 (mode to ||grad Psi|| <= 1e-12,
#   LU log-det of a matrix with eigenvalues >= 1) is ~1e-9. The FD error is
#   absolute, so a 1e-6 relative check is applied as
#   |g - fd| <= 1e-6 max(|g|, 1) (a unit floor: entries near 0 cannot be
#   checked relatively by FD). Richardson FD (4 D(h) - D(2h)) / 3 removes the
#   h^2 term (left: h^4 l^(5)/30 ~ 1e-15, rounding ~ 1e-9), checked to 1e-8.
# - identities between dense forms of the same number (log-dets, evidence
#   forms, gaussian Newton vs closed form): each side has relative error
#   ~ n eps cond <= 40 * 1.1e-16 * 1e3 ~ 5e-12, checked to 1e-10 (1 + |value|).
# - kernel derivative vs FD of the kernel, h = 1e-5: (h^2/6) |k'''| + eps/h
#   with |k'''| <= ~10 s: ~1e-10, checked to 1e-8 s.

ev_fixture <- function(likelihood, n, d, seed) {
  set.seed(seed)
  x <- matrix(runif(n * d), n, d)
  z <- sin(4 * x[, 1]) + if (d > 1) cos(3 * x[, 2]) else 0
  switch(likelihood,
    bernoulli = list(x = x, y = rbinom(n, 1, plogis(2 * z))),
    poisson = {
      o <- log(runif(n, 0.5, 3))
      list(x = x, y = rpois(n, exp(z + 0.5 + o)), offset = o)
    },
    gaussian = list(x = x, y = z + rnorm(n, sd = 0.2)),
    softmax = {
      Fz <- cbind(z, -z, 0)
      y <- apply(Fz + matrix(rnorm(3 * n, sd = 0.7), n), 1, which.max)
      y[1:3] <- 1:3                            # every class present (C = max(y) = 3)
      list(x = x, y = y)
    })
}

ev_fd_ok <- function(g, fd, rtol) all(abs(g - fd) <= rtol * pmax(abs(g), 1))

test_that("ev_kernel_grad equals finite differences of ev_kernel (all kernels, scalar and ARD)", {
  set.seed(11)
  x <- matrix(runif(24), 12, 2)
  x[2, ] <- x[1, ]                             # r = 0 off the diagonal too
  h <- 1e-5
  for (kern in c("rbf", "matern12", "matern32", "matern52")) {
    for (ell in list(0.6, c(0.4, 0.9))) {
      s <- 1.7
      dK <- ev_kernel_grad(x, kern, ell, s)
      expect_equal(names(dK), c(if (length(ell) == 1) "lengthscale" else
                                  c("lengthscale1", "lengthscale2"), "outputscale"))
      for (j in seq_along(ell)) {
        e <- replace(numeric(length(ell)), j, h)
        fd <- (ev_kernel(x, kern, ell * exp(e), s) - ev_kernel(x, kern, ell * exp(-e), s)) / (2 * h)
        expect_lt(max(abs(dK[[j]] - fd)), 1e-8 * s)
      }
      fd <- (ev_kernel(x, kern, ell, s * exp(h)) - ev_kernel(x, kern, ell, s * exp(-h))) / (2 * h)
      expect_lt(max(abs(dK$outputscale - fd)), 1e-8 * s)
    }
  }
  # the kernel formulas themselves at one point (r = 1 after scaling)
  xx <- matrix(c(0, 0.5), 2, 1)
  expect_equal(ev_kernel(xx, "rbf", 0.5, 2)[1, 2], 2 * exp(-0.5))
  expect_equal(ev_kernel(xx, "matern12", 0.5, 2)[1, 2], 2 * exp(-1))
  expect_equal(ev_kernel(xx, "matern32", 0.5, 2)[1, 2], 2 * (1 + sqrt(3)) * exp(-sqrt(3)))
  expect_equal(ev_kernel(xx, "matern52", 0.5, 2)[1, 2], 2 * (1 + sqrt(5) + 5 / 3) * exp(-sqrt(5)))
})

test_that("Newton mode is converged and the evidence equals its Cholesky (Alg. 3.2) form", {
  cases <- list(list("bernoulli", "matern32", c(0.3, 0.6), 1.5, 0.4),
                list("poisson", "rbf", 0.25, 0.8, 0.3))
  for (cs in cases) {
    fx <- ev_fixture(cs[[1]], 30, length(cs[[3]]), 21)
    m <- ev_laplace(fx$x, fx$y, cs[[1]], cs[[2]], cs[[3]], cs[[4]], cs[[5]],
                    offset = fx$offset)
    expect_lte(m$grad_norm, 1e-12)
    f <- as.numeric(m$f); a <- as.numeric(m$a)
    # a = grad log p(f) and f - mu = K a at the mode
    expect_lt(max(abs(m$g - a)), 1e-12)
    expect_lt(max(abs(f - cs[[5]] - m$Kx %*% a)), 1e-12 * (1 + max(abs(f))))
    # -1/2 a'(f - mu) + sum log p - sum log diag chol(I + W^1/2 K W^1/2)
    sw <- sqrt(diag(m$W))
    Lc <- chol(diag(length(sw)) + outer(sw, sw) * m$Kx)
    ll2 <- -0.5 * sum(a * (f - cs[[5]])) + m$lp - sum(log(diag(Lc)))
    expect_lt(abs(m$loglik - ll2), 1e-10 * (1 + abs(ll2)))
    # log p written out independently of ev_lik
    lp <- if (cs[[1]] == "bernoulli") sum(fx$y * f - log(1 + exp(f))) else
      sum(dpois(fx$y, exp(f + fx$offset), log = TRUE))
    expect_lt(abs(m$lp - lp), 1e-10 * (1 + abs(lp)))
  }
})

test_that("gaussian: the generic Newton evidence equals the closed form", {
  for (kern in c("rbf", "matern52")) {
    fx <- ev_fixture("gaussian", 30, 2, 31)
    m <- ev_laplace(fx$x, fx$y, "gaussian", kern, c(0.3, 0.5), 1.2, mean = 0.2, noise = 0.05)
    expect_lt(abs(m$loglik - m$loglik_exact), 1e-10 * (1 + abs(m$loglik_exact)))
    Ky <- ev_kernel(fx$x, kern, c(0.3, 0.5), 1.2) + diag(0.05, 30)
    ld <- as.numeric(determinant(Ky)$modulus)
    ll <- -0.5 * sum((fx$y - 0.2) * solve(Ky, fx$y - 0.2)) - 0.5 * ld - 15 * log(2 * pi)
    expect_lt(abs(m$loglik_exact - ll), 1e-10 * (1 + abs(ll)))
  }
})

test_that("softmax: dense log det(I + K W) equals the R&W Alg. 3.3 form", {
  fx <- ev_fixture("softmax", 24, 2, 41)
  for (kern in c("rbf", "matern12")) {
    m <- ev_laplace(fx$x, fx$y, "softmax", kern, c(0.4, 0.7), 2, mean = c(0.2, -0.3, 0.1))
    expect_lte(m$grad_norm, 1e-12)
    rw <- ev_softmax_logdet_rw(m$Kx, m$lik$P)
    expect_lt(abs(m$logdet - rw), 1e-10 * (1 + abs(rw)))
    # also away from the mode: random probabilities with C = 4
    set.seed(42)
    P <- matrix(rexp(24 * 4), 24); P <- P / rowSums(P)
    W <- ev_lik("softmax", as.numeric(log(P)), rep(1:4, 6))$W
    dense <- as.numeric(determinant(diag(96) + kronecker(diag(4), m$Kx) %*% W)$modulus)
    rw <- ev_softmax_logdet_rw(m$Kx, P)
    expect_lt(abs(dense - rw), 1e-10 * (1 + abs(rw)))
  }
})

# one FD check: plain central FD to 1e-6, Richardson FD to 1e-8,
# and the closed form equal to the dense implicit-function gradient
ev_check_grad <- function(fx, likelihood, kern, ell, s, mu, noise = 1) {
  args <- list(fx$x, fx$y, likelihood, kern, ell, s, mu, noise, fx$offset)
  g <- do.call(ev_grad, args)
  fd <- do.call(ev_grad_fd, args)
  fr <- do.call(ev_grad_fd, c(args, richardson = TRUE))
  expect_true(ev_fd_ok(g, fd, 1e-6), info = paste(likelihood, kern, format(max(abs(g - fd)))))
  expect_true(ev_fd_ok(g, fr, 1e-8), info = paste(likelihood, kern, format(max(abs(g - fr)))))
  if (likelihood %in% c("bernoulli", "poisson")) {
    gd <- do.call(ev_grad, c(args, method = "dense"))
    expect_lt(max(abs(g - gd)), 1e-10 * max(1, abs(g)))
  }
  invisible(g)
}

test_that("bernoulli: analytic gradient (implicit term s2 = +1/2 diag(Sigma) d3) equals FD", {
  fx <- ev_fixture("bernoulli", 30, 2, 51)
  for (kern in c("rbf", "matern12", "matern32", "matern52")) {
    g <- ev_check_grad(fx, "bernoulli", kern, c(0.3, 0.6), 1.5, 0.4)    # ARD, mean
    expect_named(g, c("lengthscale1", "lengthscale2", "outputscale", "mean"))
  }
  fx1 <- ev_fixture("bernoulli", 25, 1, 52)
  ev_check_grad(fx1, "bernoulli", "matern52", 0.2, 2, -0.5)             # scalar lengthscale
})

test_that("poisson with offset: analytic gradient equals FD", {
  fx <- ev_fixture("poisson", 30, 1, 61)
  for (kern in c("rbf", "matern12", "matern32", "matern52")) {
    g <- ev_check_grad(fx, "poisson", kern, 0.2, 0.8, 0.4)
    expect_named(g, c("lengthscale", "outputscale", "mean"))
  }
  fx2 <- ev_fixture("poisson", 25, 2, 62)
  ev_check_grad(fx2, "poisson", "matern32", c(0.5, 0.3), 0.6, 0.2)      # ARD
})

test_that("the printed R&W Alg. 5.1 sign (s2 = -1/2 ...) is rejected by FD", {
  fx <- ev_fixture("bernoulli", 30, 2, 51)
  args <- list(fx$x, fx$y, "bernoulli", "matern32", c(0.3, 0.6), 1.5, 0.4)
  fd <- do.call(ev_grad_fd, args)
  gm <- do.call(ev_grad, c(args, s2_sign = -1))
  expect_gt(max(abs(gm - fd)), 1e-3)                # FD error is ~1e-8
  fxp <- ev_fixture("poisson", 30, 1, 61)
  args <- list(fxp$x, fxp$y, "poisson", "rbf", 0.2, 0.8, 0.4, 1, fxp$offset)
  fd <- do.call(ev_grad_fd, args)
  gm <- do.call(ev_grad, c(args, s2_sign = -1))
  expect_gt(max(abs(gm - fd)), 1e-3)
})

test_that("gaussian: closed-form gradient incl. noise equals FD of the Newton evidence", {
  fx <- ev_fixture("gaussian", 30, 2, 71)
  for (kern in c("rbf", "matern32")) {
    g <- ev_check_grad(fx, "gaussian", kern, c(0.3, 0.5), 1.2, 0.2, noise = 0.05)
    expect_named(g, c("lengthscale1", "lengthscale2", "outputscale", "mean", "noise"))
  }
  fx1 <- ev_fixture("gaussian", 20, 1, 72)
  ev_check_grad(fx1, "gaussian", "matern12", 0.4, 0.7, -0.1, noise = 0.2)
})

test_that("softmax (C = 3): dense implicit-function gradient equals FD", {
  fx <- ev_fixture("softmax", 24, 2, 81)
  for (kern in c("rbf", "matern52")) {
    g <- ev_check_grad(fx, "softmax", kern, c(0.4, 0.7), 2, c(0.2, -0.3, 0.1))
    expect_named(g, c("lengthscale1", "lengthscale2", "outputscale", "mean1", "mean2", "mean3"))
    # adding a constant to every class mean shifts f by that constant and
    # leaves a, W and the evidence unchanged: the mean gradients sum to 0
    expect_lt(abs(sum(g[4:6])), 1e-10)
  }
  fx1 <- ev_fixture("softmax", 20, 1, 82)
  ev_check_grad(fx1, "softmax", "matern32", 0.3, 1.5, 0)
})

test_that("learn selects the coordinates; ev_theta / ev_untheta invert", {
  fx <- ev_fixture("bernoulli", 20, 2, 91)
  g <- ev_grad(fx$x, fx$y, "bernoulli", "rbf", c(0.3, 0.6), 1.5, 0.4, learn = c("mean", "noise"))
  expect_named(g, "mean")
  th <- ev_theta("softmax", c(0.3, 0.6), 1.5, c(1, 2, 3), C = 3)
  expect_equal(unname(th), c(log(0.3), log(0.6), log(1.5), 1, 2, 3))
  hp <- ev_untheta(th, list())
  expect_equal(hp$lengthscale, c(0.3, 0.6)); expect_equal(hp$outputscale, 1.5)
  expect_equal(hp$mean, c(1, 2, 3))
})

test_that("ev_optim: best start is a stationary point not below any start", {
  fx <- ev_fixture("gaussian", 20, 1, 101)
  o <- ev_optim(fx$x, fx$y, "gaussian", "matern52", 0.5, 1, 0, 0.1, starts = 3)
  expect_gte(o$loglik, max(o$starts_loglik) - 1e-12)
  g <- ev_grad(fx$x, fx$y, "gaussian", "matern52", o$hyper$lengthscale,
               o$hyper$outputscale, o$hyper$mean, o$hyper$noise)
  expect_lt(max(abs(g)), 1e-3)                      # interior optimum (factr 1e5)
  expect_equal(attr(g, "loglik"), o$loglik, tolerance = 1e-10)
  fb <- ev_fixture("bernoulli", 20, 1, 102)
  ob <- ev_optim(fb$x, fb$y, "bernoulli", "rbf", 0.3, 1, 0, starts = 2,
                 learn = c("lengthscale", "outputscale"))
  expect_named(ob$theta, c("lengthscale", "outputscale"))
  l0 <- ev_laplace(fb$x, fb$y, "bernoulli", "rbf", 0.3, 1, 0)$loglik
  expect_gte(ob$loglik, l0)
})
