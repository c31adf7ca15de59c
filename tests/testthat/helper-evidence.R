# Independent dense oracle for the Laplace evidence (log marginal likelihood)
# and its gradient (docs/gp_laplace.md, "The Laplace evidence and its gradient";
# Rasmussen & Williams, GPML chapters 3 and 5). Plain R, no scalegp code: every
# matrix is formed densely (softmax: nC x nC), so it is meant for n*C <= ~200.
# Only function definitions here (testthat sources helper-*.R files).
#
# Conventions
# - latent f is n x C (C = 1 except softmax); as a vector it is class-major,
#   c(f[, 1], f[, 2], ...), and the prior covariance is K = I_C (x) K_x.
# - theta: log lengthscale ("lengthscale" or "lengthscale1".."d"),
#   log outputscale ("outputscale"), mean ("mean" or "mean1".."meanC"),
#   log noise variance ("noise", gaussian only).
# - a = K^-1 (f - mu), at the mode a = grad log p(y | f).

ev_likelihoods <- c("bernoulli", "poisson", "gaussian", "softmax")

## ---------------------------------------------------------------- kernels --

# Squared scaled distances per input column: list of n x m matrices
# q_l = ((x_il - z_jl) / ell_l)^2.
ev_sqdist_cols <- function(x, z, lengthscale) {
  x <- as.matrix(x); z <- as.matrix(z)
  ell <- rep_len(lengthscale, ncol(x))
  lapply(seq_len(ncol(x)), function(l) outer(x[, l] / ell[l], z[, l] / ell[l], "-")^2)
}

ev_kernel <- function(x, kernel = c("rbf", "matern12", "matern32", "matern52"),
                      lengthscale, outputscale, z = x) {
  kernel <- match.arg(kernel)
  r2 <- Reduce(`+`, ev_sqdist_cols(x, z, lengthscale))
  r <- sqrt(r2)
  s <- outputscale
  switch(kernel,
         rbf      = s * exp(-r2 / 2),
         matern12 = s * exp(-r),
         matern32 = s * (1 + sqrt(3) * r) * exp(-sqrt(3) * r),
         matern52 = s * (1 + sqrt(5) * r + 5 * r2 / 3) * exp(-sqrt(5) * r))
}

# Closed-form derivatives of K_x with respect to log lengthscale (one matrix per
# lengthscale coordinate: one for a scalar lengthscale, d for ARD) and log
# outputscale (= K). With q_j = (dx_j / ell_j)^2, dr^2/dlog ell_j = -2 q_j,
# dr/dlog ell_j = -q_j / r, so dk/dlog ell_j = -k'(r) q_j / r:
#   rbf       k q_j                      (k' = -r k)
#   matern12  s e^{-r} q_j / r           (k' = -s e^{-r}; 0 at r = 0, q_j <= r^2)
#   matern32  3 s q_j e^{-sqrt3 r}       (k' = -3 s r e^{-sqrt3 r})
#   matern52  5/3 s q_j (1 + sqrt5 r) e^{-sqrt5 r}  (k' = -5/3 s r (1 + sqrt5 r) e^{-sqrt5 r})
# A scalar lengthscale uses q = r^2 (the sum over columns).
ev_kernel_grad <- function(x, kernel = c("rbf", "matern12", "matern32", "matern52"),
                           lengthscale, outputscale) {
  kernel <- match.arg(kernel)
  q <- ev_sqdist_cols(x, x, lengthscale)
  r2 <- Reduce(`+`, q)
  r <- sqrt(r2)
  s <- outputscale
  if (length(lengthscale) == 1L) q <- list(r2)
  fac <- switch(kernel,
                rbf      = s * exp(-r2 / 2),
                matern12 = { v <- s * exp(-r) / r; v[r == 0] <- 0; v },
                matern32 = 3 * s * exp(-sqrt(3) * r),
                matern52 = 5 / 3 * s * (1 + sqrt(5) * r) * exp(-sqrt(5) * r))
  dl <- lapply(q, function(qj) fac * qj)
  names(dl) <- ev_ls_names(length(lengthscale))
  c(dl, list(outputscale = ev_kernel(x, kernel, lengthscale, outputscale)))
}

ev_ls_names <- function(m) if (m == 1L) "lengthscale" else paste0("lengthscale", seq_len(m))
ev_mean_names <- function(m) if (m == 1L) "mean" else paste0("mean", seq_len(m))

## ------------------------------------------------------------ likelihoods --

ev_nclass <- function(likelihood, y) if (likelihood == "softmax") max(y) else 1L

ev_logsumexp_rows <- function(F) {
  m <- apply(F, 1, max)
  m + log(rowSums(exp(F - m)))
}

# log p(y | f), gradient g (nC vector), dense W = -Hessian (nC x nC), and for the
# diagonal likelihoods the third derivative d3 = d^3 log p / df^3 (vector).
ev_lik <- function(likelihood, f, y, noise = 1, offset = NULL) {
  f <- as.numeric(f)
  n <- length(y)
  switch(likelihood,
    bernoulli = {
      p <- 1 / (1 + exp(-f))
      # log p = y f - log(1 + e^f), stable by sign
      l1pe <- ifelse(f > 0, f + log1p(exp(-f)), log1p(exp(f)))
      w <- p * (1 - p)
      list(lp = sum(y * f - l1pe), g = y - p, W = diag(w, n), w = w,
           d3 = -w * (1 - 2 * p))
    },
    poisson = {
      o <- if (is.null(offset)) 0 else offset
      lam <- exp(f + o)
      list(lp = sum(y * (f + o) - lam - lgamma(y + 1)), g = y - lam,
           W = diag(lam, n), w = lam, d3 = -lam)
    },
    gaussian = {
      w <- rep(1 / noise, n)
      list(lp = sum(-(y - f)^2 / (2 * noise) - 0.5 * log(2 * pi * noise)),
           g = (y - f) / noise, W = diag(w, n), w = w, d3 = rep(0, n))
    },
    softmax = {
      C <- length(f) / n
      F <- matrix(f, n, C)
      lse <- ev_logsumexp_rows(F)
      P <- exp(F - lse)
      Y <- matrix(0, n, C); Y[cbind(seq_len(n), y)] <- 1
      W <- matrix(0, n * C, n * C)
      for (c1 in seq_len(C)) for (c2 in seq_len(C)) {
        blk <- -P[, c1] * P[, c2] + (c1 == c2) * P[, c1]
        W[cbind((c1 - 1) * n + seq_len(n), (c2 - 1) * n + seq_len(n))] <- blk
      }
      list(lp = sum(F[cbind(seq_len(n), y)] - lse), g = as.numeric(Y - P),
           W = W, P = P)
    })
}

## ------------------------------------------------------------ the oracle --

ev_setup <- function(x, y, likelihood, kernel, lengthscale, outputscale, mean) {
  x <- as.matrix(x)
  n <- nrow(x)
  C <- ev_nclass(likelihood, y)
  Kx <- ev_kernel(x, kernel, lengthscale, outputscale)
  K <- if (C == 1L) Kx else kronecker(diag(C), Kx)
  mu <- rep(rep_len(mean, C), each = n)
  list(x = x, n = n, C = C, Kx = Kx, K = K, mu = mu)
}

# Psi(a) = -1/2 a'Ka + log p(y | Ka + mu)   (the Newton objective)
ev_psi <- function(a, K, mu, likelihood, y, noise, offset) {
  f <- as.numeric(K %*% a) + mu
  -0.5 * sum(a * (K %*% a)) + ev_lik(likelihood, f, y, noise, offset)$lp
}

# Dense damped Newton in the a-parametrisation (R&W Alg. 3.1 / 3.3 with the
# nC x nC matrices formed): a_new = (I + W K)^-1 (W (f - mu) + g), which is the
# Newton step on Psi(f) = log p - 1/2 (f-mu)'K^-1(f-mu), then halving line
# search on Psi along a_new - a. Stops when ||grad Psi||_inf = ||g - a||_inf
# <= tol (grad Psi with respect to f is g - K^-1(f - mu) = g - a), or when it
# stagnates at rounding level (< 1e-9 and no decrease for 3 iterations).
#
# Returns loglik (Laplace evidence), f (n x C mode), a (n x C), W (dense),
# logdet = log det(I + K W) (dense LU determinant), lp, grad_norm, iter, and
# for gaussian loglik_exact (the closed-form GP evidence).
ev_laplace <- function(x, y, likelihood = c("bernoulli", "poisson", "gaussian", "softmax"),
                       kernel = "rbf", lengthscale = 1, outputscale = 1, mean = 0,
                       noise = 1, offset = NULL, tol = 1e-12, max_iter = 200L, a0 = NULL) {
  likelihood <- match.arg(likelihood)
  s <- ev_setup(x, y, likelihood, kernel, lengthscale, outputscale, mean)
  n <- s$n; C <- s$C; K <- s$K; mu <- s$mu; N <- n * C
  a <- if (is.null(a0)) rep(0, N) else as.numeric(a0)
  psi <- ev_psi(a, K, mu, likelihood, y, noise, offset)
  best <- Inf; stall <- 0L; it <- 0L
  repeat {
    f <- as.numeric(K %*% a) + mu
    L <- ev_lik(likelihood, f, y, noise, offset)
    gn <- max(abs(L$g - a))
    if (gn <= tol || it >= max_iter) break
    if (gn < best) { best <- gn; stall <- 0L } else stall <- stall + 1L
    if (best < 1e-9 && stall >= 3L) break
    it <- it + 1L
    b <- as.numeric(L$W %*% (f - mu)) + L$g
    anew <- solve(diag(N) + L$W %*% K, b)
    d <- anew - a
    t <- 1
    repeat {
      pn <- ev_psi(a + t * d, K, mu, likelihood, y, noise, offset)
      # accept any increase; at rounding level (converged) accept a tie
      if (is.finite(pn) && pn >= psi - 1e-13 * (1 + abs(psi))) break
      t <- t / 2
      if (t < 1e-12) break
    }
    if (t < 1e-12) break
    a <- a + t * d
    psi <- pn
  }
  if (gn > 1e-8) warning("ev_laplace: mode not converged, ||grad Psi||_inf = ", format(gn))
  f <- as.numeric(K %*% a) + mu
  L <- ev_lik(likelihood, f, y, noise, offset)
  logdet <- as.numeric(determinant(diag(N) + K %*% L$W, logarithm = TRUE)$modulus)
  loglik <- -0.5 * sum(a * (f - mu)) + L$lp - 0.5 * logdet
  out <- list(loglik = loglik, f = matrix(f, n, C), a = matrix(a, n, C), W = L$W,
              g = L$g, lp = L$lp, logdet = logdet, grad_norm = max(abs(L$g - a)),
              iter = it, K = K, Kx = s$Kx, mu = mu, lik = L)
  if (likelihood == "gaussian")
    out$loglik_exact <- ev_gaussian_exact(x, y, kernel, lengthscale, outputscale,
                                          mean, noise)$loglik
  out
}

# Exact GP regression evidence and its gradient (Gaussian likelihood):
# alpha = (K + s2 I)^-1 (y - mu); d/dtheta_j = 1/2 alpha'C_j alpha - 1/2 tr(Ky^-1 C_j)
# with C_j = dK/dlog ell_j, K (log s), s2 I (log noise); d/dmu = 1'alpha.
ev_gaussian_exact <- function(x, y, kernel, lengthscale, outputscale, mean, noise) {
  x <- as.matrix(x); n <- nrow(x)
  Ky <- ev_kernel(x, kernel, lengthscale, outputscale) + diag(noise, n)
  U <- chol(Ky)
  r <- y - mean
  alpha <- backsolve(U, forwardsolve(t(U), r))
  loglik <- -0.5 * sum(r * alpha) - sum(log(diag(U))) - n / 2 * log(2 * pi)
  Kinv <- chol2inv(U)
  dK <- ev_kernel_grad(x, kernel, lengthscale, outputscale)
  dK$noise <- diag(noise, n)
  gr <- vapply(dK, function(Cj) 0.5 * sum(alpha * (Cj %*% alpha)) - 0.5 * sum(Kinv * Cj), 0)
  gr <- c(gr[names(gr) != "noise"], mean = sum(alpha), gr["noise"])
  list(loglik = loglik, grad = gr)
}

## ------------------------------------------------------- parametrisation --

ev_all_names <- function(likelihood, lengthscale, C) {
  c(ev_ls_names(length(lengthscale)), "outputscale", ev_mean_names(C),
    if (likelihood == "gaussian") "noise")
}

# theta in the coordinates above (named), restricted to `learn`.
ev_theta <- function(likelihood, lengthscale, outputscale, mean = 0, noise = 1, C = 1L,
                     learn = c("lengthscale", "outputscale", "mean", "noise")) {
  C <- if (likelihood == "softmax") C else 1L
  th <- c(setNames(log(lengthscale), ev_ls_names(length(lengthscale))),
          outputscale = log(outputscale),
          setNames(rep_len(mean, C), ev_mean_names(C)),
          if (likelihood == "gaussian") c(noise = log(noise)))
  th[sub("[0-9]+$", "", names(th)) %in% learn]
}

# Inverse of ev_theta: a list of hyperparameters with the entries of theta set.
ev_untheta <- function(theta, hyper) {
  nm <- names(theta)
  il <- grep("^lengthscale", nm)
  if (length(il)) hyper$lengthscale <- exp(unname(theta[il]))
  if ("outputscale" %in% nm) hyper$outputscale <- exp(unname(theta["outputscale"]))
  im <- grep("^mean", nm)
  if (length(im)) hyper$mean <- unname(theta[im])
  if ("noise" %in% nm) hyper$noise <- exp(unname(theta["noise"]))
  hyper
}

## ------------------------------------------------------------- gradients --

# Central finite differences of ev_laplace()$loglik in theta's coordinates,
# each perturbed mode warm-started from the unperturbed one and converged to
# ||grad Psi||_inf <= tol.
# Error: truncation h^2/6 |l'''| plus rounding ~ delta / h, where delta is the
# absolute error of one loglik evaluation. In the log coordinates l''' is of the
# order of |loglik| (<= ~100 for n <= 40), so with h = 1e-4 the truncation is
# <= ~2e-7 and, with delta ~ 1e-13 (LU log-determinant and mode at 1e-12), the
# rounding ~1e-9; the optimum h = (3 delta / |l'''|)^(1/3) ~ eps^(1/3) ~ 1e-5
# would trade these equally, 1e-4 keeps the rounding part negligible even for
# a mode converged only to 1e-10. richardson = TRUE returns (4 D(h) - D(2h)) / 3
# (truncation O(h^4), error ~1e-10).
ev_grad_fd <- function(x, y, likelihood = c("bernoulli", "poisson", "gaussian", "softmax"),
                       kernel = "rbf", lengthscale = 1, outputscale = 1, mean = 0,
                       noise = 1, offset = NULL, tol = 1e-12, h = 1e-4,
                       learn = c("lengthscale", "outputscale", "mean", "noise"),
                       richardson = FALSE) {
  likelihood <- match.arg(likelihood)
  C <- ev_nclass(likelihood, y)
  hyper <- list(lengthscale = lengthscale, outputscale = outputscale,
                mean = rep_len(mean, C), noise = noise)
  th <- ev_theta(likelihood, lengthscale, outputscale, mean, noise, C, learn)
  base <- ev_laplace(x, y, likelihood, kernel, lengthscale, outputscale, mean, noise,
                     offset, tol)
  ll <- function(t) {
    hp <- ev_untheta(t, hyper)
    ev_laplace(x, y, likelihood, kernel, hp$lengthscale, hp$outputscale, hp$mean,
               hp$noise, offset, tol, a0 = base$a)$loglik
  }
  D <- function(hh) vapply(seq_along(th), function(j) {
    e <- replace(numeric(length(th)), j, hh)
    (ll(th + e) - ll(th - e)) / (2 * hh)
  }, 0)
  g <- if (richardson) (4 * D(h) - D(2 * h)) / 3 else D(h)
  setNames(g, names(th))
}

# Analytic gradient of the Laplace evidence, named as ev_theta().
# method "closed": bernoulli/poisson by the closed form 1/2 a'C_j a - 1/2 tr(R C_j)
# + u'C_j a, u = (I + W K)^-1 s2, s2 = +1/2 diag(Sigma) d3, gaussian by the
# closed form, softmax by the dense implicit-function gradient; method "dense":
# the dense implicit-function gradient for every non-Gaussian likelihood (an
# independent cross-check of the closed form's s2 sign). s2_sign = -1 gives the
# printed R&W Alg. 5.1 sign (wrong; kept only to show that FD rejects it).
ev_grad <- function(x, y, likelihood = c("bernoulli", "poisson", "gaussian", "softmax"),
                    kernel = "rbf", lengthscale = 1, outputscale = 1, mean = 0,
                    noise = 1, offset = NULL, tol = 1e-12,
                    learn = c("lengthscale", "outputscale", "mean", "noise"),
                    method = c("closed", "dense"), a0 = NULL, s2_sign = 1) {
  likelihood <- match.arg(likelihood)
  method <- match.arg(method)
  x <- as.matrix(x)
  C <- ev_nclass(likelihood, y)
  keep <- names(ev_theta(likelihood, lengthscale, outputscale, mean, noise, C, learn))
  if (likelihood == "gaussian") {
    ge <- ev_gaussian_exact(x, y, kernel, lengthscale, outputscale, mean, noise)
    return(structure(ge$grad[keep], loglik = ge$loglik))
  }
  m <- ev_laplace(x, y, likelihood, kernel, lengthscale, outputscale, mean, noise,
                  offset, tol, a0 = a0)
  n <- nrow(x); N <- n * C
  a <- as.numeric(m$a); K <- m$K
  dKx <- ev_kernel_grad(x, kernel, lengthscale, outputscale)
  dK <- if (C == 1L) dKx else lapply(dKx, function(M) kronecker(diag(C), M))
  E <- sapply(seq_len(C), function(c) as.numeric(rep(seq_len(C), each = n) == c))
  colnames(E) <- ev_mean_names(C)
  if (method == "closed" && likelihood %in% c("bernoulli", "poisson")) {
    w <- m$lik$w; sw <- sqrt(w)
    B <- diag(n) + outer(sw, sw) * K
    R <- outer(sw, sw) * chol2inv(chol(B))        # W^1/2 B^-1 W^1/2 = (W^-1 + K)^-1
    Sig <- K - K %*% R %*% K
    s2 <- s2_sign * 0.5 * diag(Sig) * m$lik$d3    # + sign: d(-1/2 log|B|)/df
    IKR <- diag(n) - K %*% R                      # (I + K W)^-1
    gk <- vapply(dK, function(Cj) 0.5 * sum(a * (Cj %*% a)) - 0.5 * sum(R * Cj) +
                   sum(s2 * (IKR %*% (Cj %*% a))), 0)
    gm <- colSums(E * a) + as.numeric(crossprod(s2, IKR %*% E))
  } else {
    # Implicit function theorem, all dense nC x nC:
    #  explicit   1/2 a'C_j a - 1/2 tr((I+KW)^-1 C_j W)   (kernel), e'a (mean)
    #  implicit   dlogq/df . df/dtheta with df/dtheta_j = (I+KW)^-1 C_j a,
    #             df/dmu_c = (I+KW)^-1 e_c, and
    #             dlogq/df_k = -1/2 tr((I+KW)^-1 K dW/df_k) = -1/2 tr(Sigma dW/df_k)
    #  (the Psi part has zero gradient in f at the mode).
    W <- m$W
    A <- diag(N) + K %*% W
    Ainv <- solve(A)
    Sig <- Ainv %*% K; Sig <- (Sig + t(Sig)) / 2   # (K^-1 + W)^-1
    dq <- numeric(N)
    if (likelihood == "softmax") {
      P <- m$lik$P
      for (i in seq_len(n)) {
        idx <- (seq_len(C) - 1L) * n + i
        pi_i <- P[i, ]
        Sb <- Sig[idx, idx]
        for (c in seq_len(C)) {
          dp <- pi_i * ((seq_len(C) == c) - pi_i[c])  # d pi_i / d f_ic
          dW <- diag(dp, C) - outer(dp, pi_i) - outer(pi_i, dp)
          dq[idx[c]] <- -0.5 * sum(Sb * dW)
        }
      }
    } else {
      dq <- 0.5 * diag(Sig) * m$lik$d3          # dW_kk/df_k = -d3_k
    }
    gk <- vapply(dK, function(Cj) 0.5 * sum(a * (Cj %*% a)) -
                   0.5 * sum(diag(Ainv %*% Cj %*% W)) +
                   sum(dq * (Ainv %*% (Cj %*% a))), 0)
    gm <- colSums(E * a) + as.numeric(crossprod(dq, Ainv %*% E))
  }
  g <- c(gk[names(gk) != "outputscale"], gk["outputscale"], gm)
  structure(g[keep], loglik = m$loglik, a = m$a)
}

## --------------------------------------------------- softmax log-det (R&W) --

# log det(I + K W) for softmax in the R&W Alg. 3.3 form, K = K_x (n x n),
# pi = n x C class probabilities: sum_c log|B_c| + log|sum_c E_c| with
# D_c = diag(pi_c), B_c = I + D_c^1/2 K D_c^1/2, E_c = D_c^1/2 B_c^-1 D_c^1/2.
# (det(I + K D - K Pi Pi') = det(I + K D) det(I - Pi'(I + K D)^-1 K Pi) and
# Pi'(I + K D)^-1 K Pi = sum_c (D_c - E_c) = I - sum_c E_c.)
ev_softmax_logdet_rw <- function(K, pi) {
  n <- nrow(K)
  ld <- 0; Esum <- matrix(0, n, n)
  for (c in seq_len(ncol(pi))) {
    sd <- sqrt(pi[, c])
    U <- chol(diag(n) + outer(sd, sd) * K)
    ld <- ld + 2 * sum(log(diag(U)))
    Esum <- Esum + outer(sd, sd) * chol2inv(U)
  }
  ld + 2 * sum(log(diag(chol((Esum + t(Esum)) / 2))))
}

## -------------------------------------------------------------- optimiser --

# L-BFGS-B (R's optim) on the evidence in theta's coordinates with the
# analytic gradient; start 1 is the given hyperparameters, starts 2.. add
# seeded N(0, 1) perturbations to theta. Bounds: log coordinates in [-9, 9]
# (ell, s, sigma^2 in [1.2e-4, 8e3]), means in [-20, 20]. Returns the best
# loglik, its theta, the hyperparameters and all starts' values.
ev_optim <- function(x, y, likelihood = c("bernoulli", "poisson", "gaussian", "softmax"),
                     kernel = "rbf", lengthscale = 1, outputscale = 1, mean = 0,
                     noise = 1, offset = NULL, starts = 5, seed = 1,
                     learn = c("lengthscale", "outputscale", "mean", "noise"),
                     tol = 1e-10, maxit = 200) {
  likelihood <- match.arg(likelihood)
  C <- ev_nclass(likelihood, y)
  hyper <- list(lengthscale = lengthscale, outputscale = outputscale,
                mean = rep_len(mean, C), noise = noise)
  th0 <- ev_theta(likelihood, lengthscale, outputscale, mean, noise, C, learn)
  lo <- ifelse(grepl("^mean", names(th0)), -20, -9)
  up <- -lo
  cache <- new.env()
  eval_at <- function(t) {
    if (!is.null(cache$t) && identical(cache$t, t)) return(cache$v)
    hp <- ev_untheta(setNames(t, names(th0)), hyper)
    v <- tryCatch({
      g <- ev_grad(x, y, likelihood, kernel, hp$lengthscale, hp$outputscale, hp$mean,
                   hp$noise, offset, tol, learn, a0 = cache$a)
      if (!is.null(attr(g, "a"))) cache$a <- attr(g, "a")
      list(f = -attr(g, "loglik"), g = -as.numeric(g))
    }, error = function(e) list(f = 1e100, g = rep(0, length(t))))
    if (!is.finite(v$f)) v <- list(f = 1e100, g = rep(0, length(t)))
    cache$t <- t; cache$v <- v
    v
  }
  set.seed(seed)
  res <- vector("list", starts)
  for (k in seq_len(starts)) {
    t0 <- th0 + if (k == 1L) 0 else stats::rnorm(length(th0))
    t0 <- pmin(pmax(t0, lo), up)
    cache$a <- NULL; cache$t <- NULL
    o <- stats::optim(t0, function(t) eval_at(t)$f, function(t) eval_at(t)$g,
                      method = "L-BFGS-B", lower = lo, upper = up,
                      control = list(maxit = maxit, factr = 1e5, pgtol = 0))
    res[[k]] <- list(loglik = -o$value, theta = setNames(o$par, names(th0)),
                     convergence = o$convergence)
  }
  lls <- vapply(res, `[[`, 0, "loglik")
  b <- res[[which.max(lls)]]
  list(loglik = b$loglik, theta = b$theta, hyper = ev_untheta(b$theta, hyper),
       convergence = b$convergence, starts_loglik = lls)
}
