# Benchmark: matrix-free kernel products K V (n = 20000, d = 16, b = 10) against
# the same product with K cached, side by side. Target (foundation issue):
# <= 2 s per matrix-free product on 2 threads. Timings are medians of `reps`
# products after one warm-up product; setup (building the operator, and for
# the cached mode filling K) is reported separately.
# Usage: Rscript bench_kernel.R [threads] [n]
library(scalegp)

args <- commandArgs(trailingOnly = TRUE)
threads <- if (length(args) >= 1) as.integer(args[1]) else 2L
n <- if (length(args) >= 2) as.integer(args[2]) else 20000L
d <- 16L; b <- 10L; reps <- 3L
set.seed(1)
x <- matrix(rnorm(n * d), n, d)
v <- matrix(rnorm(n * b), n, b)

rss_mb <- function() {
  s <- tryCatch(readLines("/proc/self/status"), error = function(e) character())
  hwm <- grep("^VmHWM", s, value = TRUE)
  if (length(hwm)) as.numeric(gsub("[^0-9]", "", hwm)) / 1024 else NA
}

rows <- list()
for (kernel in c("rbf", "matern32")) {
  for (mode in c("matrix-free", "cached")) {
    cache <- if (mode == "cached") 8 * n^2 + 1 else 0
    r <- scalegp:::kernel_apply(x, v, kernel = kernel, lengthscale = 4, threads = threads,
                                cache_bytes = cache, reps = reps + 1L)
    per <- median(r$seconds[-1])
    rows[[length(rows) + 1]] <- data.frame(kernel = kernel, mode = mode, threads = threads,
      setup_s = r$setup_seconds, product_s = per,
      gentries_per_s = n^2 / per / 1e9, peak_rss_mb = rss_mb())
    cat(sprintf("BENCH kernel_op n=%d d=%d b=%d kernel=%s mode=%s threads=%d time=%.3fs setup=%.3fs\n",
                n, d, b, kernel, mode, threads, per, r$setup_seconds))
  }
}
tab <- do.call(rbind, rows)
cat("\nK V products, n =", n, " d =", d, " b =", b, "(median of", reps, "after a warm-up)\n")
print(tab, digits = 3, row.names = FALSE)
free <- tab$product_s[tab$mode == "matrix-free"]
cached <- tab$product_s[tab$mode == "cached"]
cat(sprintf("\nmatrix-free / cached time ratio: %s (target: matrix-free <= 2 s per product)\n",
            paste(sprintf("%.2f", free / cached), collapse = ", ")))
