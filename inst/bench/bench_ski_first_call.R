# First-call latency of ski_gsgp: a 1-D recording, n = 67855 points,
# grid_size = 8000, tol = 1e-8, rbf lengthscale 0.1, noise 0.01 (the solve runs
# to max_iter = 1000, the expensive case). For each library in --libs (R
# library paths, compared side by side: rounds alternate between them) and
# each of --rounds rounds, a fresh R process measures
#   first:   the first ski_gsgp(x, y, ...) call of the process (FFTW planning
#            included),
#   warm:    the median of 3 more identical calls,
#   per-it:  the mean-solve time per iteration, (t(1000) - t(200)) / 800 with
#            tol = 1e-300 (never met), medians of 5 warm fits from the same
#            statistics.
# --case=grid2d: instead, the 2-D problem of test-ski-deterministic.R (n = 20000,
# 128 x 128 grid, matern32, tol 1e-6, max_iter 2000: ~700 iterations; per-iter
# from 400 and 2000 iterations), whose expected work made the former AUTO
# planner measure FFT plans (ESTIMATE against MEASURE side by side).
# Prints one BENCH line per process and the medians over rounds per library.
#   R_LIBS=build/Rlib Rscript inst/bench/bench_ski_first_call.R [--libs=A,B] [--rounds=5] [--case=1d|grid2d]
args <- commandArgs(trailingOnly = TRUE)
opt <- function(name, default) {
  hit <- grep(paste0("^--", name, "="), args, value = TRUE)
  if (length(hit)) sub(paste0("^--", name, "="), "", hit[1]) else default
}
if ("--child" %in% args) {
  suppressPackageStartupMessages(library(scalegp))
  case <- opt("case", "1d")
  if (case == "1d") {
    set.seed(42)
    n <- 67855
    x <- sort(runif(n, 0, 10))
    y <- sin(2 * pi * 0.7 * x) + 0.5 * sin(2 * pi * 3.1 * x) + rnorm(n, sd = 0.1)
    m <- 8000; hyp <- list(lengthscale = 0.1, noise = 0.01); k <- c(200, 1000); tol <- 1e-8
  } else { # grid2d: the problem of test-ski-deterministic.R
    set.seed(3); n <- 20000; x <- matrix(runif(2 * n), n, 2)
    y <- sin(6 * x[, 1]) * cos(4 * x[, 2]) + rnorm(n, sd = 0.05)
    m <- c(128, 128); k <- c(400, 2000); tol <- 1e-6
    hyp <- list(kernel = "matern32", lengthscale = 0.1, outputscale = 1, noise = 0.04)
  }
  fit <- function() suppressWarnings(do.call(ski_gsgp, c(list(x, y, grid_size = m, tol = tol,
    max_iter = k[2], verbose = FALSE), hyp)))
  el <- function(f) { t0 <- proc.time()[["elapsed"]]; f(); proc.time()[["elapsed"]] - t0 }
  first <- el(fit)
  warm <- median(replicate(3, el(fit)))
  s <- ski_stats(x, y, ski_grid(x, grid_size = m), verbose = FALSE)
  solve <- function(k) el(function() suppressWarnings(
    do.call(ski_gsgp, c(list(stats = s, tol = 1e-300, max_iter = k, verbose = FALSE), hyp))))
  t0 <- t1 <- numeric(0)
  for (r in 1:5) { t0 <- c(t0, solve(k[1])); t1 <- c(t1, solve(k[2])) }
  periter <- (median(t1) - median(t0)) / (k[2] - k[1])
  cat(sprintf("BENCH ski_first_call lib=%s case=%s n=%d m=%d threads=%s first=%.3fs warm=%.3fs ratio=%.2f periter=%.1fus\n",
              Sys.getenv("R_LIBS"), case, n, prod(m), Sys.getenv("OMP_NUM_THREADS", "default"),
              first, warm, first / warm, 1e6 * periter))
  quit(save = "no")
}
libs <- strsplit(opt("libs", Sys.getenv("R_LIBS", "build/Rlib")), ",")[[1]]
rounds <- as.integer(opt("rounds", "5"))
self <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])
res <- list()
for (r in seq_len(rounds)) for (lib in libs) {
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c(self, "--child", paste0("--case=", opt("case", "1d"))), stdout = TRUE,
                 env = paste0("R_LIBS=", lib))
  line <- grep("^BENCH", out, value = TRUE)
  cat(line, "\n", sep = "")
  num <- function(key) as.numeric(sub(paste0(".* ", key, "=([0-9.]+).*"), "\\1", line))
  res[[lib]] <- rbind(res[[lib]], c(first = num("first"), warm = num("warm"),
                                    ratio = num("ratio"), periter = num("periter")))
}
cat(sprintf("\n%-30s %8s %8s %8s %12s   (medians of %d rounds)\n", "library", "first", "warm",
            "ratio", "per-iter", rounds))
for (lib in libs) {
  m <- apply(res[[lib]], 2, median)
  cat(sprintf("%-30s %7.3fs %7.3fs %8.2f %10.1fus\n", lib, m[["first"]], m[["warm"]],
              m[["ratio"]], m[["periter"]]))
}
