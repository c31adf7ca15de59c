# ski_laplace on real point patterns (Debian r-cran-spatstat.data): bei (3604
# trees in a 1000 m x 500 m rectangle) and clmfires (forest fires in a polygon
# window), points layout, everything learned. One BENCH line per fit: the
# path, the learning's evaluations, Newton and CG steps of the final fit, the
# times (learning + fit + the stochastic sd map), the evidence +- se, the
# learned values and the process's peak RSS; beside them t_K, the median time
# of one K product on the same grid (the C driver bench_ski_kg, given as the
# first argument). BENCH_ARGS picks the cases: small (bei 64 x 32 on the exact,
# eigen and slq paths), medium (bei 256 x 128, clmfires 256 x 256, both on the
# eigen and slq paths), large (bei 1024 x 512, auto: eigen); default all.
suppressPackageStartupMessages(library(scalegp))
args <- commandArgs(TRUE)
kg <- args[1]
cases <- if (length(args) > 1) args[-1] else c("small", "medium", "large")
data(bei, package = "spatstat.data")
data(clmfires, package = "spatstat.data")
peak_rss_mb <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(sub("[^0-9]*([0-9]+).*", "\\1", grep("^VmHWM", s, value = TRUE))) / 1024
}
t_k <- function(size) {
  out <- system2(kg, c(size[1], size[2]), stdout = TRUE)
  as.numeric(sub(".*t_K=([0-9.e-]+)s.*", "\\1", grep("^BENCH", out, value = TRUE)))
}
run <- function(name, pp, size, method) {
  t0 <- proc.time()[["elapsed"]]
  fit <- ski_laplace(pp, grid_size = size, loglik_method = method, variance = "stochastic",
                     seed = 1, verbose = FALSE)
  secs <- proc.time()[["elapsed"]] - t0
  tk <- t_k(size)
  h <- fit$hyper
  cat(sprintf(paste("BENCH ski_laplace data=%s grid=%dx%d path=%s evals=%d newton=%d cg=%d",
                    "time=%.1fs t_K=%.3gs time_over_tK=%.0f loglik=%.2f se=%.2f lengthscale=%.4g",
                    "outputscale=%.4g mean=%.4g converged=%s peak_rss=%.0fMB\n"),
              name, size[1], size[2], fit$used$loglik_method, nrow(fit$optim),
              as.integer(fit$newton_steps), as.integer(fit$iterations), secs, tk, secs / tk,
              fit$loglik, fit$loglik_se, h$lengthscale, h$outputscale, h$mean, fit$converged,
              peak_rss_mb()))
  fit
}
if ("small" %in% cases)
  for (m in c("exact", "eigen", "slq")) invisible(run("bei", bei, c(64, 32), m))
if ("medium" %in% cases)
  for (m in c("eigen", "slq")) {
    invisible(run("bei", bei, c(256, 128), m))
    invisible(run("clmfires", clmfires, c(256, 256), m))
  }
if ("large" %in% cases) invisible(run("bei", bei, c(1024, 512), "auto"))
