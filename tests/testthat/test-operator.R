# The matrix-free operator K %*% V (tiled, threaded, optionally cached) against
# dense K %*% V built from the plain R kernel.
test_that("operator K V equals dense K %*% V to 1e-10: tiles, cache, threads", {
  set.seed(5)
  n <- 523
  x <- matrix(runif(n * 3), n, 3)
  v <- matrix(rnorm(n * 4), n, 4)
  for (k in c("rbf", "matern32")) {
    ref <- dense_kernel(x, x, k, c(0.3, 0.5, 0.8), 1.4) %*% v
    for (tile in c(0L, 1L, 7L, 64L, 512L)) for (threads in 1:3) for (cache in c(0, 1e9)) {
      r <- scalegp:::kernel_apply(x, v, kernel = k, lengthscale = c(0.3, 0.5, 0.8),
                                  outputscale = 1.4, tile = tile, threads = threads,
                                  cache_bytes = cache)
      expect_identical(r$cached, cache > 0)
      expect_lt(max(abs(r$y - ref)) / max(abs(ref)), 1e-10,
                label = sprintf("%s tile=%d threads=%d cache=%g", k, tile, threads, cache))
    }
  }
})

test_that("a single right-hand side and d > 4 (dgemm distances) work", {
  set.seed(6)
  x <- matrix(rnorm(300 * 12), 300, 12)
  v <- rnorm(300)
  r <- scalegp:::kernel_apply(x, v, kernel = "matern12", lengthscale = 2, tile = 50L)
  ref <- dense_kernel(x, x, "matern12", 2, 1) %*% v
  expect_lt(max(abs(r$y - ref)) / max(abs(ref)), 1e-10)
})

test_that("an interrupt stops a long product with an error", {
  set.seed(7)
  x <- matrix(rnorm(3000 * 2), 3000, 2)
  v <- matrix(rnorm(3000), 3000, 1)
  # interrupt_after is a test hook
  with_test_hooks(expect_error(scalegp:::kernel_apply(x, v, tile = 64L, threads = 1, interrupt_after = 2),
                               "kernel_apply: interrupted"))
  # a session interrupted this way keeps working
  r <- scalegp:::kernel_apply(x[1:10, ], v[1:10, , drop = FALSE])
  expect_equal(dim(r$y), c(10L, 1L))
})
