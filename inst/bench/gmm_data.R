# The Gaussian-mixture toy of the IterNCGP paper (bench_laplace.R, bench_laplace_gmm_budget.R).
# The mixture: 10 classes in 3-D; per class a mean ~ U[-1,1]^3 and
# Sigma = U diag(lambda) U', lambda ~ U[0.001, 0.1], drawn once (seed 42).
gmm_data <- function(per_class, per_class_test, seed) {
  set.seed(42)
  comps <- lapply(1:10, function(k) {
    A <- matrix(runif(9), 3, 3)
    U <- eigen(A %*% t(A), symmetric = TRUE)$vectors
    list(mean = runif(3, -1, 1), R = t(U %*% diag(sqrt(runif(3, 0.001, 0.1)))))
  })
  set.seed(seed)
  draw <- function(m) {
    x <- do.call(rbind, lapply(comps, function(cp)
      matrix(rnorm(m * 3), m, 3) %*% cp$R + rep(cp$mean, each = m)))
    list(x = x, y = rep(1:10, each = m))
  }
  tr <- draw(per_class); te <- draw(per_class_test)
  list(x = tr$x, y = tr$y, xt = te$x, yt = te$y)
}
