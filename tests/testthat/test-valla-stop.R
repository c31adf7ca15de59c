# Training that goes wrong: a learning rate that diverges makes
# mlp_fit and valla stop with a usable state, a stop reason and a warning; a
# network too large to train is refused before anything is allocated.

stop_data <- function() {
  set.seed(1)
  x <- matrix(runif(200, -2, 2))
  list(x = x, y = sin(2 * x[, 1]) + rnorm(200, sd = 0.1))
}

test_that("mlp_fit reports a diverging learning rate", {
  d <- stop_data()
  expect_warning(net <- mlp_fit(d$x, d$y, hidden = 16, iterations = 200, batch_size = 20,
                                lr = 1e300, seed = 3, verbose = FALSE),
                 "mlp_fit: training diverged.*lower it \\(iteration [0-9]+\\)")
  expect_identical(net$stop_reason, "diverged")
  expect_gte(net$diverged_at, 1)
  expect_true(all(is.finite(unlist(net$weights))) && is.finite(net$loss))
  expect_true(all(is.finite(mlp_forward(net, d$x))))
  expect_warning(net <- mlp_fit(d$x, d$y, hidden = 16, iterations = 200, batch_size = 20,
                                lr = 1e5, seed = 3, verbose = FALSE),
                 "mlp_fit: the training loss rose")
  expect_identical(net$stop_reason, "loss_rose")
  expect_gt(net$loss, net$initial_loss)
  expect_silent(net <- mlp_fit(d$x, d$y, hidden = 16, iterations = 300, lr = 1e-2, seed = 3,
                               verbose = FALSE))
  expect_identical(net$stop_reason, "iterations")
  expect_lt(net$loss, net$initial_loss)
})

test_that("valla stops a diverging Adam run with a usable fit and says so", {
  d <- stop_data()
  net <- mlp_fit(d$x, d$y, hidden = 20, iterations = 500, lr = 0.01, seed = 1, verbose = FALSE)
  for (vf in c(0.1, 0)) {
    expect_warning(f <- valla(net, d$x, d$y, inducing = 10, iterations = 300, lr = 1e3,
                              val_frac = vf, seed = 1, verbose = FALSE),
                   "valla: training diverged.*\\(iteration 1\\)")
    expect_identical(f$stop_reason, "diverged")
    expect_equal(f$iterations, 0)
    expect_true(all(is.finite(f$history$objective)))
    p <- predict(f, d$x)
    expect_true(all(is.finite(p$var) & p$var > 0))
    expect_output(print(f), "diverged at iteration 1")
  }
  # finite all along, but the objective climbs from its start (on the network of
  # seed 4: lr = 10 makes most networks here diverge instead)
  net4 <- mlp_fit(d$x, d$y, hidden = 20, iterations = 500, lr = 0.01, seed = 4, verbose = FALSE)
  expect_warning(f <- valla(net4, d$x, d$y, inducing = 10, iterations = 300, lr = 10,
                            val_frac = 0, seed = 1, verbose = FALSE),
                 "valla: the training loss rose")
  expect_identical(f$stop_reason, "loss_rose")
  expect_silent(f <- valla(net, d$x, d$y, inducing = 10, iterations = 300, lr = 0.01,
                           val_frac = 0, seed = 1, verbose = FALSE))
  expect_identical(f$stop_reason, "iterations")
})

test_that("mlp_fit refuses a network that cannot fit in memory before allocating it", {
  d <- stop_data()
  # hidden = 1e9 on one input: 3e9 weights, and 3.3 TB with batch_size 100
  expect_error(mlp_fit(d$x, d$y, hidden = 1e9, iterations = 1, verbose = FALSE),
               "mlp_fit: 'hidden' a network of 3e\\+09 parameters .* use fewer hidden units")
  expect_error(mlp_fit(d$x, d$y, hidden = 3e9, iterations = 1, verbose = FALSE),
               "'hidden' a layer of 3000000000 units is wider")
  expect_error(mlp_fit(d$x, d$y, hidden = 2^60, iterations = 1, verbose = FALSE),
               "'hidden' must be positive whole numbers")
})
