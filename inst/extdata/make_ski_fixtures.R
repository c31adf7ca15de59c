# Regenerates the ski_gsgp fixtures read by the R and Octave tests:
#   Rscript inst/extdata/make_ski_fixtures.R   (from the repository root)
# The oracle is independent of the C core: the dense GP with covariance
# W K_G W' + noise I, W built in plain R from the interpolation formula (Keys
# cubic convolution, a = -1/2, or linear hat functions, one factor per
# dimension) and K_G from the kernel formula at the grid points; posterior by
# solve() on the n-by-n matrix.
# Per case <c> three files (numbers only, no header):
#   ski_<c>_params.csv  one row: d, kernel (1 rbf, 2 matern12, 3 matern32,
#                       4 matern52), interpolation (1 cubic, 2 linear),
#                       outputscale, noise, lengthscale[1..d], grid_size[1..d],
#                       lower bound[1..d], upper bound[1..d]
#   ski_<c>_data.csv    n rows: x[1..d], y
#   ski_<c>_test.csv    rows: xtest[1..d], posterior mean, latent posterior variance
set.seed(20261123)
kernels <- c("rbf", "matern12", "matern32", "matern52")

kern <- function(a, b, kernel, ell, s2) {
  r2 <- 0
  for (l in seq_len(ncol(a))) r2 <- r2 + outer(a[, l] / ell[l], b[, l] / ell[l], "-")^2
  r <- sqrt(r2)
  switch(kernel,
         rbf = s2 * exp(-r2 / 2),
         matern12 = s2 * exp(-r),
         matern32 = s2 * (1 + sqrt(3) * r) * exp(-sqrt(3) * r),
         matern52 = s2 * (1 + sqrt(5) * r + 5 * r2 / 3) * exp(-sqrt(5) * r))
}

keys <- function(s) {
  s <- abs(s)
  ifelse(s <= 1, 1.5 * s^3 - 2.5 * s^2 + 1,
         ifelse(s < 2, -0.5 * s^3 + 2.5 * s^2 - 4 * s + 2, 0))
}
hat <- function(s) { s[] <- pmax(0, 1 - abs(s)); s }

# Dense n-by-m W: product over dimensions of u((x_j - g_j)/h_j); grid points
# first dimension fastest.
dense_W <- function(x, size, lo, hi, interp) {
  u <- if (interp == "cubic") keys else hat
  W <- matrix(1, nrow(x), 1)
  for (j in seq_len(ncol(x))) {
    g <- seq(lo[j], hi[j], length.out = size[j])
    h <- (hi[j] - lo[j]) / (size[j] - 1)
    Wj <- u(outer(x[, j], g, "-") / h)
    # first dimension fastest: column index i_1 + m_1 i_2 + ...
    W <- do.call(cbind, lapply(seq_len(size[j]), function(i) W * Wj[, i]))
  }
  W
}

grid_points <- function(size, lo, hi) {
  axes <- lapply(seq_along(size), function(j) seq(lo[j], hi[j], length.out = size[j]))
  as.matrix(expand.grid(axes))
}

make_case <- function(name, x, f, xt, kernel, interp, ell, s2, noise, size, lo, hi) {
  n <- nrow(x)
  y <- f(x) + rnorm(n, sd = sqrt(noise))
  W <- dense_W(x, size, lo, hi, interp)
  Ws <- dense_W(xt, size, lo, hi, interp)
  KG <- kern(grid_points(size, lo, hi), grid_points(size, lo, hi), kernel, ell, s2)
  A <- W %*% KG %*% t(W) + noise * diag(n)
  C <- W %*% KG %*% t(Ws)            # n-by-t cross covariance
  mean <- drop(t(C) %*% solve(A, y))
  var <- rowSums((Ws %*% KG) * Ws) - colSums(C * solve(A, C))
  d <- ncol(x)
  params <- c(d, match(kernel, kernels), match(interp, c("cubic", "linear")), s2, noise,
              rep_len(ell, d), size, lo, hi)
  w <- function(m, f) write.table(format(m, digits = 17), file.path("inst/extdata", f),
                                  sep = ",", quote = FALSE, row.names = FALSE,
                                  col.names = FALSE)
  w(matrix(params, 1), sprintf("ski_%s_params.csv", name))
  w(cbind(x, y), sprintf("ski_%s_data.csv", name))
  w(cbind(xt, mean, var), sprintf("ski_%s_test.csv", name))
}

# 1-D, cubic, Matern 3/2, n = 80 on [0, 3], grid 24 on [-0.5, 3.5]
x1 <- matrix(round(runif(80, 0, 3), 6))
make_case("1d", x1, function(x) sin(2 * x[, 1]), matrix(seq(0.1, 2.9, length.out = 20)),
          "matern32", "cubic", 0.5, 1.5, 0.1, 24, -0.5, 3.5)

# 1-D, linear, Matern 5/2, n = 60 on [0, 2], grid 30 on [-0.1, 2.1]
x3 <- matrix(round(runif(60, 0, 2), 6))
make_case("1d_linear", x3, function(x) cos(3 * x[, 1]), matrix(seq(0, 2, length.out = 15)),
          "matern52", "linear", 0.4, 1, 0.05, 30, -0.1, 2.1)

# 2-D, cubic, RBF ARD, n = 150 on [0, 1]^2, grid 12 x 10
x2 <- matrix(round(runif(300), 6), 150, 2)
xt2 <- as.matrix(expand.grid(seq(0.05, 0.95, length.out = 5), seq(0.1, 0.9, length.out = 5)))
make_case("2d", x2, function(x) sin(3 * x[, 1]) * cos(2 * x[, 2]), xt2,
          "rbf", "cubic", c(0.4, 0.6), 1, 0.05, c(12, 10), c(-0.3, -0.35), c(1.3, 1.35))
