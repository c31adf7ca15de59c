# valla against the shared fixtures of inst/extdata/make_valla_fixtures.R (a
# plain-R exact LLA with analytic Jacobians; the Octave tests read the same
# files): exact LLA and the closed form with Z = X (all C tags, no jitter) to
# 1e-8, probit probabilities, prior variances and, for the nnet cases, the
# network rebuilt as an nnet object from its wts equals predict.nnet.
valla_fixture <- function(name) {
  p <- read_fixture(sprintf("valla_%s_params.csv", name))
  L <- p[6]; width <- p[6 + 0:L + 1]; D <- width[1]; C <- width[L + 1]
  th <- read_fixture(sprintf("valla_%s_weights.csv", name))[, 1]
  k <- 0
  take <- function(n) { v <- th[k + seq_len(n)]; k <<- k + n; v }
  W <- b <- vector("list", L)
  for (l in seq_len(L)) {
    W[[l]] <- matrix(take(width[l] * width[l + 1]), width[l], width[l + 1])
    b[[l]] <- take(width[l + 1])
  }
  net <- list(weights = W, biases = b,
              activation = if (startsWith(name, "nnet")) "sigmoid_nnet"
                           else c("tanh", "sigmoid", "relu")[p[2] + 1],
              skip = if (p[5] == 1) matrix(take(D * C), D, C) else NULL)
  tr <- read_fixture(sprintf("valla_%s_train.csv", name))
  te <- read_fixture(sprintf("valla_%s_test.csv", name))
  col <- function(m, from, n) m[, from + seq_len(n), drop = FALSE]
  list(name = name, net = net, likelihood = c("gaussian", "softmax")[p[1] + 1],
       prior_var = p[3], noise = p[4], D = D, C = C,
       x = col(tr, 0, D), y = tr[, D + 1], g = col(tr, D + 1, C),
       xs = col(te, 0, D), gs = col(te, D, C), var_s = col(te, D + C, C),
       resp_s = col(te, D + 2 * C, C), cov_s = col(te, D + 3 * C, C * C),
       prior_s = col(te, D + 3 * C + C * C, C),
       raw_s = if (ncol(te) > D + 4 * C + C * C) col(te, D + 4 * C + C * C, C))
}

fixture_hyper <- function(fx) {
  if (fx$likelihood == "gaussian") list(prior_var = fx$prior_var, noise = fx$noise)
  else list(prior_var = fx$prior_var)
}

check_against_fixture <- function(fit, fx) {
  sc <- max(fx$var_s)
  expect_lt(max(abs(as.matrix(fit$test$mean) - fx$gs)), 1e-10)
  lv <- if (fx$likelihood == "gaussian") fit$test$latent_var else fit$test$var
  expect_lt(max(abs(as.matrix(lv) - fx$var_s)) / sc, 1e-8)
  expect_lt(max(abs(matrix(fit$test$cov, fx$C * fx$C) - t(fx$cov_s))) / sc, 1e-8)
  if (fx$likelihood == "gaussian") {
    expect_lt(max(abs(fit$test$var - fx$resp_s[, 1])) / sc, 1e-8)
  } else {
    expect_lt(max(abs(unname(fit$test$prob) - fx$resp_s)), 1e-8)
  }
  # 0 <= var <= prior kappa(x, x)
  expect_true(all(lv >= 0 & as.matrix(lv) <= fx$prior_s * (1 + 1e-10)))
}

valla_fixture_cases <- c("reg_tanh_1d", "reg_relu_2d", "softmax_tanh_2d", "softmax_relu_1d",
                         "nnet_reg", "nnet_softmax")

test_that("method = 'lla' equals the fixtures' exact LLA to 1e-8", {
  for (name in valla_fixture_cases) {
    fx <- valla_fixture(name)
    fit <- do.call(valla, c(list(fx$net, fx$x, fx$y, method = "lla", xtest = fx$xs,
                                 full_cov = TRUE, verbose = FALSE), fixture_hyper(fx)))
    check_against_fixture(fit, fx)
  }
})

test_that("closed form with Z = X (all C tags, jitter 0) equals the fixtures' LLA to 1e-8", {
  for (name in valla_fixture_cases[1:4]) {
    fx <- valla_fixture(name)
    n <- nrow(fx$x)
    Z <- fx$x[rep(seq_len(n), fx$C), , drop = FALSE]
    fit <- do.call(valla, c(list(fx$net, fx$x, fx$y, inducing = Z,
                                 inducing_tags = rep(seq_len(fx$C), each = n),
                                 closed_form = TRUE, learn = character(0), jitter = 0,
                                 xtest = fx$xs, full_cov = TRUE, seed = 1, verbose = FALSE),
                            fixture_hyper(fx)))
    check_against_fixture(fit, fx)
  }
})

test_that("nnet fixtures: the nnet object rebuilt from wts reproduces predict.nnet and the LLA", {
  skip_if_not_installed("nnet")
  for (name in c("nnet_reg", "nnet_softmax")) {
    fx <- valla_fixture(name)
    wts <- read_fixture(sprintf("valla_%s_wts.csv", name))[, 1]
    H <- ncol(fx$net$weights[[1]])
    sm <- fx$likelihood == "softmax"
    yy <- if (sm) nnet::class.ind(factor(fx$y, levels = seq_len(fx$C))) else fx$y
    nn <- nnet::nnet(fx$x, yy, size = H, skip = TRUE, linout = !sm, softmax = sm,
                     Wts = wts, maxit = 0, trace = FALSE)
    expect_equal(nn$wts, wts)
    expect_lt(max(abs(predict(nn, fx$xs) - fx$raw_s)), 1e-12)
    g <- mlp_forward(nn, fx$xs)
    if (sm) g <- exp(g) / rowSums(exp(g))
    expect_lt(max(abs(g - fx$raw_s)), 1e-12)
    fit <- do.call(valla, c(list(nn, fx$x, fx$y, method = "lla", xtest = fx$xs,
                                 full_cov = TRUE, verbose = FALSE), fixture_hyper(fx)))
    check_against_fixture(fit, fx)
  }
})
