# Regenerates the valla fixtures read by the R and Octave tests:
#   Rscript inst/extdata/make_valla_fixtures.R   (from the repo root)
# The expected numbers come from an independent plain-R oracle (no scalegp
# calls): explicit network Jacobians J (analytic backprop, checked here against
# central finite differences), the LLA prior kappa = prior_var * J J' and the
# dense exact LLA posterior (Ortega et al., Variational Linearized Laplace
# Approximation for Bayesian Deep Learning; docs/valla.md):
#   K_LLA(x,x') = kappa(x,x') - kappa(x,X) L^1/2 (I + L^1/2 kappa(X,X) L^1/2)^-1 L^1/2 kappa(X,x')
# with L = I/noise (gaussian) or the softmax Hessian blocks diag(p) - p p' at the
# network logits (the symmetric form, since they are singular).
#
# Cases (generic MLPs with fixed weights; nnet fits with skip = TRUE, seeded):
#   reg_tanh_1d      1-8-8-1 tanh, gaussian        softmax_tanh_2d  2-10-10-3 tanh, softmax
#   reg_relu_2d      2-20-1 relu, gaussian          softmax_relu_1d  1-24-3 relu, softmax
#   nnet_reg         nnet(size 4, skip, linout)     nnet_softmax     nnet(size 3, skip, softmax)
# The generic cases have more parameters than N*C, so kappa(X,X) is invertible
# (its condition number is printed) and VaLLA's closed form with Z = X must
# reproduce exact LLA.
#
# Files per case, no headers:
#   valla_<case>_params.csv  one row: likelihood (0 gaussian, 1 softmax),
#     activation (0 tanh, 1 sigmoid, 2 relu; nnet: its clipped logistic),
#     prior_var, noise (0 for softmax), skip (0/1), n_layers, widths (n_layers + 1:
#     D, hidden..., C)
#   valla_<case>_weights.csv one column: for each layer l, W_l column-major
#     (in x out, a_l = act(a_{l-1} W_l + b_l), last layer linear), then b_l; then
#     the skip matrix (D x C, column-major, added to the last pre-activation)
#   valla_<case>_train.csv   N rows: x (D), y (softmax: 1..C), g (C, network
#     output: regression value or logits), exact LLA latent variance (C)
#   valla_<case>_test.csv    m rows: x (D), g (C), latent variance (C), resp (C:
#     gaussian predictive variance = latent + noise; softmax probit probabilities
#     softmax(g_c / sqrt(1 + pi/8 v_cc))), latent covariance (C x C column-major),
#     prior variance diag kappa(x, x) (C), and for nnet cases
#     predict.nnet(type = "raw") (C)
#   valla_<case>_wts.csv     nnet cases only: the fit's wts vector (nnet order)
set.seed(20261123)
acts <- c("tanh", "sigmoid", "relu")
act <- function(f, h) switch(f, tanh = tanh(h), sigmoid = 1 / (1 + exp(-h)), relu = pmax(h, 0))
dact <- function(f, h) switch(f, tanh = 1 - tanh(h)^2,
                              sigmoid = { s <- 1 / (1 + exp(-h)); s * (1 - s) },
                              relu = as.numeric(h > 0))

# net: list(W = list(...), b = list(...), skip = D x C or NULL, act)
forward <- function(net, x, keep = FALSE) {
  a <- list(x); h <- list()
  L <- length(net$W)
  for (l in seq_len(L)) {
    h[[l]] <- sweep(a[[l]] %*% net$W[[l]], 2, net$b[[l]], "+")
    if (l == L && !is.null(net$skip)) h[[l]] <- h[[l]] + x %*% net$skip
    a[[l + 1]] <- if (l < L) act(net$act, h[[l]]) else h[[l]]
  }
  if (keep) list(a = a, h = h) else a[[L + 1]]
}
pack <- function(net) c(unlist(lapply(seq_along(net$W), function(l) c(net$W[[l]], net$b[[l]]))),
                        if (!is.null(net$skip)) c(net$skip))
unpack <- function(net, theta) {
  k <- 0
  take <- function(n) { v <- theta[k + seq_len(n)]; k <<- k + n; v }
  for (l in seq_along(net$W)) {
    net$W[[l]][] <- take(length(net$W[[l]])); net$b[[l]][] <- take(length(net$b[[l]]))
  }
  if (!is.null(net$skip)) net$skip[] <- take(length(net$skip))
  net
}

# Analytic Jacobian by backprop: rows i + N*(c-1), columns in pack() order.
jacobian <- function(net, x) {
  n <- nrow(x); L <- length(net$W); fw <- forward(net, x, keep = TRUE)
  C <- ncol(net$W[[L]])
  J <- matrix(0, n * C, length(pack(net)))
  for (c in 1:C) {
    delta <- matrix(0, n, C); delta[, c] <- 1          # d g_c / d h_L
    blocks <- vector("list", L)
    for (l in L:1) {
      # row i: d g_c(x_i) / d W_l = outer(a_{l-1}(x_i), delta_i), column-major
      dW <- t(sapply(1:n, function(i) c(outer(fw$a[[l]][i, ], delta[i, ]))))
      if (n == 1 || length(dW) == n) dW <- matrix(dW, n)
      blocks[[l]] <- cbind(dW, delta)
      if (l > 1) delta <- (delta %*% t(net$W[[l]])) * dact(net$act, fw$h[[l - 1]])
    }
    rows <- do.call(cbind, blocks)
    if (!is.null(net$skip)) {
      ds <- matrix(0, n, C); ds[, c] <- 1
      rows <- cbind(rows, t(sapply(1:n, function(i) c(outer(x[i, ], ds[i, ])))))
    }
    J[(c - 1) * n + 1:n, ] <- rows
  }
  J
}
jacobian_fd <- function(net, x) {
  th <- pack(net)
  sapply(seq_along(th), function(k) {
    e <- 1e-6 * max(1, abs(th[k])); tp <- tm <- th; tp[k] <- tp[k] + e; tm[k] <- tm[k] - e
    (c(forward(unpack(net, tp), x)) - c(forward(unpack(net, tm), x))) / (2 * e)
  })
}

softmax <- function(G) { P <- exp(G - apply(G, 1, max)); P / rowSums(P) }
# Lambda^(1/2) (N C x N C, rows i + N c) for the likelihood at the outputs G.
lambda_half <- function(lik, G, noise) {
  n <- nrow(G); C <- ncol(G)
  if (lik == "gaussian") return(diag(n) / sqrt(noise))
  P <- softmax(G); S <- matrix(0, n * C, n * C)
  for (i in 1:n) {
    idx <- i + n * (0:(C - 1))
    e <- eigen(diag(P[i, ]) - tcrossprod(P[i, ]), symmetric = TRUE)
    S[idx, idx] <- e$vectors %*% diag(sqrt(pmax(e$values, 0))) %*% t(e$vectors)
  }
  S
}

# Exact LLA at the training inputs and at xs: latent covariance blocks.
exact_lla <- function(net, lik, x, xs, prior_var, noise) {
  n <- nrow(x); m <- nrow(xs)
  J <- jacobian(net, x); Js <- jacobian(net, xs)
  Jfd <- jacobian_fd(net, x)
  fd_err <- max(abs(J - Jfd)) / max(abs(J))
  if (fd_err > 1e-6) stop("analytic Jacobian differs from finite differences: ", fd_err)
  G <- forward(net, x); C <- ncol(G)
  K <- prior_var * tcrossprod(J); Ks <- prior_var * tcrossprod(J, Js)
  Kss <- prior_var * tcrossprod(Js)
  Lh <- lambda_half(lik, G, noise)
  R <- chol(diag(n * C) + Lh %*% K %*% Lh)
  post <- function(Ka, Kb, Kab) Kab - crossprod(backsolve(R, Lh %*% Ka, transpose = TRUE),
                                                backsolve(R, Lh %*% Kb, transpose = TRUE))
  list(G = G, var = matrix(diag(post(K, K, K)), n, C), cov_s = post(Ks, Ks, Kss),
       prior_s = matrix(diag(Kss), m, C),
       Gs = forward(net, xs), fd_err = fd_err, P = ncol(J),
       cond = if (ncol(J) >= n * C) kappa(K, exact = TRUE) else Inf)
}

out <- "inst/extdata"
w <- function(m, f) write.table(format(m, digits = 17), file.path(out, f), sep = ",",
                                quote = FALSE, row.names = FALSE, col.names = FALSE)
rnd <- function(v) round(v, 6)

make_case <- function(name, net, lik, x, y, xs, prior_var, noise = 0, nnet_raw = NULL,
                      wts = NULL) {
  r <- exact_lla(net, lik, x, xs, prior_var, noise)
  m <- nrow(xs); C <- ncol(r$G)
  maxh <- max(sapply(forward(net, rbind(x, xs), keep = TRUE)$h, function(h) max(abs(h))))
  if (net$act == "relu") {
    hid <- forward(net, rbind(x, xs), keep = TRUE)$h
    mink <- min(sapply(hid[-length(hid)], function(h) min(abs(h))))
    if (mink < 1e-4) stop(name, ": a ReLU pre-activation is within 1e-4 of the kink")
  }
  cov <- matrix(0, m, C * C); lv <- matrix(0, m, C)
  for (j in 1:m) {
    idx <- j + m * (0:(C - 1))
    B <- r$cov_s[idx, idx, drop = FALSE]; cov[j, ] <- c(B); lv[j, ] <- diag(B)
  }
  resp <- if (lik == "gaussian") lv + noise else softmax(r$Gs / sqrt(1 + pi / 8 * lv))
  L <- length(net$W)
  widths <- c(nrow(net$W[[1]]), sapply(net$W, ncol))
  w(matrix(c(if (lik == "gaussian") 0 else 1, match(net$act, acts) - 1, prior_var, noise,
             !is.null(net$skip), L, widths), 1), sprintf("valla_%s_params.csv", name))
  w(matrix(pack(net)), sprintf("valla_%s_weights.csv", name))
  w(cbind(x, y, r$G, r$var), sprintf("valla_%s_train.csv", name))
  w(cbind(xs, r$Gs, lv, resp, cov, r$prior_s, nnet_raw), sprintf("valla_%s_test.csv", name))
  if (!is.null(wts)) w(matrix(wts), sprintf("valla_%s_wts.csv", name))
  cat(sprintf(paste("%-16s N = %2d, C = %d, P = %3d: |J - J_fd| %.1e, cond(kappa_XX) %.2g,",
                    "max |pre-activation| %.2g, var in [%.3g, %.3g]\n"),
              name, nrow(x), C, r$P, r$fd_err, r$cond, maxh, min(r$var), max(lv)))
}

rand_net <- function(widths, act, scale = 1) {
  L <- length(widths) - 1
  list(W = lapply(1:L, function(l) matrix(rnd(rnorm(widths[l] * widths[l + 1],
                                                    sd = scale / sqrt(widths[l]))),
                                          widths[l], widths[l + 1])),
       b = lapply(1:L, function(l) rnd(rnorm(widths[l + 1], sd = 0.3))),
       skip = NULL, act = act)
}

# --- generic MLPs (fixed random weights) --------------------------------------
# 1-D inputs make the NTK smooth: few points and large weights keep kappa(X,X)
# well conditioned
net <- rand_net(c(1, 8, 8, 1), "tanh", 3)
x <- matrix(rnd(seq(-2, 2, length.out = 10) + runif(10, -0.05, 0.05)))
y <- rnd(c(forward(net, x)) + rnorm(10, sd = 0.2))
make_case("reg_tanh_1d", net, "gaussian", x, y, matrix(rnd(runif(12, -3, 3))), 0.5, 0.05)

net <- rand_net(c(2, 20, 1), "relu", 1.2)   # hidden hyperplanes through the data
net$b[[1]] <- rnd(-colSums(net$W[[1]] * matrix(runif(40, -1.8, 1.8), 2)))
x <- matrix(rnd(runif(40, -2, 2)), 20, 2)
y <- rnd(c(forward(net, x)) + rnorm(20, sd = 0.3))
make_case("reg_relu_2d", net, "gaussian", x, y, matrix(rnd(runif(24, -2.5, 2.5)), 12, 2),
          2, 0.1)

net <- rand_net(c(2, 10, 10, 3), "tanh", 1.5)
x <- matrix(rnd(runif(30, -2, 2)), 15, 2)
y <- max.col(softmax(forward(net, x)) + matrix(runif(45, 0, 0.3), 15, 3))
make_case("softmax_tanh_2d", net, "softmax", x, y, matrix(rnd(runif(24, -2.5, 2.5)), 12, 2), 1)

# ReLU kinks spread over the data range (else the 1-D Jacobian is rank deficient)
net <- rand_net(c(1, 24, 3), "relu", 1.5)
net$b[[1]] <- rnd(-net$W[[1]][1, ] * runif(24, -2.2, 2.2))
x <- matrix(rnd(seq(-2, 2, length.out = 10) + runif(10, -0.05, 0.05)))
y <- max.col(softmax(forward(net, x)) + matrix(runif(30, 0, 0.3), 10, 3))
make_case("softmax_relu_1d", net, "softmax", x, y, matrix(rnd(runif(10, -3, 3))), 0.7)

# --- nnet fits (skip layer, logistic hidden units) -----------------------------
# The nnet wts vector per unit: hidden h: b, i1..iD; output k: b, h1..hH, i1..iD.
nnet_to_mlp <- function(fit) {
  D <- fit$n[1]; H <- fit$n[2]; K <- fit$n[3]; wts <- fit$wts
  hid <- matrix(wts[1:(H * (D + 1))], D + 1, H)
  o <- matrix(wts[H * (D + 1) + 1:(K * (1 + H + D))], 1 + H + D, K)
  list(W = list(hid[-1, , drop = FALSE], o[1 + 1:H, , drop = FALSE]),
       b = list(hid[1, ], o[1, ]), skip = o[1 + H + 1:D, , drop = FALSE], act = "sigmoid")
}
check_nnet <- function(fit, net, xs, softmax_out) {
  g <- forward(net, xs); ref <- predict(fit, xs, type = "raw")
  xs <- rbind(xs, fit$x_train)
  mine <- if (softmax_out) softmax(g) else g
  err <- max(abs(mine - ref)) / max(abs(ref))
  if (err > 1e-12) stop("forward pass differs from predict.nnet: ", err)
  maxh <- max(abs(forward(net, xs, keep = TRUE)$h[[1]]))
  if (maxh > 14) stop("hidden pre-activation near nnet's clipping at 15: ", maxh)
  ref
}
if (!requireNamespace("nnet", quietly = TRUE)) stop("the nnet package is needed")

x <- matrix(rnd(runif(60, -2, 2)), 30, 2)
y <- rnd(sin(1.5 * x[, 1]) + 0.5 * x[, 2] + rnorm(30, sd = 0.1))
xs <- matrix(rnd(runif(24, -2.2, 2.2)), 12, 2)
set.seed(11)
fit <- nnet::nnet(x, y, size = 4, skip = TRUE, linout = TRUE, decay = 1e-3, maxit = 300,
                  trace = FALSE)
net <- nnet_to_mlp(fit); fit$x_train <- x
make_case("nnet_reg", net, "gaussian", x, y, xs, 0.8, 0.02,
          nnet_raw = check_nnet(fit, net, xs, FALSE), wts = fit$wts)

x <- matrix(rnd(runif(60, -2, 2)), 30, 2)
y <- 1 + (x[, 1] > 0) + (x[, 1] > 0 & x[, 2] > 0.5)
y[c(4, 13)] <- c(3, 1)
xs <- matrix(rnd(runif(24, -2.2, 2.2)), 12, 2)
set.seed(12)
fit <- nnet::nnet(x, nnet::class.ind(y), size = 3, skip = TRUE, softmax = TRUE,
                  decay = 5e-2, maxit = 300, trace = FALSE)
net <- nnet_to_mlp(fit); fit$x_train <- x
make_case("nnet_softmax", net, "softmax", x, y, xs, 1.5,
          nnet_raw = check_nnet(fit, net, xs, TRUE), wts = fit$wts)
