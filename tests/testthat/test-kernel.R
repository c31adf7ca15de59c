test_that("gp_kernel equals the shared fixtures to 1e-12 for every kernel", {
  x <- read_fixture("kernel_x.csv")
  x2 <- read_fixture("kernel_x2.csv")
  p <- read_fixture("kernel_params.csv")
  ells <- list(iso = p[2, 1], ard = p[3, ])
  for (k in all_kernels) for (nm in names(ells)) {
    expected <- read_fixture(sprintf("kernel_%s_%s.csv", k, nm))
    got <- gp_kernel(x, x2, kernel = k, lengthscale = ells[[nm]], outputscale = p[1, 1])
    expect_equal(dim(got), c(nrow(x), nrow(x2)))
    expect_lt(max(abs(got - expected)), 1e-12, label = paste(k, nm))
  }
})

test_that("gp_kernel equals a dense R computation to 1e-12 (d = 1, 3, 7, 16)", {
  set.seed(11)
  for (d in c(1, 3, 7, 16)) {
    x <- matrix(rnorm(60 * d), 60, d)
    x2 <- matrix(rnorm(45 * d), 45, d)
    x2[3, ] <- x[5, ]                                   # a coincident pair
    for (k in all_kernels) for (ell in list(1.3, seq(0.5, 2, length.out = d))) {
      got <- gp_kernel(x, x2, kernel = k, lengthscale = ell, outputscale = 2.5)
      expect_lt(max(abs(got - dense_kernel(x, x2, k, ell, 2.5))), 1e-12,
                label = sprintf("%s d=%d ard=%d", k, d, length(ell) > 1))
      expect_equal(got[5, 3], 2.5, tolerance = 1e-14)
    }
  }
})

test_that("far-from-origin data keeps full accuracy on the diagonal", {
  set.seed(2)
  x <- matrix(rnorm(40 * 8, mean = 1e4), 40, 8)
  K <- gp_kernel(x, kernel = "matern12", lengthscale = 1, outputscale = 1)
  expect_lt(max(abs(diag(K) - 1)), 1e-12)
  expect_lt(max(abs(K - dense_kernel(x, x, "matern12", 1, 1))), 1e-9)
  expect_true(isSymmetric(K, tol = 1e-13))
})

test_that("x2 defaults to x, vectors are one column, data frames work", {
  x <- c(0, 0.5, 2)
  K <- gp_kernel(x, kernel = "rbf", lengthscale = 0.7)
  expect_equal(K, dense_kernel(matrix(x), matrix(x), "rbf", 0.7, 1), tolerance = 1e-13)
  df <- data.frame(a = c(1, 2), b = c(0, 1))
  expect_equal(gp_kernel(df), gp_kernel(as.matrix(df)))
})

test_that("results do not depend on the thread count", {
  set.seed(3)
  x <- matrix(rnorm(700 * 5), 700, 5)
  K1 <- gp_kernel(x, kernel = "matern52", lengthscale = 0.9, threads = 1)
  K2 <- gp_kernel(x, kernel = "matern52", lengthscale = 0.9, threads = 2)
  K3 <- gp_kernel(x, kernel = "matern52", lengthscale = 0.9, threads = 3)
  expect_identical(K1, K2)
  expect_identical(K1, K3)
})

test_that("scalegp_info reports the build", {
  info <- scalegp_info()
  expect_s3_class(info, "scalegp_info")
  expect_equal(info$version, as.character(utils::packageVersion("scalegp")))
  expect_match(info$fftw, "fftw")
  expect_true(info$max_threads >= 1)
  expect_type(info$cuda_built, "logical")
  expect_output(print(info), "FFTW")
})
