# valla's closed form with more inducing points than network weights:
# an nnet fit with 10 hidden units on 13 inputs has 151 weights, so the NTK Gram
# matrix of the 400 training inputs is singular; Z = X is still exact LLA.
# Oracle: LLA in weight space from the explicit nnet Jacobian written here,
# s0 j (I + s0 J'J / s)^{-1} j'.
#
# Tolerance (analysis, not measurement): the closed form takes F K_Zx from the
# SVD of the explicit Jacobian J_Z (relative error ~ n u cond(J_Z)) and the
# posterior from the Cholesky factor of I + W (~ n u cond(I + G), G = s0 J'J / s,
# the conditioning of LLA itself, which the oracle's solve and method = "lla"
# share), with n = max(M, P) the dimension constant of dense factorizations.

# Jacobian of a one-hidden-layer linout nnet (no skip) in nnet's weight order:
# per hidden unit (bias, inputs), then the output (bias, hidden units); nnet's
# logistic is clipped to exactly 0 / 1 beyond |h| > 15 (zero derivative there).
nnet_jacobian <- function(nn, x) {
  D <- nn$n[1L]; H <- nn$n[2L]; w <- nn$wts
  Wh <- matrix(w[seq_len(H * (D + 1))], D + 1, H)
  wo <- w[H * (D + 1) + seq_len(H + 1)]
  X1 <- cbind(1, x)
  h <- X1 %*% Wh
  a <- ifelse(h < -15, 0, ifelse(h > 15, 1, 1 / (1 + exp(-h))))
  da <- a * (1 - a)
  cbind(do.call(cbind, lapply(seq_len(H), function(k) X1 * (wo[k + 1] * da[, k]))), 1, a)
}

test_that("closed form with Z = X and more points than nnet weights equals exact LLA", {
  skip_if_not_installed("nnet")
  set.seed(11)
  n <- 400; d <- 13
  x <- matrix(rnorm(n * d), n, d)
  y <- sin(x[, 1]) + x[, 2] * x[, 3] + 0.3 * rnorm(n)
  nn <- nnet::nnet(x, y, size = 10, linout = TRUE, decay = 1e-2, maxit = 300, trace = FALSE)
  expect_equal(length(nn$wts), 151L)
  s <- mean(nn$residuals^2); s0 <- 0.5
  xt <- rbind(x[1:20, ], matrix(rnorm(30 * d), 30, d))
  cf <- valla(nn, x, y, inducing = x, closed_form = TRUE, noise = s, prior_var = s0,
              xtest = xt, verbose = FALSE)
  lla <- valla(nn, x, y, method = "lla", noise = s, prior_var = s0, xtest = xt, verbose = FALSE)
  J <- nnet_jacobian(nn, x); Jt <- nnet_jacobian(nn, xt)
  P <- ncol(J)
  S <- solve(diag(P) + s0 * crossprod(J) / s)
  ref <- s0 * rowSums((Jt %*% S) * Jt)
  sv <- svd(J)$d
  expect_gt(min(sv), 0)  # J has full column rank: the identity to exact LLA holds
  tol <- max(n, P) * .Machine$double.eps * (max(sv) / min(sv) + 1 + s0 * max(sv)^2 / s)
  expect_lt(tol, 1e-6)  # the bound is tight enough to show the identity
  expect_lt(max(abs(cf$test$latent_var - ref) / ref), tol)
  expect_lt(max(abs(lla$test$latent_var - ref) / ref), tol)
  expect_lt(max(abs(cf$test$latent_var - lla$test$latent_var) / ref), 2 * tol)
  # every parameter direction is spanned: no Nystrom residual term is kept
  expect_false(cf$prior)
  expect_null(cf$P1)
  # the fit is plain data: predict after a save/reload gives the same numbers
  f <- tempfile(fileext = ".rds"); on.exit(unlink(f))
  saveRDS(cf, f)
  expect_identical(predict(readRDS(f), xt)$latent_var, cf$test$latent_var)
})

test_that("exact LLA with a noise below rounding says why and what to do", {
  skip_if_not_installed("nnet")
  set.seed(12)
  x <- matrix(rnorm(200 * 3), 200, 3); y <- x[, 1]^2 + 0.1 * rnorm(200)
  nn <- nnet::nnet(x, y, size = 3, linout = TRUE, maxit = 100, trace = FALSE)
  expect_error(valla(nn, x, y, method = "lla", noise = 1e-20, verbose = FALSE),
               "rounding level.*raise noise.*closed_form = TRUE with inducing = x")
  cf <- valla(nn, x, y, inducing = x, closed_form = TRUE, noise = 1e-20, verbose = FALSE)
  expect_true(all(is.finite(predict(cf, x)$latent_var)))
})
