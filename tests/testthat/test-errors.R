# Every bad input is an R error that names the argument; nothing reaches C.
test_that("bad x and x2 are rejected with the argument's name", {
  x <- matrix(1:6 / 6, 3, 2)
  expect_error(gp_kernel(matrix(c(1, NaN, 3, 4), 2)), "gp_kernel: 'x' contains NaN")
  expect_error(gp_kernel(matrix(c(1, Inf, 3, 4), 2)), "'x' contains NaN, NA or Inf")
  expect_error(gp_kernel(matrix(c(1, NA, 3, 4), 2)), "'x' contains NaN, NA or Inf")
  expect_error(gp_kernel(x, matrix(c(1, NA), 1)), "'x2' contains NaN")
  expect_error(gp_kernel(matrix(numeric(0), 0, 2)), "'x' is empty")
  expect_error(gp_kernel(numeric(0)), "'x' is empty")
  expect_error(gp_kernel(x, matrix(1, 2, 3)), "'x2' has 3 columns but 'x' has 2")
  expect_error(gp_kernel("a"), "'x' must be a numeric matrix")
  expect_error(gp_kernel(data.frame(a = "u")), "'x' must have only numeric columns")
  expect_error(gp_kernel(array(1, c(2, 2, 2))), "'x' must be a matrix")
})

test_that("bad kernel parameters are rejected with the argument's name", {
  x <- matrix(1:6 / 6, 3, 2)
  expect_error(gp_kernel(x, kernel = "gauss"), "'kernel' is unknown: \"gauss\"")
  expect_error(gp_kernel(x, kernel = c("rbf", "rbf")), "'kernel' must be one string")
  expect_error(gp_kernel(x, lengthscale = 0), "'lengthscale' must be positive")
  expect_error(gp_kernel(x, lengthscale = -1), "'lengthscale' must be positive")
  expect_error(gp_kernel(x, lengthscale = NaN), "'lengthscale' must be positive")
  expect_error(gp_kernel(x, lengthscale = c(1, 2, 3)), "'lengthscale' must be numeric of length 1 or 2")
  expect_error(gp_kernel(x, outputscale = 0), "'outputscale' must be positive")
  expect_error(gp_kernel(x, outputscale = Inf), "'outputscale' must be positive")
  expect_error(gp_kernel(x, outputscale = c(1, 2)), "'outputscale' must be numeric of length 1")
  expect_error(gp_kernel(x, threads = -1), "threads.* must be a whole number")
})

test_that("the C layer names the argument too (defence in depth)", {
  x <- matrix(1:6 / 6, 3, 2)
  expect_error(.Call(scalegp:::C_sgp_kernel_matrix_r, x, x, "nope", 1, 1, 0L),
               "gp_kernel: kernel: unknown kernel 'nope'")
  expect_error(.Call(scalegp:::C_sgp_kernel_matrix_r, x, x, "rbf", -1, 1, 0L),
               "gp_kernel: lengthscale: must be positive")
  expect_error(.Call(scalegp:::C_sgp_kernel_matrix_r, x, x, "rbf", 1, 0, 0L),
               "gp_kernel: outputscale: must be positive")
  expect_error(.Call(scalegp:::C_sgp_kernel_matrix_r, x, x, "rbf", c(1, 2, 3), 1, 0L),
               "gp_kernel: lengthscale: has 3 values")
  expect_error(.Call(scalegp:::C_sgp_kernel_matrix_r, matrix(c(1, NaN), 1), matrix(1, 1, 2),
                     "rbf", 1, 1, 0L), "gp_kernel: x: contains NaN or Inf")
  expect_error(.Call(scalegp:::C_sgp_kernel_matrix_r, x, matrix(1, 2, 3), "rbf", 1, 1, 0L),
               "gp_kernel: x2: has 3 columns")
})
