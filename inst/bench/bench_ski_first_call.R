# First-call latency of ski_gsgp (issue 11): a 1-D recording, n = 67855 points,
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
# Prints one BENCH line per process and the medians over rounds per library.
#   R_LIBS=build/Rlib Rscript inst/bench/bench_ski_first_call.R [--libs=A,B] [--rounds=5]
args <- commandArgs(trailingOnly = TRUE)
opt <- function(name, default) {
  hit <- grep(paste0("^--", name, "="), args, value = TRUE)
  if (length(hit)) sub(paste0("^--", name, "="), "", hit[1]) else default
}
if ("--child" %in% args) {
  suppressPackageStartupMessages(library(scalegp))
  set.seed(42)
  n <- 67855
  x <- sort(runif(n, 0, 10))
  y <- sin(2 * pi * 0.7 * x) + 0.5 * sin(2 * pi * 3.1 * x) + rnorm(n, sd = 0.1)
  fit <- function() suppressWarnings(ski_gsgp(x, y, grid_size = 8000, tol = 1e-8,
                                              lengthscale = 0.1, noise = 0.01, verbose = FALSE))
  el <- function(f) { t0 <- proc.time()[["elapsed"]]; f(); proc.time()[["elapsed"]] - t0 }
  first <- el(fit)
  warm <- median(replicate(3, el(fit)))
  s <- ski_stats(x, y, ski_grid(x, grid_size = 8000), verbose = FALSE)
  solve <- function(k) el(function() suppressWarnings(
    ski_gsgp(stats = s, tol = 1e-300, max_iter = k, lengthscale = 0.1, noise = 0.01,
             verbose = FALSE)))
  t200 <- t1000 <- numeric(0)
  for (r in 1:5) { t200 <- c(t200, solve(200)); t1000 <- c(t1000, solve(1000)) }
  periter <- (median(t1000) - median(t200)) / 800
  cat(sprintf("BENCH ski_first_call lib=%s n=%d m=8000 threads=%s first=%.3fs warm=%.3fs ratio=%.2f periter=%.1fus\n",
              Sys.getenv("R_LIBS"), n, Sys.getenv("OMP_NUM_THREADS", "default"), first, warm,
              first / warm, 1e6 * periter))
  quit(save = "no")
}
libs <- strsplit(opt("libs", Sys.getenv("R_LIBS", "build/Rlib")), ",")[[1]]
rounds <- as.integer(opt("rounds", "5"))
self <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])
res <- list()
for (r in seq_len(rounds)) for (lib in libs) {
  out <- system2(file.path(R.home("bin"), "Rscript"), c(self, "--child"), stdout = TRUE,
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
