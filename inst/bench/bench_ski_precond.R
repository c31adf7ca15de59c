# Preconditioned mean solve of ski_gsgp (precond_rank, docs/ski_gsgp.md) on the demo's
# 4th panel (inst/examples/demo.R): 1e6 points of a 2-D field, grid 128 x 128,
# Matern-3/2, lengthscale 0.15, outputscale 0.5, noise 0.09, tol 0.01.
#   R_LIBS=build/Rlib Rscript inst/bench/bench_ski_precond.R [q ...]
# NOISE=0.001 (environment) fits with a smaller noise variance than the demo's
# 0.09 (harder: more iterations), e.g. as met in a hyperparameter search;
# MAX_ITER (default 1000) the iteration cap.
# One thread, best of 3 runs (the timings are wall clock on a shared machine).
# setup = t(q, max_iter = 1) - t(0, max_iter = 1) (eigenpairs, V'BV, one extra
# Bop); solve = total - setup. RMSE of the posterior mean to the true field on
# the demo's 150 x 150 test grid; "vs q=0" = max |mean - mean(q = 0)| / max |mean(q = 0)|.
suppressPackageStartupMessages(library(scalegp))
args <- commandArgs(trailingOnly = TRUE)
qs <- if (length(args)) as.integer(args) else c(0L, 16L, 64L, 256L)
noise <- as.numeric(Sys.getenv("NOISE", "0.09"))
max_iter_all <- as.integer(Sys.getenv("MAX_ITER", "1000"))
set.seed(42)
n_big <- 1e6
field <- function(u, v) sin(6 * u) * cos(4 * v) + 0.5 * exp(-((u - 0.7)^2 + (v - 0.3)^2) / 0.02)
xb <- cbind(u = rbeta(n_big, 1.3, 1.3), v = runif(n_big))
yb <- field(xb[, 1], xb[, 2]) + rnorm(n_big, sd = 0.3)
grid <- ski_grid(xb, grid_size = c(128, 128), interpolation = "cubic")
stats <- ski_stats(xb, yb, grid)
rm(xb, yb)
gs <- seq(0.01, 0.99, length.out = 150)
xs <- as.matrix(expand.grid(gs, gs))
truth <- field(xs[, 1], xs[, 2])
fit_q <- function(q, max_iter = max_iter_all)
  suppressWarnings(ski_gsgp(stats = stats, kernel = "matern32", lengthscale = 0.15,
                            outputscale = 0.5, noise = noise, seed = 1, verbose = FALSE,
                            threads = 1L,
                            precond_rank = q, max_iter = max_iter))
elapsed <- function(f, reps = 3L) {
  best <- Inf
  for (i in seq_len(reps)) {
    t0 <- proc.time()[["elapsed"]]
    val <- f()
    best <- min(best, proc.time()[["elapsed"]] - t0)
  }
  attr(best, "value") <- val
  best
}
loadavg <- function() paste(readLines("/proc/loadavg"), collapse = "")
cat(sprintf("noise %g, max_iter %d; load before: %s\n", noise, max_iter_all, loadavg()))
t_base1 <- elapsed(function() fit_q(0L, 1L))
ref <- NULL
cat(sprintf("%6s %6s %9s %9s %9s %8s %10s %9s\n", "q", "iter", "setup_s", "solve_s", "total_s",
            "RMSE", "vs q=0", "rel_res"))
for (q in qs) {
  setup <- if (q > 0) max(0, elapsed(function() fit_q(q, 1L)) - t_base1) else 0
  total <- elapsed(function() fit_q(q))
  fit <- attr(total, "value")
  mu <- predict(fit, xs, variance = "none")$mean
  if (is.null(ref)) ref <- mu
  cat(sprintf("%6d %6d %9.2f %9.2f %9.2f %8.4f %10.2e %9.4f\n", q, fit$iterations, setup,
              total - setup, total, sqrt(mean((mu - truth)^2)),
              max(abs(mu - ref)) / max(abs(ref)), fit$rel_residual))
}
cat(sprintf("load after: %s\n", loadavg()))
