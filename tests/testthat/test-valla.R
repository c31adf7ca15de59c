# valla, mlp_fit, mlp_forward and valla_metrics against independent oracles in
# plain R: a forward pass, Jacobians by central finite differences and the
# exact (dense, parameter-space) linearized Laplace posterior; predict.nnet;
# seeds, save/reload and argument errors.

act_r <- function(f, h) switch(f, tanh = tanh(h), sigmoid = 1 / (1 + exp(-h)),
                               relu = pmax(h, 0), identity = h)

# Generic MLP forward pass in R; theta (optional) replaces the parameters in
# the order W1 (column-major), b1, ..., WL, bL.
r_forward <- function(net, x, theta = NULL) {
  L <- length(net$weights)
  if (!is.null(theta)) {
    k <- 0
    for (l in seq_len(L)) {
      nw <- length(net$weights[[l]])
      net$weights[[l]][] <- theta[k + seq_len(nw)]; k <- k + nw
      nb <- length(net$biases[[l]])
      net$biases[[l]] <- theta[k + seq_len(nb)]; k <- k + nb
    }
  }
  a <- x
  for (l in seq_len(L)) {
    h <- a %*% net$weights[[l]] + matrix(net$biases[[l]], nrow(a), length(net$biases[[l]]),
                                         byrow = TRUE)
    a <- if (l < L) act_r(net$activation, h) else h
  }
  a
}

r_theta <- function(net) unlist(lapply(seq_along(net$weights), function(l)
  c(as.vector(net$weights[[l]]), net$biases[[l]])))

# Jacobian (n C x P, row i + n (c - 1)) by central differences.
fd_jacobian <- function(net, x, h = 1e-5) {
  th <- r_theta(net)
  sapply(seq_along(th), function(p) {
    e <- replace(numeric(length(th)), p, h)
    as.vector(r_forward(net, x, th + e) - r_forward(net, x, th - e)) / (2 * h)
  })
}

random_net <- function(widths, activation = "tanh", scale = 1.2, seed = 1) {
  set.seed(seed)
  L <- length(widths) - 1L
  list(weights = lapply(seq_len(L), function(l)
         matrix(rnorm(widths[l] * widths[l + 1L], sd = scale / sqrt(widths[l])),
                widths[l], widths[l + 1L])),
       biases = lapply(seq_len(L), function(l) rnorm(widths[l + 1L], sd = 0.3)),
       activation = activation)
}

# Exact LLA latent covariance at xs: J* S J*' with S = (J' Lam J + I / s0)^-1.
lla_oracle <- function(net, x, xs, s0, lam) {
  J <- fd_jacobian(net, x); Js <- fd_jacobian(net, xs)
  S <- solve(crossprod(J, lam %*% J) + diag(ncol(J)) / s0)
  Js %*% S %*% t(Js)
}

softmax_lambda <- function(G) {
  n <- nrow(G); C <- ncol(G)
  P <- exp(G - apply(G, 1, max)); P <- P / rowSums(P)
  lam <- matrix(0, n * C, n * C)
  for (i in seq_len(n)) {
    r <- i + n * (seq_len(C) - 1L)
    lam[r, r] <- diag(P[i, ], C) - tcrossprod(P[i, ])
  }
  lam
}

test_that("mlp_forward equals predict.nnet to 1e-12 (linout, skip, softmax, entropy, logistic)", {
  skip_if_not_installed("nnet")
  set.seed(3)
  x <- matrix(rnorm(60), 20, 3)
  y <- sin(x[, 1]) + x[, 2]
  cases <- list(
    list(y = y, size = 4, linout = TRUE, skip = FALSE),
    list(y = y, size = 4, linout = TRUE, skip = TRUE),
    list(y = y, size = 0, linout = TRUE, skip = TRUE),
    list(y = plogis(y), size = 3, linout = FALSE, skip = TRUE),            # logistic LS
    list(y = as.numeric(y > 0), size = 3, entropy = TRUE, skip = FALSE),  # entropy
    list(y = nnet::class.ind(cut(y, 3)), size = 5, softmax = TRUE, skip = TRUE))
  for (cs in cases) {
    nn <- do.call(nnet::nnet, c(list(x = x, trace = FALSE, maxit = 50), cs))
    g <- mlp_forward(nn, x)
    ref <- predict(nn, x)
    if (isTRUE(cs$softmax)) g <- exp(g) / rowSums(exp(g))
    expect_lt(max(abs(g - ref)), 1e-12)
  }
  # nnet's clipped logistic: hidden units saturate to exactly 0/1 beyond |s| > 15
  nn <- nnet::nnet(x, y, size = 2, linout = TRUE, trace = FALSE, maxit = 0)
  nn$wts[1:8] <- nn$wts[1:8] * 40
  expect_lt(max(abs(mlp_forward(nn, x) - predict(nn, x))), 1e-12)
})

test_that("generic MLP forward equals an R forward pass; transpose and skip", {
  net <- random_net(c(2, 5, 4, 3), "sigmoid")
  x <- matrix(rnorm(14), 7, 2)
  expect_lt(max(abs(mlp_forward(net, x) - r_forward(net, x))), 1e-13)
  tnet <- net
  tnet$weights <- lapply(net$weights, t)
  tnet$transpose <- TRUE
  expect_lt(max(abs(mlp_forward(tnet, x) - r_forward(net, x))), 1e-13)
  net$skip <- matrix(rnorm(6), 2, 3)
  expect_lt(max(abs(mlp_forward(net, x) - r_forward(net, x) - x %*% net$skip)), 1e-13)
})

test_that("closed form with Z = X and method = 'lla' equal the exact LLA (gaussian) to 1e-8", {
  net <- random_net(c(2, 5, 1))
  set.seed(2)
  x <- matrix(rnorm(20), 10, 2); xs <- matrix(rnorm(12, sd = 1.5), 6, 2)
  y <- 3 * (sin(x[, 1]) + 0.2 * rnorm(10)) + 5          # standardized internally
  s0 <- 0.7; s2 <- 0.05
  ref <- lla_oracle(net, x, xs, s0, diag(10) / s2)
  cf <- valla(net, x, y, inducing = x, closed_form = TRUE, learn = character(0),
              prior_var = s0, noise = s2, xtest = xs, verbose = FALSE, seed = 1, jitter = 0)
  expect_lt(max(abs(cf$test$latent_var - diag(ref))) / max(diag(ref)), 1e-8)
  expect_lt(max(abs(cf$test$var - diag(ref) - s2)) / max(diag(ref)), 1e-8)
  expect_equal(cf$test$mean, r_forward(net, xs)[, 1], tolerance = 1e-13)
  lla <- valla(net, x, y, method = "lla", prior_var = s0, noise = s2, xtest = xs,
               verbose = FALSE, full_cov = TRUE)
  expect_lt(max(abs(lla$test$latent_var - diag(ref))) / max(diag(ref)), 1e-8)
  expect_lt(max(abs(lla$test$cov[1, 1, ] - diag(ref))) / max(diag(ref)), 1e-8)
  expect_equal(lla$prior_var, s0, tolerance = 1e-14)
  expect_equal(lla$noise, s2, tolerance = 1e-14)
})

test_that("layers restricts the linearization (last-layer LLA) like the oracle on those columns", {
  net <- random_net(c(2, 6, 5, 1), seed = 12)
  set.seed(13)
  x <- matrix(rnorm(16), 8, 2); xs <- matrix(rnorm(6), 3, 2)
  y <- sin(x[, 1]) + rnorm(8, sd = 0.1)
  J <- fd_jacobian(net, x); Js <- fd_jacobian(net, xs)
  last <- (ncol(J) - 5):ncol(J)                         # W3 (5 x 1) and b3
  S <- solve(crossprod(J[, last]) / 0.1 + diag(6) / 2)
  ref <- rowSums((Js[, last] %*% S) * Js[, last])
  fit <- valla(net, x, y, method = "lla", prior_var = 2, noise = 0.1, layers = c(FALSE, FALSE, TRUE),
               xtest = xs, verbose = FALSE)
  expect_lt(max(abs(fit$test$latent_var - ref)) / max(ref), 1e-8)
  expect_identical(fit$layers, c(0L, 0L, 1L))
  back <- unserialize(serialize(fit, NULL))
  expect_equal(predict(back, xs)$latent_var, fit$test$latent_var, tolerance = 1e-12)
  expect_equal(valla(net, x, y, method = "lla", prior_var = 2, noise = 0.1, layers = 3,
                     xtest = xs, verbose = FALSE)$test, fit$test)
})

test_that("verbose = TRUE prints the fit", {
  net <- random_net(c(1, 4, 1))
  x <- matrix(seq(-1, 1, length.out = 30)); y <- sin(3 * x[, 1])
  expect_output(valla(net, x, y, inducing = 5, iterations = 50, seed = 1, verbose = TRUE),
                "valla \\(valla\\): gaussian likelihood, n = 30")
})

test_that("method = 'lla' and the tagged closed form equal the exact LLA (softmax) to 1e-8", {
  net <- random_net(c(2, 4, 3), seed = 5)
  set.seed(6)
  n <- 6
  x <- matrix(rnorm(2 * n), n, 2); xs <- matrix(rnorm(8, sd = 1.5), 4, 2)
  y <- rep(1:3, 2)
  s0 <- 0.8
  ref <- lla_oracle(net, x, xs, s0, softmax_lambda(r_forward(net, x)))
  lla <- valla(net, x, y, method = "lla", prior_var = s0, xtest = xs, verbose = FALSE,
               full_cov = TRUE)
  ns <- nrow(xs)
  for (i in seq_len(ns)) {
    r <- i + ns * (0:2)
    expect_lt(max(abs(lla$test$cov[, , i] - ref[r, r])) / max(diag(ref)), 1e-8)
  }
  expect_lt(max(abs(lla$test$var - matrix(diag(ref), ns))) / max(diag(ref)), 1e-8)
  expect_equal(rowSums(lla$test$prob), rep(1, ns), tolerance = 1e-12)
  cf <- valla(net, x, y, inducing = rbind(x, x, x), inducing_tags = rep(1:3, each = n),
              closed_form = TRUE, learn = character(0), prior_var = s0, xtest = xs,
              verbose = FALSE, seed = 1, jitter = 0)
  expect_lt(max(abs(cf$test$var - matrix(diag(ref), ns))) / max(diag(ref)), 1e-8)
})

test_that("nnet formula fits: levels checked, masks warned about", {
  skip_if_not_installed("nnet")
  set.seed(14)
  d <- data.frame(a = rnorm(30), b = rnorm(30))
  d$y <- factor(c("u", "v", "w")[1 + (d$a > 0) + (d$b > 0.5)], levels = c("u", "v", "w"))
  nn <- nnet::nnet(y ~ a + b, data = d, size = 3, trace = FALSE, maxit = 50)
  x <- as.matrix(d[, c("a", "b")])
  fit <- valla(nn, x, d$y, method = "lla", xtest = x[1:4, ], verbose = FALSE)
  expect_identical(fit$likelihood, "softmax")
  expect_identical(colnames(fit$test$prob), c("u", "v", "w"))
  expect_identical(levels(predict(fit, x[1:4, ], type = "class")), c("u", "v", "w"))
  g <- mlp_forward(nn, x)
  expect_lt(max(abs(exp(g) / rowSums(exp(g)) - predict(nn, d, type = "raw"))), 1e-12)
  expect_error(valla(nn, x, factor(d$y, levels = c("w", "v", "u")), method = "lla"),
               "valla: 'y' has levels w, v, u but the nnet fit was trained on u, v, w")
  mk <- nnet::nnet(x, d$a + d$b, size = 2, linout = TRUE, trace = FALSE, maxit = 5,
                   mask = c(rep(TRUE, 8), FALSE))
  expect_warning(valla(mk, x, d$a, method = "lla", verbose = FALSE), "valla: the nnet fit was trained with a 'mask'")
})

test_that("bernoulli nnet (entropy) LLA linearizes the logit and equals the oracle", {
  skip_if_not_installed("nnet")
  set.seed(8)
  x <- matrix(rnorm(16), 8, 2); xs <- matrix(rnorm(6), 3, 2)
  yb <- as.numeric(x[, 1] + rnorm(8, sd = 0.5) > 0)
  nn <- nnet::nnet(x, yb, size = 2, entropy = TRUE, trace = FALSE, maxit = 30)
  lla <- valla(nn, x, yb, method = "lla", prior_var = 0.5, xtest = xs, verbose = FALSE)
  expect_identical(lla$likelihood, "bernoulli")
  expect_identical(lla$model$output, "identity")                 # the logit
  clipped <- function(s) ifelse(s < -15, 0, ifelse(s > 15, 1, plogis(s)))
  expect_lt(max(abs(clipped(lla$test$mean) - predict(nn, xs)[, 1])), 1e-12)
  # oracle on the generic form of the same network (clipped logistic hidden units)
  W1 <- matrix(nn$wts[1:6], 3)                                   # rows: bias, x1, x2
  net <- list(weights = list(W1[-1, ], matrix(nn$wts[8:9], 2)),
              biases = list(W1[1, ], nn$wts[7]), activation = "sigmoid")
  G <- r_forward(net, x)[, 1]
  ref <- lla_oracle(net, x, xs, 0.5, diag(plogis(G) * (1 - plogis(G)), 8))
  expect_lt(max(abs(lla$test$var - diag(ref))) / max(diag(ref)), 1e-8)
  expect_true(all(lla$test$prob > 0 & lla$test$prob < 1))
})

test_that("0 <= var <= prior kappa(x, x); seeds reproduce; save/reload predicts the same", {
  set.seed(4)
  x <- matrix(runif(120, -2, 2), 60, 2)
  y <- sin(2 * x[, 1]) * x[, 2] + rnorm(60, sd = 0.1)
  net <- mlp_fit(x, y, hidden = c(8, 8), iterations = 400, lr = 0.02, seed = 3,
                 verbose = FALSE)
  expect_s3_class(net, "mlp")
  expect_lt(net$loss, stats::var(y))
  again <- mlp_fit(x, y, hidden = c(8, 8), iterations = 400, lr = 0.02, seed = 3,
                   verbose = FALSE)
  expect_identical(net$weights, again$weights)
  xs <- matrix(runif(40, -3, 3), 20, 2)
  fit <- valla(net, x, y, inducing = 10, iterations = 300, batch_size = 20, lr = 0.01,
               xtest = xs, seed = 11, verbose = FALSE)
  Js <- fd_jacobian(net[c("weights", "biases", "activation")], xs)
  kappa <- fit$prior_var * rowSums(Js^2)
  lv <- fit$test$latent_var
  expect_true(all(lv >= 0))
  expect_true(all(lv <= kappa * (1 + 1e-7)))
  expect_true(all(fit$test$var > lv))
  expect_equal(fit$test$var - lv, rep(fit$noise, 20), tolerance = 1e-10)
  same <- valla(net, x, y, inducing = 10, iterations = 300, batch_size = 20, lr = 0.01,
                xtest = xs, seed = 11, verbose = FALSE)
  expect_identical(same$test, fit$test)
  expect_identical(same$inducing, fit$inducing)
  other <- valla(net, x, y, inducing = 10, iterations = 300, batch_size = 20, lr = 0.01,
                 xtest = xs, seed = 12, verbose = FALSE)
  expect_false(identical(other$inducing, fit$inducing))
  f <- tempfile(fileext = ".rds")
  saveRDS(fit, f)
  back <- readRDS(f)
  unlink(f)
  p <- predict(back, xs)
  expect_identical(p$mean, fit$test$mean)
  # integers stored as doubles (another program's round trip) predict the same
  odd <- back
  odd$tags <- as.double(odd$tags)
  expect_identical(predict(odd, xs), p)
  odd$tags <- odd$tags[-1]
  expect_error(predict(odd, xs), "predict.valla: 'object\\$tags' must give one output per inducing point")
  odd <- back
  odd$P1[1, 1] <- NaN
  expect_error(predict(odd, xs), "predict.valla: 'P1' contains NaN or Inf \\(row 1, column 1\\)")
  expect_lt(max(abs(p$var - fit$test$var) / fit$test$var), 1e-12)
  expect_length(fit$history$objective, fit$iterations)
  expect_true(nrow(fit$history$validation) >= 1)
  expect_output(print(fit), "valla")
  expect_output(print(summary(fit)), "inducing points")
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_silent(plot(fit, what = "history"))
  expect_silent(plot(fit, what = "history", main = "m", xlab = "it"))  # the user's arguments win
})

test_that("classification fits: probabilities, classes, MC, validation set, plot", {
  set.seed(9)
  x <- matrix(runif(90, -2, 2))
  y <- factor(c("lo", "mid", "hi")[findInterval(x[, 1] + rnorm(90, sd = 0.3), c(-0.7, 0.7)) + 1],
              levels = c("lo", "mid", "hi"))
  net <- mlp_fit(x, y, hidden = 10, likelihood = "softmax", iterations = 600, lr = 0.02,
                 seed = 1, verbose = FALSE)
  expect_identical(net$levels, c("lo", "mid", "hi"))
  xs <- matrix(c(-1.8, 0, 1.8))
  fit <- valla(net, x, y, inducing = 9, iterations = 200, batch_size = 30, lr = 0.01,
               validation = list(x[1:20, , drop = FALSE], y[1:20]), xtest = xs, seed = 2,
               verbose = FALSE)
  expect_identical(colnames(fit$test$prob), levels(y))
  expect_equal(rowSums(fit$test$prob), rep(1, 3), tolerance = 1e-12)
  cls <- predict(fit, xs, type = "class")
  expect_identical(as.character(cls), c("lo", "mid", "hi"))
  expect_true(all(fit$tags %in% 1:3))
  mc <- predict(fit, xs, prob_method = "mc", mc_samples = 4000, seed = 1)
  expect_identical(mc, predict(fit, xs, prob_method = "mc", mc_samples = 4000, seed = 1))
  expect_equal(rowSums(mc$prob), rep(1, 3), tolerance = 1e-12)
  expect_lt(max(abs(mc$prob - fit$test$prob)), 0.1)
  m <- valla_metrics(predict(fit, x), y)
  expect_named(m, c("accuracy", "nll", "ece", "brier"))
  expect_gt(m[["accuracy"]], 0.6)
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_silent(plot(fit, data = list(x, y), class = 2))
  # the user's graphical arguments replace the method's defaults (a
  # duplicated xlab = was "matched by multiple actual arguments")
  expect_silent(plot(fit, data = list(x, y), main = "m", xlab = "t", ylab = "p", ylim = c(0, 0.5)))
})

test_that("bernoulli mlp_fit networks: likelihood and levels carry over to valla", {
  set.seed(21)
  x <- matrix(rnorm(80), 40, 2)
  y <- factor(ifelse(x[, 1] - x[, 2] + rnorm(40, sd = 0.3) > 0, "yes", "no"))
  net <- mlp_fit(x, y, hidden = 6, likelihood = "bernoulli", iterations = 300, lr = 0.02,
                 seed = 2, verbose = FALSE)
  fit <- valla(net, x, y, inducing = 6, iterations = 100, batch_size = 20, seed = 1,
               xtest = x[1:5, ], verbose = FALSE)
  expect_identical(fit$likelihood, "bernoulli")
  expect_length(fit$test$prob, 5)
  expect_true(all(fit$test$prob > 0 & fit$test$prob < 1))
  expect_identical(levels(predict(fit, x[1:5, ], type = "class")), c("no", "yes"))
  expect_error(valla(net, x, y, likelihood = "gaussian"),
               "valla: 'likelihood' is \"gaussian\" but the mlp_fit network implies \"bernoulli\"")
})

test_that("valla_metrics equals direct formulas", {
  set.seed(5)
  y <- rnorm(50); mu <- y + rnorm(50, sd = 0.5); v <- runif(50, 0.1, 1)
  m <- valla_metrics(list(mean = mu, var = v), y)
  z <- (y - mu) / sqrt(v)
  expect_equal(m[["nll"]], mean(0.5 * log(2 * pi * v) + z^2 / 2), tolerance = 1e-12)
  expect_equal(m[["crps"]], mean(sqrt(v) * (z * (2 * pnorm(z) - 1) + 2 * dnorm(z) - 1 / sqrt(pi))),
               tolerance = 1e-10)
  expect_equal(valla_metrics(mu, y, var = v), m)
  P <- matrix(runif(150), 50); P <- P / rowSums(P)
  lab <- sample(1:3, 50, TRUE)
  mc <- valla_metrics(P, lab)
  expect_equal(mc[["accuracy"]], mean(max.col(P) == lab), tolerance = 1e-14)
  expect_equal(mc[["nll"]], -mean(log(P[cbind(1:50, lab)])), tolerance = 1e-12)
  expect_equal(mc[["brier"]], mean(rowSums((P - diag(3)[lab, ])^2)), tolerance = 1e-12)
  conf <- apply(P, 1, max); hit <- max.col(P) == lab
  b <- pmax(ceiling(conf * 15), 1)
  ece <- sum(sapply(unique(b), function(k) abs(mean(hit[b == k]) - mean(conf[b == k])) *
                                         sum(b == k))) / 50
  expect_equal(mc[["ece"]], ece, tolerance = 1e-12)
  pb <- runif(40); yb <- rbinom(40, 1, pb)
  mb <- valla_metrics(pb, yb)
  expect_equal(mb[["auc"]], mean(outer(pb[yb == 1], pb[yb == 0], ">")), tolerance = 1e-12)
  expect_error(valla_metrics(P, c(lab[-1], 4)), "'y' the label at row 50 is not one of the 3 classes")
})

test_that("bad input gives errors naming the argument", {
  net <- random_net(c(2, 3, 1))
  x <- matrix(rnorm(20), 10, 2); y <- rnorm(10)
  q <- function(...) valla(net, x, y, verbose = FALSE, iterations = 5, inducing = 3, ...)
  expect_error(valla(net, cbind(x, 1), y), "valla: 'x' has 3 columns but the network expects 2")
  expect_error(valla(net, x, y[-1]), "valla: 'y' has length 9")
  expect_error(valla(net, x, y, inducing = 11, closed_form = TRUE),
               "valla: 'inducing' M = 11 inducing points exceed the n = 10 rows of x")
  expect_error(valla(net, x, y, inducing = 10),
               "valla: 'inducing' M = 10 inducing points exceed the 9 rows of x left after the val_frac = 0.1 hold-out")
  # the default adapts to the 9 rows left after the hold-out
  expect_equal(nrow(valla(net, x, y, iterations = 2, seed = 1, verbose = FALSE)$inducing), 9L)
  expect_silent(valla(net, x, y, inducing = 10, val_frac = 0, iterations = 3, verbose = FALSE))
  xb <- x; xb[3, 2] <- NaN
  expect_error(valla(net, xb, y), "valla: 'x' contains NaN, NA or Inf \\(first at row 3")
  expect_error(q(prior_var = 0), "valla: 'prior_var' must be positive and finite (got 0)", fixed = TRUE)
  expect_error(q(prior_var = "a"), "valla: 'prior_var' must be positive and finite (got \"a\")", fixed = TRUE)
  expect_error(q(noise = -1), "valla: 'noise' must be positive")
  expect_error(q(learn = c("A", "lengthscale")), "valla: 'learn' has unknown entries \"lengthscale\"")
  expect_error(q(eval_evry = 3), "valla: unknown option 'eval_evry'")
  expect_error(q(method = "laplace"), "valla: 'method' must be one of \"valla\", \"lla\", \"ella\" (got \"laplace\")",
               fixed = TRUE)
  expect_error(q(likelihood = "softmax"), "valla: 'likelihood' \"softmax\" needs a network with C >= 2")
  expect_error(valla(net, x, y, inducing = matrix(0, 3, 3)), "valla: 'inducing' has 3 columns")
  expect_error(q(validation = list(x[, 1], y)), "valla: 'validation\\$x' has 1 columns")
  expect_error(q(alpha = 2), "valla: 'alpha' must be a number in [0, 1] (got 2)", fixed = TRUE)
  expect_error(q(layers = c(TRUE, FALSE, TRUE)), "valla: 'layers' must be 2 logical flags")
  bad <- net; bad$biases[[2]] <- c(1, 2)
  expect_error(valla(bad, x, y), "valla: 'model\\$biases\\[\\[2\\]\\]' must be numeric of length 1")
  bad <- net; bad$weights[[2]] <- matrix(1, 4, 1)
  expect_error(valla(bad, x, y), "valla: 'model\\$weights\\[\\[2\\]\\]' has 4 rows but layer 1 has 3 outputs")
  bad <- net; bad$activation <- "swish"
  expect_error(valla(bad, x, y), "valla: 'model\\$activation' is unknown")
  expect_error(valla(list(1), x, y), "valla: 'model' must be an nnet fit or a list")
  net3 <- random_net(c(2, 3, 3))
  expect_error(valla(net3, x, c(1, 2, 4, rep(1, 7))), "valla: 'y' has labels outside 1..C = 1..3 \\(found 4 at 3\\)")
  expect_error(valla(net3, x, rep(1:2, 5), inducing = 3, noise = 0.1), "valla: 'noise' is only used with likelihood = \"gaussian\"")
  expect_error(valla(net3, x, factor(rep(c("a", "b"), 5))), "valla: 'y' has 2 levels but the network has 3 classes")
  expect_error(valla(random_net(c(2, 3, 1)), x, rep(2, 10), likelihood = "bernoulli"),
               "valla: 'y' must be 0/1")
  expect_error(mlp_fit(x, y, hidden = c(3, 0)), "mlp_fit: 'hidden' must be positive whole numbers")
  expect_error(mlp_fit(x, y, activation = "swish"), "mlp_fit: 'activation' is unknown")
  fit <- valla(net, x, y, method = "lla", verbose = FALSE)
  expect_error(predict(fit, matrix(0, 2, 3)), "predict.valla: 'newdata' has 3 columns but the fit has 2")
  expect_error(predict(fit, x, type = "class"), "predict.valla: 'type' \"class\" needs a classification fit")
  # the C layer stops on an interrupt (polled every iteration) and frees its state
  opts <- list(inducing = 3, iterations = 1000, batch_size = 5, lr = 0.01, backend = "cpu",
               seed = 1, verbose = FALSE, threads = 0L)
  spec <- scalegp:::valla_model_spec(net, "t")$spec
  with_test_hooks(
    expect_error(scalegp:::sgp_call(scalegp:::C_valla_fit, spec, x, y, NULL, NULL, NULL, NULL, NULL,
                                    NULL, list(), opts, 5L),
                 "valla: interrupted"))
  with_test_hooks(on = FALSE,
    expect_error(scalegp:::sgp_call(scalegp:::C_valla_fit, spec, x, y, NULL, NULL, NULL, NULL, NULL,
                                    NULL, list(), opts, 5L),
                 "valla: 'interrupt_after' is a test hook"))
  expect_silent(scalegp:::sgp_call(scalegp:::C_valla_fit, spec, x, y, NULL, NULL, NULL, NULL, NULL,
                      NULL, list(), opts, NULL))
  skip_if_not_installed("nnet")
  nn <- nnet::nnet(x, y, size = 2, linout = TRUE, trace = FALSE, maxit = 5)
  expect_error(valla(nn, x, y, likelihood = "softmax"), "valla: 'likelihood' is \"softmax\" but the nnet fit implies \"gaussian\"")
  nn$conn[2] <- 2
  expect_error(valla(nn, x, y), "valla: 'model' has a connection layout")
})
