# ski_gsgp fixtures (inst/extdata/ski_*.csv, see make_ski_fixtures.R) and a
# dense interpolation matrix in plain R, independent of the C core.
read_ski_case <- function(name) {
  p <- drop(read_fixture(sprintf("ski_%s_params.csv", name)))
  d <- p[1]
  at <- function(k) p[5 + (k - 1) * d + seq_len(d)]
  data <- read_fixture(sprintf("ski_%s_data.csv", name))
  test <- read_fixture(sprintf("ski_%s_test.csv", name))
  list(d = d, kernel = all_kernels[p[2]], interpolation = c("cubic", "linear")[p[3]],
       outputscale = p[4], noise = p[5], lengthscale = at(1), grid_size = at(2),
       grid_bounds = cbind(at(3), at(4)),
       x = data[, seq_len(d), drop = FALSE], y = data[, d + 1],
       xtest = test[, seq_len(d), drop = FALSE], mean = test[, d + 1], var = test[, d + 2])
}

ski_fit_case <- function(cs, ...) {
  ski_gsgp(cs$x, cs$y, grid_size = cs$grid_size, grid_bounds = cs$grid_bounds,
           kernel = cs$kernel, lengthscale = cs$lengthscale, outputscale = cs$outputscale,
           noise = cs$noise, interpolation = cs$interpolation, verbose = FALSE, seed = 1, ...)
}

rel_err <- function(a, b) max(abs(a - b)) / max(abs(b))

# Dense n-by-m W from the interpolation formula (first grid dimension fastest).
ski_dense_W <- function(x, size, bounds, interp) {
  u <- if (interp == "cubic") function(s) {
    s <- abs(s)
    ifelse(s <= 1, 1.5 * s^3 - 2.5 * s^2 + 1, ifelse(s < 2, -0.5 * s^3 + 2.5 * s^2 - 4 * s + 2, 0))
  } else function(s) { s[] <- pmax(0, 1 - abs(s)); s }
  W <- matrix(1, nrow(x), 1)
  for (j in seq_len(ncol(x))) {
    g <- seq(bounds[j, 1], bounds[j, 2], length.out = size[j])
    Wj <- u(outer(x[, j], g, "-") / (g[2] - g[1]))
    W <- do.call(cbind, lapply(seq_len(size[j]), function(i) W * Wj[, i]))
  }
  W
}
