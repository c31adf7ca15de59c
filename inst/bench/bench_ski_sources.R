# ski_stats over files (scale-out): N points in 3-D written to F CSV files,
# then the statistics computed sequentially and on a 2-worker PSOCK cluster,
# beside the rate at which the same files are merely read and parsed in the
# same row blocks (the limit). Each phase runs in its own R process, so its
# peak RSS is its own (the master's; the files are written first, apart).
#
# Usage: Rscript bench_ski_sources.R [N=2e7] [F=20] [dir=tempdir] [phases]
#   phases: read, sequential, psock (default: all three). N = 2e8 needs ~14 GB
#   of disk. One line per phase: BENCH ski_sources ...
suppressPackageStartupMessages(library(scalegp))
args <- commandArgs(trailingOnly = TRUE)
N <- as.numeric(if (length(args) >= 1) args[1] else 2e7)
nf <- as.integer(if (length(args) >= 2) args[2] else 20)
dir <- if (length(args) >= 3) args[3] else file.path(tempdir(), "ski_sources")
block <- 2e6 # rows per block (the default rule gives 2.8e6 for this grid)
dir.create(dir, showWarnings = FALSE, recursive = TRUE)
files <- file.path(dir, sprintf("part%02d.csv", seq_len(nf)))
per <- ceiling(N / nf)

peak_rss_mib <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", s, value = TRUE))) / 1024
}

phases <- if (length(args) >= 4) args[4:length(args)] else c("read", "sequential", "psock")
if (length(phases) > 1 || !all(file.exists(files))) {
  if (!all(file.exists(files))) {
    t0 <- proc.time()[[3]]
    for (j in seq_len(nf)) { # written in blocks so the writer's memory stays small
      set.seed(j)
      for (o in seq(0, per - 1, by = block)) {
        m <- min(block, per - o)
        x <- matrix(runif(3 * m), m)
        y <- sin(6 * x[, 1]) * cos(4 * x[, 2]) + x[, 3] + rnorm(m, sd = 0.1)
        data.table::fwrite(data.frame(x1 = x[, 1], x2 = x[, 2], x3 = x[, 3], y = y), files[j],
                           append = o > 0)
      }
    }
    cat(sprintf("wrote %g points in %d files in %.0f s\n", per * nf, nf, proc.time()[[3]] - t0))
  }
  me <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  for (ph in phases)
    system2(file.path(R.home("bin"), "Rscript"), c(me, format(N, scientific = TRUE), nf, dir, ph))
  quit(save = "no")
}
grid <- ski_grid(range = rbind(c(0, 1), c(0, 1), c(0, 1)), grid_size = c(32, 32, 32))
xs <- c("x1", "x2", "x3")
report <- function(what, sec, workers) {
  cat(sprintf("BENCH ski_sources what=%s N=%g files=%d workers=%d seconds=%.1f points_per_s=%.3g master_peak_rss_mib=%.0f\n",
              what, per * nf, nf, workers, sec, per * nf / sec, peak_rss_mib()))
}
t0 <- proc.time()[[3]]
if (phases == "read") { # the same blocks, parsed and dropped
  for (f in files) {
    rd <- scalegp:::ski_csv_reader(f, xs, "y", block)
    while (!is.null(rd$next_block())) NULL
    rd$close()
  }
  report("read_only", proc.time()[[3]] - t0, 1)
} else if (phases == "sequential") {
  s <- ski_stats(files, grid, x = xs, y = "y", block_rows = block, threads = 1, verbose = FALSE)
  report("stats_sequential", proc.time()[[3]] - t0, 1)
  stopifnot(s$n == per * nf)
} else {
  cl <- parallel::makeCluster(2L)
  invisible(parallel::clusterCall(cl, function(p) .libPaths(p), .libPaths()))
  t0 <- proc.time()[[3]]
  s <- ski_stats(files, grid, x = xs, y = "y", block_rows = block, cluster = cl, threads = 1,
                 verbose = FALSE)
  report("stats_psock", proc.time()[[3]] - t0, 2)
  parallel::stopCluster(cl)
  stopifnot(s$n == per * nf)
}
