# valla against the fixtures shared with the Octave tests (inst/extdata, written
# by inst/extdata/make_valla_fixtures.R from an independent plain-R oracle:
# explicit network Jacobians, dense exact LLA). The same cases and tolerances
# as tests/octave/test_valla_fixtures.m.
valla_rel <- function(a, b) sqrt(sum((a - b)^2)) / sqrt(sum(b^2))

valla_fixture <- function(name) {
  rd <- function(part) read_fixture(sprintf("valla_%s_%s.csv", name, part))
  p <- rd("params")[1, ]; th <- rd("weights")[, 1]; tr <- rd("train"); te <- rd("test")
  L <- p[6]; w <- p[6 + 1:(L + 1)]; D <- w[1]; C <- w[L + 1]
  net <- list(weights = list(), biases = list(),
              activation = c("tanh", "sigmoid", "relu")[p[2] + 1])
  k <- 0
  take <- function(n) { v <- th[k + seq_len(n)]; k <<- k + n; v }
  for (l in seq_len(L)) {
    net$weights[[l]] <- matrix(take(w[l] * w[l + 1]), w[l], w[l + 1])
    net$biases[[l]] <- take(w[l + 1])
  }
  if (p[5] == 1) net$skip <- matrix(take(D * C), D, C)
  stopifnot(k == length(th))
  m <- nrow(te)
  fx <- list(name = name, likelihood = c("gaussian", "softmax")[p[1] + 1], prior_var = p[3],
             noise = p[4], D = D, C = C, n = nrow(tr), m = m, net = net,
             x = tr[, 1:D, drop = FALSE], y = tr[, D + 1], g = tr[, D + 1 + 1:C],
             var = tr[, D + 1 + C + 1:C], xs = te[, 1:D, drop = FALSE], gs = te[, D + 1:C],
             var_s = te[, D + C + 1:C], resp_s = te[, D + 2 * C + 1:C],
             cov_s = array(t(te[, D + 3 * C + 1:(C * C), drop = FALSE]), c(C, C, m)),
             prior_s = te[, D + 3 * C + C * C + 1:C])
  if (ncol(te) > D + 4 * C + C * C) fx$nnet_s <- te[, D + 4 * C + C * C + 1:C]
  if (grepl("^nnet", name)) fx$wts <- rd("wts")[, 1]
  fx
}

valla_hyper <- function(fx) {
  a <- list(likelihood = fx$likelihood, prior_var = fx$prior_var, learn = character(0),
            verbose = FALSE, seed = 1)
  if (fx$likelihood == "gaussian") a$noise <- fx$noise
  a
}

latent_of <- function(p, fx) if (fx$likelihood == "gaussian") p$latent_var else p$var

expect_valla_pred <- function(p, fx, tol) {
  expect_lt(valla_rel(as.vector(p$mean), as.vector(fx$gs)), 1e-12)
  if (fx$likelihood == "gaussian") {
    expect_lt(valla_rel(as.vector(p$latent_var), as.vector(fx$var_s)), tol)
    expect_lt(valla_rel(as.vector(p$var), as.vector(fx$resp_s)), tol)   # latent + noise
  } else {
    expect_lt(valla_rel(as.vector(p$var), as.vector(fx$var_s)), tol)
    expect_lt(valla_rel(as.vector(p$prob), as.vector(fx$resp_s)), tol)  # probit softmax
  }
  expect_lt(valla_rel(as.vector(p$cov), as.vector(fx$cov_s)), tol)
}

expect_valla_train <- function(fit, fx, tol) {
  p <- predict(fit, fx$x)
  expect_lt(valla_rel(as.vector(p$mean), as.vector(fx$g)), 1e-12)
  expect_lt(valla_rel(as.vector(latent_of(p, fx)), as.vector(fx$var)), tol)
}

generic_cases <- c("reg_tanh_1d", "reg_relu_2d", "softmax_tanh_2d", "softmax_relu_1d")

test_that("exact LLA equals the plain-R oracle on every fixture (1e-8)", {
  for (name in c(generic_cases, "nnet_reg", "nnet_softmax")) {
    fx <- valla_fixture(name)
    net <- fx$net
    if (grepl("^nnet", name)) net$activation <- "sigmoid_nnet"
    fit <- do.call(valla, c(list(net, fx$x, fx$y, method = "lla", xtest = fx$xs,
                                 full_cov = TRUE), valla_hyper(fx)))
    expect_equal(fit$prior_var, fx$prior_var, tolerance = 1e-14)
    expect_valla_pred(fit$test, fx, 1e-8)
    expect_valla_train(fit, fx, 1e-8)
    v <- latent_of(fit$test, fx)
    expect_true(all(v >= 0) && all(v <= fx$prior_s * (1 + 1e-10)))
  }
})

test_that("closed-form VaLLA with Z = X (all C tags, no jitter) equals exact LLA (1e-8)", {
  for (name in generic_cases) {
    fx <- valla_fixture(name)
    Z <- fx$x[rep(seq_len(fx$n), each = fx$C), , drop = FALSE]
    tags <- rep(seq_len(fx$C), fx$n)
    fit <- do.call(valla, c(list(fx$net, fx$x, fx$y, inducing = Z, inducing_tags = tags,
                                 closed_form = TRUE, jitter = 0, xtest = fx$xs,
                                 full_cov = TRUE), valla_hyper(fx)))
    expect_equal(dim(fit$inducing), c(fx$n * fx$C, fx$D))
    expect_valla_pred(fit$test, fx, 1e-8)
    expect_valla_train(fit, fx, 1e-8)
  }
})

test_that("trained VaLLA keeps 0 <= var <= prior", {
  for (name in c("reg_tanh_1d", "softmax_tanh_2d")) {
    fx <- valla_fixture(name)
    fit <- valla(fx$net, fx$x, fx$y, likelihood = fx$likelihood, inducing = 2 * fx$C,
                 iterations = 60, batch_size = 8, lr = 5e-2, seed = 3, xtest = fx$xs,
                 verbose = FALSE)
    expect_equal(fit$iterations, 60)
    expect_gt(abs(log(fit$prior_var)), 1e-3)              # prior_var was learned
    v <- latent_of(fit$test, fx)
    prior <- fx$prior_s * fit$prior_var / fx$prior_var
    expect_true(all(v >= 0))
    expect_true(all(v <= prior * (1 + 1e-10)))
    expect_true(any(v < 0.999 * prior))
  }
})

test_that("nnet fits rebuilt from the fixture weights: forward pass and exact LLA", {
  skip_if_not_installed("nnet")
  for (name in c("nnet_reg", "nnet_softmax")) {
    fx <- valla_fixture(name)
    soft <- fx$likelihood == "softmax"
    H <- ncol(fx$net$weights[[1]])
    nf <- if (soft)
      nnet::nnet(fx$x, nnet::class.ind(fx$y), size = H, skip = TRUE, softmax = TRUE,
                 Wts = fx$wts, maxit = 0, trace = FALSE)
    else
      nnet::nnet(fx$x, fx$y, size = H, skip = TRUE, linout = TRUE, Wts = fx$wts, maxit = 0,
                 trace = FALSE)
    expect_equal(unname(nf$wts), fx$wts)
    expect_lt(valla_rel(as.vector(predict(nf, fx$xs, type = "raw")), as.vector(fx$nnet_s)),
              1e-12)
    hyper <- valla_hyper(fx)
    hyper$likelihood <- NULL                                 # implied by the nnet fit
    fit <- do.call(valla, c(list(nf, fx$x, fx$y, method = "lla",
                                 xtest = fx$xs, full_cov = TRUE), hyper))
    expect_valla_pred(fit$test, fx, 1e-8)
  }
})

test_that("bad inputs name the argument", {
  fx <- valla_fixture("softmax_tanh_2d")
  run <- function(...) valla(fx$net, fx$x, fx$y, likelihood = "softmax", verbose = FALSE, ...)
  expect_error(valla(fx$net, fx$x[, 1, drop = FALSE], fx$y, verbose = FALSE),
               "valla: 'x' has 1 columns but the network expects 2 inputs")
  bad <- fx$net; bad$weights[[2]] <- bad$weights[[2]][1:9, ]
  expect_error(valla(bad, fx$x, fx$y, verbose = FALSE), "'model\\$weights\\[\\[2\\]\\]' has 9")
  bad <- fx$net; bad$biases[[3]] <- c(0, 0)
  expect_error(valla(bad, fx$x, fx$y, verbose = FALSE), "'model\\$biases\\[\\[3\\]\\]'")
  expect_error(valla(fx$net, fx$x, c(fx$y[-1], 4), verbose = FALSE),
               "'y' has labels outside 1..C = 1..3")
  expect_error(valla(fx$net, fx$x, c(0, fx$y[-1]), verbose = FALSE), "'y' has labels outside")
  expect_error(run(inducing = 16, closed_form = TRUE), "'inducing'")
  expect_error(valla(fx$net, rbind(c(NaN, 0), fx$x[-1, ]), fx$y, verbose = FALSE),
               "'x' contains NaN")
  expect_error(valla(fx$net, fx$x, c(NaN, fx$y[-1]), verbose = FALSE), "'y' contains NaN")
})
