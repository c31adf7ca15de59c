# valla on the shared fixtures (inst/extdata/make_valla_fixtures.R), the parts
# test-valla-fixtures.R does not cover and the Octave tests do
# (tests/octave/test_valla_fixtures.m): exact LLA at the training inputs, and a
# trained VaLLA (Adam, learned prior_var) within 0 <= var <= prior kappa(x, x).
valla_fx_trained <- function(name) {
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
  if (startsWith(name, "nnet")) net$activation <- "sigmoid_nnet"
  list(likelihood = c("gaussian", "softmax")[p[1] + 1], prior_var = p[3], noise = p[4],
       C = C, net = net, x = tr[, 1:D, drop = FALSE], y = tr[, D + 1],
       g = tr[, D + 1 + 1:C], var = tr[, D + 1 + C + 1:C], xs = te[, 1:D, drop = FALSE],
       prior_s = te[, D + 3 * C + C * C + 1:C])
}
latent_var_of <- function(p, fx) as.matrix(if (fx$likelihood == "gaussian") p$latent_var else p$var)
rel_err_v <- function(a, b) sqrt(sum((a - b)^2)) / sqrt(sum(b^2))

test_that("exact LLA at the training inputs equals the fixtures (1e-8)", {
  for (name in c("reg_tanh_1d", "reg_relu_2d", "softmax_tanh_2d", "softmax_relu_1d",
                 "nnet_reg", "nnet_softmax")) {
    fx <- valla_fx_trained(name)
    args <- list(fx$net, fx$x, fx$y, likelihood = fx$likelihood, method = "lla",
                 prior_var = fx$prior_var, verbose = FALSE)
    if (fx$likelihood == "gaussian") args$noise <- fx$noise
    fit <- do.call(valla, args)
    p <- predict(fit, fx$x)
    expect_lt(rel_err_v(as.vector(as.matrix(p$mean)), as.vector(fx$g)), 1e-12)
    expect_lt(rel_err_v(as.vector(latent_var_of(p, fx)), as.vector(fx$var)), 1e-8)
  }
})

test_that("trained VaLLA keeps 0 <= var <= prior_var J J'", {
  for (name in c("reg_tanh_1d", "softmax_tanh_2d")) {
    fx <- valla_fx_trained(name)
    fit <- valla(fx$net, fx$x, fx$y, likelihood = fx$likelihood, inducing = 2 * fx$C,
                 iterations = 60, batch_size = 8, lr = 5e-2, seed = 3, xtest = fx$xs,
                 verbose = FALSE)
    expect_equal(fit$iterations, 60)
    expect_gt(abs(log(fit$prior_var)), 1e-3)             # prior_var was learned
    v <- latent_var_of(fit$test, fx)
    prior <- fx$prior_s * fit$prior_var / fx$prior_var   # kappa scales with prior_var
    expect_true(all(v >= 0))
    expect_true(all(v <= prior * (1 + 1e-10)))
    expect_true(any(v < 0.999 * prior))                  # the data did shrink it
  }
})
