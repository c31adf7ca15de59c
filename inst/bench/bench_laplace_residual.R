# gp_laplace's solver residual: the recursive default (one kernel
# product per solver iteration) against residual = "explicit" (two), on the
# softmax GMM of bench_laplace.R (n = 10 x per, C = 10, matrix-free). Runs the
# two modes alternately, `rounds` times each, and prints the medians of the
# seconds per solver iteration (from the fit's iteration history: the time
# between the first and the last iteration over I - 1, so neither the setup
# nor the evidence after the fit counts), their ratio and the largest
# relative difference of f between the modes.
# Usage: Rscript bench_laplace_residual.R [--per=2000] [--max_iter=5] [--rounds=3] [--threads=2]
#          [--class_actions=1]   (0: one action per kernel product, as before class actions)
args <- commandArgs(trailingOnly = TRUE)
opt <- function(name, default) {
  hit <- grep(paste0("^--", name, "="), args, value = TRUE)
  as.numeric(if (length(hit)) sub(paste0("^--", name, "="), "", hit[1]) else default)
}
per <- opt("per", 2000); max_iter <- opt("max_iter", 5); rounds <- opt("rounds", 3)
threads <- opt("threads", 2); class_actions <- opt("class_actions", 1) != 0
suppressPackageStartupMessages(library(scalegp))

# the mixture of bench_laplace.R's gmm_data, training part only
set.seed(42)
comps <- lapply(1:10, function(k) {
  A <- matrix(runif(9), 3, 3)
  U <- eigen(A %*% t(A), symmetric = TRUE)$vectors
  list(mean = runif(3, -1, 1), R = t(U %*% diag(sqrt(runif(3, 0.001, 0.1)))))
})
set.seed(1)
x <- do.call(rbind, lapply(comps, function(cp)
  matrix(rnorm(per * 3), per, 3) %*% cp$R + rep(cp$mean, each = per)))
y <- rep(1:10, each = per)

fit <- function(residual) {
  f <- suppressWarnings(gp_laplace(x, y, likelihood = "softmax", kernel = "matern32",
    lengthscale = 0.05, outputscale = 0.05, mean = 0, policy = "cg", max_iter = max_iter,
    max_newton = 1, rank = 10, kernel_cache_bytes = 0, residual = residual,
    class_actions = class_actions,
    verbose = FALSE, threads = threads, seed = 1))
  t <- f$history$seconds
  list(s = (t[length(t)] - t[1]) / (length(t) - 1), fit = f)
}
modes <- c("recursive", "explicit")
sec <- matrix(NA, rounds, 2, dimnames = list(NULL, modes)); last <- list()
for (r in seq_len(rounds)) for (m in modes) {
  res <- fit(m)
  sec[r, m] <- res$s
  last[[m]] <- res$fit
}
f1 <- last$recursive$f; f2 <- last$explicit$f
cat(sprintf("GMM softmax n = %d, C = 10, matrix-free, max_iter = %d, max_newton = 1, %d threads, %d rounds, class_actions %s\n",
            nrow(x), max_iter, threads, rounds, class_actions))
print(data.frame(mode = modes, iterations = sapply(last, `[[`, "iterations"),
                 kernel_products = sapply(last, `[[`, "kernel_products"),
                 s_per_iter_median = apply(sec, 2, median),
                 s_per_iter_runs = apply(sec, 2, function(v) paste(sprintf("%.2f", v), collapse = " "))),
      row.names = FALSE)
cat(sprintf("BENCH laplace_residual n=%d max_iter=%d ratio_recursive_explicit=%.3f max_rel_diff_f=%.3g\n",
            nrow(x), max_iter, median(sec[, "recursive"]) / median(sec[, "explicit"]),
            max(abs(f1 - f2)) / max(abs(f2))))
