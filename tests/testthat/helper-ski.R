# ski_gsgp fixtures (inst/extdata/ski_*.csv, see make_ski_fixtures.R) and a
# dense interpolation matrix in plain R, independent of the C core.
read_ski_case <- function(name) {
  p <- drop(read_fixture(sprintf("ski_%s_params.csv", name)))
  d <- p[1]
  at <- function(k) p[5 + (k - 1) * d + seq_len(d)]
  data <- read_fixture(sprintf("ski_%s_data.csv", name))
  test <- read_fixture(sprintf("ski_%s_test.csv", name))
  list(d = d, kernel = all_kernels[p[2]], interpolation = c("cubic", "linear")[p[3]],
       outputscale = p[4], noise = p[5], lengthscale = at(1), grid_size = at(2),
       grid_bounds = cbind(at(3), at(4)),
       x = data[, seq_len(d), drop = FALSE], y = data[, d + 1],
       xtest = test[, seq_len(d), drop = FALSE], mean = test[, d + 1], var = test[, d + 2])
}

ski_fit_case <- function(cs, ...) {
  ski_gsgp(cs$x, cs$y, grid_size = cs$grid_size, grid_bounds = cs$grid_bounds,
           kernel = cs$kernel, lengthscale = cs$lengthscale, outputscale = cs$outputscale,
           noise = cs$noise, interpolation = cs$interpolation, verbose = FALSE, seed = 1,
           mean = 0, ...) # the fixtures are zero-mean GPs
}

rel_err <- function(a, b) max(abs(a - b)) / max(abs(b))

# Dense n-by-m W from the interpolation formula (first grid dimension fastest).
ski_dense_W <- function(x, size, bounds, interp) {
  u <- if (interp == "cubic") function(s) {
    s <- abs(s)
    ifelse(s <= 1, 1.5 * s^3 - 2.5 * s^2 + 1, ifelse(s < 2, -0.5 * s^3 + 2.5 * s^2 - 4 * s + 2, 0))
  } else function(s) { s[] <- pmax(0, 1 - abs(s)); s }
  W <- matrix(1, nrow(x), 1)
  for (j in seq_len(ncol(x))) {
    g <- seq(bounds[j, 1], bounds[j, 2], length.out = size[j])
    Wj <- u(outer(x[, j], g, "-") / (g[2] - g[1]))
    W <- do.call(cbind, lapply(seq_len(size[j]), function(i) W * Wj[, i]))
  }
  W
}

# Dense Gaussian GP evidence log N(y; 0, s C(ell) + s2 I) and its gradient in
# theta = (log ell, log s, log s2), for kfun(ell) -> list(C, dC) with dC =
# dC/dlog ell; also the pieces of the Hutchinson analysis (M: A^-1 dA_k).
dense_gp_evidence <- function(theta, y, kfun, pieces = FALSE) {
  ell <- exp(theta[1]); s <- exp(theta[2]); s2 <- exp(theta[3])
  kc <- kfun(ell)
  n <- length(y)
  A <- s * kc$C
  diag(A) <- diag(A) + s2
  L <- chol(A)
  a <- backsolve(L, forwardsolve(t(L), y))
  Ai <- chol2inv(L)
  dA <- list(s * kc$dC, s * kc$C, diag(s2, n))
  grad <- vapply(dA, function(D) 0.5 * (sum(a * (D %*% a)) - sum(Ai * D)), 0)
  out <- list(value = -0.5 * sum(y * a) - sum(log(diag(L))) - n / 2 * log(2 * pi), grad = grad)
  if (pieces) out$M <- lapply(dA, function(D) Ai %*% D)
  out
}

# Maximizes the dense evidence with optim's L-BFGS-B on the log scale from theta0.
dense_gp_optimum <- function(theta0, y, kfun) {
  cache <- new.env()
  ev <- function(th) {
    if (!identical(cache$th, th)) { cache$th <- th; cache$ev <- dense_gp_evidence(th, y, kfun) }
    cache$ev
  }
  r <- optim(theta0, function(th) -ev(th)$value, function(th) -ev(th)$grad,
             method = "L-BFGS-B", control = list(factr = 1e7, maxit = 200))
  stopifnot(r$convergence == 0)
  r$par
}

# Standard deviations of the learned log hyperparameters caused by the t
# Rademacher probes of the Hutchinson trace, at theta: the
# gradient's estimate 1/2 mean_j z_j'M_k z_j has covariance
# 1/(4t) Cov(z'M_k z, z'M_l z) = 1/(4t) 2 sum_{i != j} S^k_ij S^l_ij (S: the
# symmetric part of M_k = A^-1 dA_k), and a gradient error e moves the
# maximizer by H^-1 e, H the Fisher information 1/2 tr(M_k M_l) (the negative
# Hessian at the optimum, to first order).
probe_sd <- function(theta, y, kfun, t) {
  M <- dense_gp_evidence(theta, y, kfun, pieces = TRUE)$M
  S <- lapply(M, function(m) { s <- (m + t(m)) / 2; diag(s) <- 0; s })
  C <- outer(1:3, 1:3, Vectorize(function(k, l) 2 * sum(S[[k]] * S[[l]]))) / (4 * t)
  H <- outer(1:3, 1:3, Vectorize(function(k, l) 0.5 * sum(M[[k]] * t(M[[l]]))))
  Hi <- solve(H)
  sqrt(diag(Hi %*% C %*% Hi))
}

rbf_dense <- function(x) {
  D2 <- outer(x, x, "-")^2
  function(ell) { C <- exp(-D2 / (2 * ell^2)); list(C = C, dC = C * D2 / ell^2) }
}

# The SKI kernel W K_G W' of a 1-D cubic grid (size points on bounds), dense.
rbf_ski_dense <- function(x, size, bounds) {
  W <- ski_dense_W(matrix(x), size, matrix(bounds, 1), "cubic")
  g <- seq(bounds[1], bounds[2], length.out = size)
  D2 <- outer(g, g, "-")^2
  function(ell) {
    K <- exp(-D2 / (2 * ell^2))
    list(C = W %*% K %*% t(W), dC = W %*% (K * D2 / ell^2) %*% t(W))
  }
}

# The SKI evidence of a 1-D cubic grid in m-space, coded here independently of
# the core's computation (which factors s2 I + K_G B by LU): with the grid
# kernel K = V diag(l) V' (its eigen-decomposition, l clipped at 0), L = V
# diag(sqrt(l)) and C = s2 I + L'BL (Cholesky; eigenvalues >= s2),
#   log|A| = (n - m) log s2 + log|C|,  a = L C^-1 L'u  (u = W'(y - mu)),
#   y'A^-1 y = (rho - u'a) / s2,  W'z = (u - Ba) / s2,  z'z = (rho - 2u'a + a'Ba) / s2^2,
#   W'A^-1 W = (B - BL C^-1 L'B) / s2,  tr A^-1 = (n - m) / s2 + tr C^-1,
#   1'z = (sum (y - mu) - W'1'a) / s2.
# Returns f(theta) -> list(value, grad) for theta = (log ell, log s, log s2) or,
# with the mean, (log ell, log s, log s2, mu). W, B, u from the interpolation
# formula in R (ski_dense_W).
ski_mspace_evidence <- function(x, y, size, bounds) {
  W <- ski_dense_W(matrix(x), size, matrix(bounds, 1), "cubic")
  g <- seq(bounds[1], bounds[2], length.out = size)
  D2 <- outer(g, g, "-")^2
  B <- crossprod(W); uy <- drop(crossprod(W, y)); u1 <- colSums(W)
  n <- length(y); m <- size
  function(th) {
    ell <- exp(th[1]); s <- exp(th[2]); s2 <- exp(th[3]); mu <- if (length(th) > 3) th[4] else 0
    u <- uy - mu * u1
    rho <- sum((y - mu)^2)
    K <- s * exp(-D2 / (2 * ell^2))
    dK <- K * D2 / ell^2
    e <- eigen(K, symmetric = TRUE)
    L <- e$vectors %*% diag(sqrt(pmax(e$values, 0)))
    R <- chol(diag(s2, m) + crossprod(L, B %*% L))
    Ci <- chol2inv(R)
    a <- drop(L %*% (Ci %*% crossprod(L, u)))
    Ba <- drop(B %*% a)
    wz <- (u - Ba) / s2
    BL <- B %*% L
    S <- (B - BL %*% Ci %*% t(BL)) / s2
    zz <- (rho - 2 * sum(u * a) + sum(a * Ba)) / s2^2
    value <- -0.5 * ((n - m) * log(s2) + 2 * sum(log(diag(R))) + (rho - sum(u * a)) / s2 +
                     n * log(2 * pi))
    grad <- c(0.5 * sum(wz * (dK %*% wz)) - 0.5 * sum(dK * S),
              0.5 * sum(wz * (K %*% wz)) - 0.5 * sum(K * S),
              0.5 * s2 * zz - 0.5 * ((n - m) + s2 * sum(diag(Ci))))
    if (length(th) > 3) grad <- c(grad, (sum(y - mu) - sum(u1 * a)) / s2)
    list(value = value, grad = grad)
  }
}

# The maximizer of ev by optim's L-BFGS-B run to its tightest tolerance
# (factr 1e3: a relative change of 2e-13, just above the objective's rounding,
# where factr 10 ends in an abnormal line search; pgtol 0), the best of the starts.
mspace_optimum <- function(ev, starts) {
  best <- NULL
  for (th in starts) {
    r <- optim(th, function(t) -ev(t)$value, function(t) -ev(t)$grad, method = "L-BFGS-B",
               control = list(factr = 1e3, pgtol = 0, maxit = 1000))
    if (r$convergence == 0 && (is.null(best) || r$value < best$value)) best <- r
  }
  stopifnot(!is.null(best))
  best$par
}

# Latent posterior variances of the dense SKI GP (covariance W K_G W' + noise I)
# at the rows of Ws, without the cancellation of k(x,x) - k'A^{-1}k (which
# loses eps cond(A) of the prior: all of a variance of 1e-9 at noise 1e-8):
# with K_G = L L' (its eigen-decomposition) the posterior covariance of the
# grid values is L (I + L'W'W L / noise)^{-1} L', so v = ||R^{-T} L'w*||^2 with
# R the QR factor of [W L / sigma; I]. QR's backward error eps ||[W L / sigma; I]||
# bounds v's relative error by about 2 eps sqrt(||W K_G W'|| / noise) (3e-9 at
# noise 1e-8 and ||W K_G W'|| = 60).
ski_dense_var <- function(W, Ws, KG, noise) {
  e <- eigen(KG, symmetric = TRUE)
  L <- e$vectors %*% diag(sqrt(pmax(e$values, 0)), ncol(KG))
  R <- qr.R(qr(rbind(W %*% L / sqrt(noise), diag(ncol(KG)))))
  colSums(backsolve(R, t(Ws %*% L), transpose = TRUE)^2)
}

# The grid points (first dimension fastest) and K_G of a fit's grid, rbf kernel.
ski_dense_KG <- function(grid, kernel, lengthscale, outputscale) {
  b <- grid$bounds
  G <- as.matrix(expand.grid(lapply(seq_len(nrow(b)), function(j)
    seq(b[j, 1], b[j, 2], length.out = grid$size[j]))))
  list(points = G, KG = dense_kernel(G, G, kernel, lengthscale, outputscale))
}

# The oracle of chunk sources: the chunks (idx: rows of d per chunk) cut into
# `workers` groups of consecutive chunks as ski_stats cuts them (as equal in
# count as can be), each group's statistics those of its rows in memory, the
# groups merged in order. Probe sketches are keyed per chunk ((k - 1) 2^40 on):
# here each chunk's own, merged (ski_stats adds a group's rows to one sketch:
# the same sums in another order, so Wtz agrees up to rounding only; see
# expect_sources_stats).
ski_grouped <- function(d, idx, workers = 1L, probes = 0) {
  K <- length(idx)
  w <- max(1L, min(K, workers))
  cut <- round(seq(0, K, length.out = w + 1L))
  one <- function(ks) {
    rows <- unlist(idx[ks])
    s <- ski_stats(d$x[rows, , drop = FALSE], d$y[rows], d$grid)
    if (probes > 0) {
      sk <- lapply(ks, function(k) ski_stats(d$x[idx[[k]], , drop = FALSE], d$y[idx[[k]]], d$grid,
                                              first_row = (k - 1) * 2^40, probes = probes))
      sk <- Reduce(ski_stats_merge, sk)
      for (f in c("probes", "probe_seed", "rhoz", "Wtz")) s[[f]] <- sk[[f]]
    }
    s
  }
  Reduce(ski_stats_merge, lapply(seq_len(w), function(g) one(seq.int(cut[g] + 1, cut[g + 1]))))
}

# s against ski_grouped's ref: every field bitwise but the probe sketches
# Wtz, which sum the same n terms |w z| <= 1.25^d (cubic weights) in another
# order: their difference is at most 2 n^2 eps 1.25^d.
expect_sources_stats <- function(s, ref, label = "") {
  for (f in setdiff(ski_stats_fields, "Wtz"))
    expect_identical(s[[f]], ref[[f]], label = paste(label, f))
  d <- length(ref$grid$size)
  expect_lte(max(abs(s$Wtz - ref$Wtz), 0), 2 * ref$n^2 * .Machine$double.eps * 1.25^d,
             label = paste(label, "Wtz"))
}

ski_stats_fields <- c("n", "yty", "ysum", "Wty", "Wt1", "WtW", "Wtz", "rhoz")
