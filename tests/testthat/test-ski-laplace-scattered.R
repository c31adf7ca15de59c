# ski_laplace's scattered layout from R. The oracle is the dense Laplace of the
# GP whose kernel matrix is K_f = W K_G W' on the observations: at grid nodes
# with linear interpolation W selects the nodes, so gp_laplace's exact Laplace
# at the nodes is the oracle; at general points with linear interpolation W is
# built here (bilinear weights) and a 20-line Newton (Rasmussen and Williams,
# Alg. 3.1/3.2) on the dense K_f is the oracle. Both solve the same equations
# to a mode bound tol = 1e-10 with inner_rtol 1e-12 (a variance's CG error is at
# most inner_rtol |sw k*|^2), rounding about 1e-16 cond(B) <= 1e-13: hence
# 1e-8. Then errors by argument and predictions from a saved fit.

scat_grid <- list(m = c(12, 10), h = 0.25)
scat_bounds <- rbind(c(0, 0.25 * 11), c(0, 0.25 * 9))

scat_case <- function(n = 150, seed = 4) {
  set.seed(seed)
  x <- cbind(runif(n, 0.25, 2.5), runif(n, 0.25, 2))  # cubic's valid range
  off <- rnorm(n, 0, 0.2)
  y <- rpois(n, exp(0.5 + sin(1.3 * x[, 1]) + cos(x[, 2]) + off))
  list(x = x, y = y, off = off)
}

sk_scat <- function(x, y, ...) {
  ski_laplace(x, y, layout = "scattered", grid_size = scat_grid$m, grid_bounds = scat_bounds,
              lengthscale = c(0.6, 0.8), outputscale = 1.3, mean = 0.5, learn = character(0),
              tol = 1e-10, inner_rtol = 1e-12, verbose = FALSE, ...)
}

# dense bilinear W (n x m), grid points first dimension fastest
bilinear_w <- function(x) {
  m <- scat_grid$m; h <- scat_grid$h
  W <- matrix(0, nrow(x), prod(m))
  for (i in seq_len(nrow(x))) {
    t <- x[i, ] / h
    i0 <- pmin(floor(t), m - 2)
    f <- t - i0
    for (a in 0:1) for (b in 0:1) {
      g <- (i0[1] + a) + (i0[2] + b) * m[1] + 1
      W[i, g] <- W[i, g] + (if (a) f[1] else 1 - f[1]) * (if (b) f[2] else 1 - f[2])
    }
  }
  W
}

grid_kernel <- function(ls = c(0.6, 0.8), os = 1.3) {
  G <- as.matrix(expand.grid(x1 = (0:11) * 0.25, x2 = (0:9) * 0.25))
  D2 <- outer(G[, 1], G[, 1], "-")^2 / ls[1]^2 + outer(G[, 2], G[, 2], "-")^2 / ls[2]^2
  os * exp(-0.5 * D2)
}

# R&W Alg. 3.1 and 3.2 for poisson with offsets on the dense K
dense_laplace <- function(K, y, off, mu) {
  f <- rep(mu, length(y))
  for (it in 1:100) {
    w <- exp(f + off); g <- y - w; sw <- sqrt(w)
    L <- t(chol(diag(length(y)) + sw * t(sw * K)))
    b <- w * (f - mu) + g
    a <- b - sw * backsolve(t(L), forwardsolve(L, sw * (K %*% b)))
    fn <- mu + as.vector(K %*% a)
    done <- max(abs(fn - f)) < 1e-13
    f <- fn
    if (done) break
  }
  w <- exp(f + off); sw <- sqrt(w)
  L <- t(chol(diag(length(y)) + sw * t(sw * K)))
  lp <- sum(y * (f + off) - exp(f + off) - lgamma(y + 1))
  list(f = f, L = L, sw = sw,
       q = lp - 0.5 * sum(a * (f - mu)) - sum(log(diag(L))))
}

test_that("scattered at grid nodes, linear: gp_laplace's exact Laplace at the nodes", {
  g <- expand.grid(i = 0:11, j = 0:9)
  keep <- seq_len(nrow(g)) %% 3 != 2
  x <- 0.25 * as.matrix(g[keep, ])
  set.seed(5)
  y <- rpois(nrow(x), 2)
  fit <- sk_scat(x, y, interpolation = "linear", loglik = TRUE, loglik_method = "exact")
  expect_true(fit$converged)
  expect_equal(fit$used$layout, "scattered")
  expect_equal(fit$used$interpolation, "linear")
  expect_null(fit$observed)
  expect_equal(unname(fit$x), unname(x))
  ref <- gp_laplace(x, y, likelihood = "poisson", lengthscale = c(0.6, 0.8), outputscale = 1.3,
                    mean = 0.5, learn = character(0), evidence = "exact", tol = 1e-10,
                    verbose = FALSE)
  expect_equal(fit$f, as.vector(ref$f), tolerance = 1e-8)
  expect_equal(fit$loglik, ref$loglik, tolerance = 1e-8)
  expect_equal(unname(fit$loglik_grad), unname(ref$loglik_grad), tolerance = 1e-8)
})

test_that("scattered at general points, linear: the dense Laplace on W K W'", {
  sc <- scat_case()
  xt <- rbind(c(0.4, 0.3), c(1.33, 1.7), c(2.6, 2.1))
  fit <- sk_scat(sc$x, sc$y, offset = sc$off, interpolation = "linear", loglik = TRUE,
                 loglik_method = "exact", xtest = xt)
  expect_true(fit$converged)
  W <- bilinear_w(sc$x)
  KG <- grid_kernel()
  ref <- dense_laplace(W %*% KG %*% t(W), sc$y, sc$off, 0.5)
  expect_equal(fit$f, ref$f, tolerance = 1e-8)
  expect_equal(fit$loglik, ref$q, tolerance = 1e-8)
  # latent variance at new points: k** - |L^-1 sw W K w*|^2
  Wt <- bilinear_w(xt)
  kss <- diag(Wt %*% KG %*% t(Wt))
  V <- forwardsolve(ref$L, ref$sw * (W %*% KG %*% t(Wt)))
  expect_equal(fit$test$var, kss - colSums(V^2), tolerance = 1e-8)
  expect_equal(fit$test$mean, as.vector(Wt %*% fit$weights), tolerance = 1e-12)
  # the default interpolation of the scattered layout is cubic, as ski_gsgp's
  f3 <- ski_laplace(sc$x, sc$y, layout = "scattered", grid_size = c(12, 10),
                    lengthscale = 0.7, outputscale = 1, mean = 0.5, learn = character(0),
                    verbose = FALSE)
  expect_equal(f3$used$interpolation, "cubic")
})

test_that("scattered: slq and the stochastic variance map run; auto picks exact", {
  sc <- scat_case()
  fit <- sk_scat(sc$x, sc$y, offset = sc$off, loglik_method = "slq", loglik = TRUE,
                 variance = "stochastic", seed = 1)
  expect_true(fit$converged)
  expect_equal(fit$used$loglik_method, "slq")
  expect_length(fit$grid_var, 120)
  expect_length(fit$var, 150)
  expect_true(all(is.finite(fit$var)) && all(is.finite(fit$grid_var_se)))
  expect_equal(sk_scat(sc$x, sc$y)$used$loglik_method, "exact")
})

test_that("scattered: errors name the argument", {
  sc <- scat_case(40)
  expect_error(sk_scat(sc$x, sc$y + 0.5), "'y' .*non-negative integers .*element 1")
  expect_error(sk_scat(sc$x, pmin(sc$y, 2), likelihood = "bernoulli"), "'y' .*0 or 1")
  expect_error(sk_scat(sc$x, sc$y, likelihood = "binomial", trials = 1), "'y' .*0..trials")
  expect_error(sk_scat(sc$x, sc$y[-1]), "'y' needs one value per row of x \\(40\\); got 39")
  expect_error(sk_scat(sc$x, sc$y, offset = 1:3), "'offset' needs one value per row of x")
  expect_error(sk_scat(sc$x, sc$y, likelihood = "binomial", trials = 1:3),
               "'trials' needs 1 or one value per row of x")
  bad <- sc$x; bad[3, 2] <- NA
  expect_error(sk_scat(bad, sc$y), "'x'")
  bad <- sc$x; bad[3, 2] <- 2.5  # outside cubic's valid range [0.25, 2]
  expect_error(sk_scat(bad, sc$y), "'x' row 3, column 2 \\(2.5\\) is outside")
  expect_warning(fd <- sk_scat(bad, sc$y, bounds_policy = "drop"), "1 of 40 rows of x")
  expect_length(fd$f, 39)
  expect_true(sk_scat(bad, sc$y, bounds_policy = "clamp")$converged)
  expect_error(sk_scat(sc$x, sc$y, bounds_policy = "truncate"), "'bounds_policy'")
  expect_error(ski_laplace(sc$x, sc$y, bounds_policy = "clamp", verbose = FALSE),
               "'bounds_policy' applies to the scattered layout only")
  expect_error(sk_scat(sc$x, sc$y, loglik_method = "eigen"),
               "'loglik_method' the eigen path takes the cells, points and binned layouts")
  expect_error(sk_scat(NULL, sc$y), "'layout'")
})

test_that("scattered: predict on a saved fit equals the fit's test", {
  sc <- scat_case()
  xt <- rbind(c(0.5, 0.5), c(1.2, 1.9), c(2.2, 1.1))
  fit <- sk_scat(sc$x, sc$y, offset = sc$off, xtest = xt)
  path <- tempfile(fileext = ".rds")
  saveRDS(fit, path)
  back <- readRDS(path)
  p <- predict(back, xt)
  expect_identical(p$mean, fit$test$mean)
  expect_identical(p$var, fit$test$var)
  expect_identical(p$response, fit$test$response)
  expect_equal(nobs(back), 150)
  expect_output(print(back), "scattered layout")
  bad <- back
  bad$x <- bad$x[, 1]
  expect_error(predict(bad, xt), "'object\\$x' is 150 x 1; need any x 2")
})
