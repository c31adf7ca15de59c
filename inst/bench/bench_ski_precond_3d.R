# The eigen-preconditioner of K_G (precond_rank, docs/ski_gsgp.md) on the data
# of the SKI learning benchmark (bench_ski_learn.c: 3-D, uniform on the unit cube,
# y = sin(4 x1) cos(3 x2) + x3 + N(0, 0.1^2), cubic 64 x 64 x 32 = 131072-point
# grid), here 1e6 points, at the learning's data-based start (lengthscale 0.29,
# outputscale var(y)/2, noise var(y)/4) and at the true noise 0.01: iterations and
# seconds of the mean solve (tol 0.01) for ranks 0, 64, 256, 1024. It measures
# how few modes of K_G stand above the noise, i.e. what preconditioning the SLQ
# probes of the learning (which do not use it yet) could gain.
#   R_LIBS=build/Rlib Rscript inst/bench/bench_ski_precond_3d.R [q ...]
# Measured 2026-11-27, idle 2-core machine, 2 threads:
#   noise 0.0755: q 0: 190 iterations 5.8 s; q 64: 21, 7.7 s; q 256: 1, 19.4 s;
#                 q 1024: 1, 141.5 s
#   noise 0.01:   q 0: 402 iterations 10.5 s; q 64: 50, 7.0 s; q 256: 1, 17.6 s;
#                 q 1024: 1, 145.2 s
# (the rest of each time is the preconditioner's set-up: subspace iteration for
# the eigenpairs and V'BV, per hyperparameter value).
suppressPackageStartupMessages(library(scalegp))
args <- commandArgs(trailingOnly = TRUE)
qs <- if (length(args)) as.integer(args) else c(0L, 64L, 256L, 1024L)
set.seed(1)
n <- 1e6
x <- matrix(runif(3 * n), n, 3)
y <- sin(4 * x[, 1]) * cos(3 * x[, 2]) + x[, 3] + rnorm(n, sd = 0.1)
g <- ski_grid(x, grid_size = c(64, 64, 32), interpolation = "cubic")
s <- ski_stats(x, y, g)
rm(x)
for (noise in c(var(y) / 4, 0.01)) for (q in qs) {
  t0 <- proc.time()[[3]]
  f <- suppressWarnings(ski_gsgp(stats = s, kernel = "rbf", lengthscale = 0.29,
                                 outputscale = var(y) / 2, noise = noise, mean = mean(y),
                                 precond_rank = q, max_iter = 3000, tol = 0.01,
                                 verbose = FALSE, threads = 2))
  cat(sprintf("BENCH ski_precond_3d noise=%.3g q=%d iterations=%d seconds=%.1f converged=%s\n",
              noise, q, f$iterations, proc.time()[[3]] - t0, f$converged))
}
