# threads = 2 against threads = 1 on a shared machine: the benchmark set of
# small and large cases (ski_gsgp 1-D and 2-D, gp_laplace exact and cg, valla,
# ski_laplace), each timed idle and with two busy background processes (one
# per core of a 2-core machine). One BENCH line per case and condition: the
# median seconds of REPS alternating runs with 1 and 2 threads and their ratio
# t2 / t1. The environment is the user's: no OMP_WAIT_POLICY, OpenMP's default.
# Usage: Rscript bench_threads.R [reps=5] [cases...]
suppressPackageStartupMessages(library(scalegp))
args <- commandArgs(TRUE)
reps <- if (length(args) >= 1) as.integer(args[1]) else 5L
set.seed(1)
x1 <- matrix(sort(runif(67855, 0, 100))); y1 <- sin(x1[, 1]) + rnorm(67855, sd = 0.3)
x2 <- matrix(runif(2e5), ncol = 2); y2 <- sin(6 * x2[, 1]) * cos(4 * x2[, 2]) + rnorm(1e5, sd = 0.3)
xc <- matrix(runif(2000 * 2, -3, 3), ncol = 2); yc <- rbinom(2000, 1, plogis(2 * sin(xc[, 1]) * cos(xc[, 2])))
xl <- matrix(runif(3000 * 2, -3, 3), ncol = 2); yl <- rbinom(3000, 1, plogis(2 * sin(xl[, 1]) * cos(xl[, 2])))
xv <- matrix(runif(2000, -2, 2)); yv <- sin(2 * xv[, 1]) + rnorm(2000, sd = 0.1)
net <- mlp_fit(xv, yv, hidden = c(20, 20), iterations = 300, seed = 1, verbose = FALSE)
cnt <- matrix(rpois(256 * 128, 2), 256, 128)
q <- function(...) suppressWarnings(...)
cases <- list(
  ski_1d = function(th) ski_gsgp(x1, y1, grid_size = 8000, lengthscale = 1, outputscale = 1,
                                 noise = 0.09, tol = 1e-8, threads = th, verbose = FALSE),
  ski_2d = function(th) ski_gsgp(x2, y2, grid_size = c(128, 128), lengthscale = 0.28,
                                 outputscale = 0.2, noise = 0.09, tol = 1e-8, threads = th,
                                 verbose = FALSE),
  laplace_exact = function(th) gp_laplace(xc, yc, likelihood = "bernoulli", lengthscale = 1,
                                          outputscale = 2, threads = th, verbose = FALSE),
  laplace_cg = function(th) q(gp_laplace(xl, yl, likelihood = "bernoulli", lengthscale = 1,
                                         outputscale = 2, policy = "cg", max_iter = 50,
                                         threads = th, verbose = FALSE)),
  valla = function(th) valla(net, xv, yv, inducing = 50, threads = th, seed = 1, verbose = FALSE),
  ski_laplace = function(th) q(ski_laplace(y = cnt, lengthscale = 8, outputscale = 1, mean = 0.5,
                                           loglik = TRUE, threads = th, seed = 1,
                                           verbose = FALSE)))
if (length(args) > 1) cases <- cases[args[-1]]
time_of <- function(f, th) { t0 <- proc.time()[["elapsed"]]; invisible(f(th)); proc.time()[["elapsed"]] - t0 }
busy <- function(on) {
  if (on) {
    pids <- vapply(1:2, function(i) {
      system("sh -c 'while :; do :; done' >/dev/null 2>&1 & echo $!", intern = TRUE)
    }, "")
    Sys.sleep(1)
    return(pids)
  }
  NULL
}
for (cond in c("idle", "busy")) {
  pids <- busy(cond == "busy")
  for (nm in names(cases)) {
    invisible(cases[[nm]](1))  # warm-up (plans, caches)
    t <- matrix(NA, reps, 2)
    for (r in seq_len(reps)) for (th in 1:2) t[r, th] <- time_of(cases[[nm]], th)
    m <- apply(t, 2, median)
    cat(sprintf("BENCH threads case=%s load=%s t1=%.3fs t2=%.3fs ratio_t2_t1=%.2f\n", nm, cond,
                m[1], m[2], m[2] / m[1]))
  }
  if (length(pids)) system(paste("kill", paste(pids, collapse = " ")))
}
