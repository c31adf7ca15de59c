# Benchmark (not a test) of gp_laplace's model selection with the matrix-free
# stochastic evidence (docs/gp_laplace.md, "Stochastic evidence"): a binary
# problem of n = 20000 points in d = 16 dimensions, learned with
# evidence = "stochastic" on `threads` threads (target: at most 10 minutes), and
# its held-out accuracy against exact-evidence learning on a 5000-point subset.
#
# Data: x ~ N(0, I_d); a smooth latent f(x) = sum_k a_k sin(w_k'x + b_k) with four
# random directions w_k (scale 0.5) and amplitude 1.5, y ~ Bernoulli(logistic(f));
# a held-out set of ntest points from the same law. Seeded: the same every run.
#
# Usage: Rscript bench_laplace_learn_mf.R [--n=20000] [--d=16] [--ntest=5000]
#          [--subset=5000] [--threads=2] [--probes=32] [--cache_gb=0] [--max_eval=100]
#          [--exact=1] [--verbose=0]
#   --cache_gb: kernel_cache_bytes in GB for both fits (0: matrix-free products;
#   the exact evidence stores its own n x n matrices whatever this says).
#   --exact=0 skips the exact learning on the subset; --verbose=1 prints the
#   optimizer's steps (each line with its cumulative seconds).
# Prints one BENCH line per figure: BENCH learn_mf <key=value ...>.
# total_s is the whole call (for the stochastic evidence: the exact learning of
# its start on a 2000-point subset, the learning, the fit and the predictions);
# select_s the optimizer's own clock (from its first evaluation).

args <- commandArgs(trailingOnly = TRUE)
opt <- function(name, default) {
  hit <- grep(paste0("^--", name, "="), args, value = TRUE)
  as.numeric(if (length(hit)) sub(paste0("^--", name, "="), "", hit[1]) else default)
}
n <- opt("n", 20000); d <- opt("d", 16); ntest <- opt("ntest", 5000)
subset <- opt("subset", 5000); threads <- opt("threads", 2); probes <- opt("probes", 32)
cache <- opt("cache_gb", 0) * 1e9; max_eval <- opt("max_eval", 100)
run_exact <- opt("exact", 1) != 0; verbose <- opt("verbose", 0) != 0
suppressPackageStartupMessages(library(scalegp))

set.seed(13)
W <- matrix(rnorm(4 * d, sd = 0.5), d, 4)
b <- runif(4, 0, 2 * pi)
latent <- function(x) 1.5 * rowSums(sin(sweep(x %*% W, 2, b, "+")))
draw <- function(m) {
  x <- matrix(rnorm(m * d), m, d)
  list(x = x, y = rbinom(m, 1, plogis(latent(x))))
}
tr <- draw(n); te <- draw(ntest)
bayes <- mean((latent(te$x) > 0) == (te$y == 1))

learn_fit <- function(x, y, evidence) {
  t0 <- proc.time()[["elapsed"]]
  fit <- gp_laplace(x, y, likelihood = "bernoulli", kernel = "matern52",
                    learn = c("lengthscale", "outputscale", "mean"), evidence = evidence,
                    probes = probes, optim_max_iter = max_eval, threads = threads,
                    kernel_cache_bytes = cache, xtest = te$x, seed = 1, verbose = verbose)
  secs <- proc.time()[["elapsed"]] - t0
  acc <- mean((fit$test$prob > 0.5) == (te$y == 1))
  ev <- nrow(fit$optim)
  sel <- max(c(0, fit$optim$seconds)) # cumulative seconds of the optimizer
  cat(sprintf(paste("BENCH learn_mf evidence=%s n=%d d=%d threads=%d probes=%d cache_gb=%g",
                    "total_s=%.1f select_s=%.1f evaluations=%d s_per_eval=%.2f accuracy=%.4f",
                    "loglik=%.3f loglik_se=%s lengthscale=%.4g outputscale=%.4g mean=%.4g",
                    "optim=\"%s\"\n"),
              evidence, nrow(x), d, threads, probes, cache / 1e9, secs, sel, ev, sel / ev,
              acc, fit$loglik, format(fit$loglik_se, digits = 3), fit$hyper$lengthscale,
              fit$hyper$outputscale, fit$hyper$mean, attr(fit$optim, "message") %||% ""))
  invisible(fit)
}
`%||%` <- function(a, b) if (is.null(a)) b else a

cat(sprintf("BENCH learn_mf data n=%d ntest=%d d=%d bayes_accuracy=%.4f\n", n, ntest, d, bayes))
sub <- seq_len(min(subset, n))
if (run_exact) learn_fit(tr$x[sub, , drop = FALSE], tr$y[sub], "exact")
learn_fit(tr$x, tr$y, "stochastic")
