# ski_stats over files (scale-out): N points in 3-D written to F CSV files,
# then, each phase in its own process (so its peak RSS is its own: the
# master's), the statistics of the same rows in memory, the rate at which the
# files are merely read and parsed in the same row blocks, and ski_stats over
# the files sequentially, on a 2-worker PSOCK cluster, on a 2-worker future
# plan and in Octave (in this process and with 2 workers). One thread per
# process throughout.
#
# Usage: Rscript bench_ski_sources.R [N=2e7] [F=20] [dir=tempdir] [key=value ...] [phases]
#   keys: grid=32x32x32 (grid points per dimension), block=2e6 (rows per
#   block), reps=1 (timings per phase; the median is reported).
#   phases: memory, read, sequential, psock, future, octave, octave_workers
#   (default: read, sequential, psock). N = 2e8 needs ~14 GB of disk.
#   The many-small-files case: 138000 103 <dir> grid=40x30x20 reps=3.
# One line per phase: BENCH ski_sources ... (seconds: the median; all: each).
suppressPackageStartupMessages(library(scalegp))
args <- commandArgs(trailingOnly = TRUE)
keyed <- grepl("=", args)
kv <- args[keyed]
opt <- function(key, default) {
  hit <- kv[startsWith(kv, paste0(key, "="))]
  if (length(hit)) sub("^[^=]*=", "", hit[1L]) else default
}
pos <- args[!keyed]
N <- as.numeric(if (length(pos) >= 1) pos[1] else 2e7)
nf <- as.integer(if (length(pos) >= 2) pos[2] else 20)
dir <- if (length(pos) >= 3) pos[3] else file.path(tempdir(), "ski_sources")
grid_size <- as.integer(strsplit(opt("grid", "32x32x32"), "x", fixed = TRUE)[[1L]])
block <- as.numeric(opt("block", "2e6")) # rows per block (the default rule: m S / 4)
reps <- as.integer(opt("reps", "1"))
dir.create(dir, showWarnings = FALSE, recursive = TRUE)
files <- file.path(dir, sprintf("part%03d.csv", seq_len(nf)))
per <- ceiling(N / nf)

peak_rss_mib <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", s, value = TRUE))) / 1024
}

phases <- if (length(pos) >= 4) pos[4:length(pos)] else c("read", "sequential", "psock")
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
    system2(file.path(R.home("bin"), "Rscript"), c(me, format(N, scientific = TRUE), nf, dir, kv, ph))
  quit(save = "no")
}
grid <- ski_grid(range = rbind(c(0, 1), c(0, 1), c(0, 1)), grid_size = grid_size)
xs <- c("x1", "x2", "x3")
report <- function(what, secs, workers) {
  cat(sprintf(paste("BENCH ski_sources what=%s N=%g files=%d grid=%s workers=%d seconds=%.2f",
                    "all=%s points_per_s=%.3g master_peak_rss_mib=%.0f\n"),
              what, per * nf, nf, paste(grid_size, collapse = "x"), workers, median(secs),
              paste(sprintf("%.2f", secs), collapse = ","), per * nf / median(secs),
              peak_rss_mib()))
}
timed <- function(f) vapply(seq_len(reps), function(i) {
  t0 <- proc.time()[[3]]
  f()
  proc.time()[[3]] - t0
}, 0)
read_all <- function() { # the same blocks, parsed
  out <- list()
  for (f in files) {
    rd <- scalegp:::ski_csv_reader(f, xs, "y", block)
    while (!is.null(b <- rd$next_block())) out[[length(out) + 1L]] <- b
    rd$close()
  }
  out
}
check <- function(s) stopifnot(s$n == per * nf)
phase <- phases
if (phase == "read") {
  report("read_only", timed(function() read_all()), 1)
} else if (phase == "memory") {
  b <- read_all()
  x <- do.call(rbind, lapply(b, function(v) as.matrix(v$x)))
  y <- unlist(lapply(b, `[[`, "y"))
  report("stats_in_memory", timed(function() check(ski_stats(x, y, grid, threads = 1))), 1)
} else if (phase == "sequential") {
  report("stats_sequential", timed(function()
    check(ski_stats(files, grid, x = xs, y = "y", block_rows = block, threads = 1,
                    verbose = FALSE))), 1)
} else if (phase == "psock") {
  cl <- parallel::makeCluster(2L)
  invisible(parallel::clusterCall(cl, function(p) .libPaths(p), .libPaths()))
  report("stats_psock", timed(function()
    check(ski_stats(files, grid, x = xs, y = "y", block_rows = block, cluster = cl, threads = 1,
                    verbose = FALSE))), 2)
  parallel::stopCluster(cl)
} else if (phase == "future") {
  future::plan(future::multisession, workers = 2L)
  report("stats_future", timed(function()
    check(ski_stats(files, grid, x = xs, y = "y", block_rows = block, threads = 1,
                    verbose = FALSE))), 2)
  future::plan(future::sequential)
} else if (phase %in% c("octave", "octave_workers")) {
  # Octave's package from the tree (run from the repository root) or SGP_OCTAVE_PATH
  root <- Sys.getenv("SGP_OCTAVE_PATH", "bindings_octave")
  w <- if (phase == "octave") 1L else 2L
  code <- sprintf(paste0(
    "addpath('%s/inst'); addpath('%s/src'); f = strsplit('%s', ','); ",
    "g = ski_grid([0 0 0; 1 1 1], 'grid_size', [%s]); t = zeros(1, %d); ",
    "for i = 1:%d, t0 = tic(); s = ski_stats(f, g, 'x', {'x1','x2','x3'}, 'y', 'y', ",
    "'block_rows', %.0f, 'threads', 1, 'workers', %d); t(i) = toc(t0); endfor; ",
    "assert(s.n, %.0f); printf('%%s\\n', sprintf('%%.2f,', t))"),
    root, root, paste(files, collapse = ","), paste(grid_size, collapse = " "), reps, reps,
    block, w, per * nf)
  out <- system2("octave-cli", c("--no-gui", "--norc", "--no-history", "--eval", shQuote(code)),
                 stdout = TRUE)
  secs <- as.numeric(strsplit(sub(",$", "", tail(out, 1L)), ",", fixed = TRUE)[[1L]])
  report(paste0("stats_", phase), secs, w)
}
