# gp_laplace at the paper's budget on the GMM toy (Tatzel, Wenger et al.'s IterNCGP paper):
# softmax, n = 1e5 (10 classes x 1e4, 3-D), matrix-free (no kernel cache), cg
# policy, compression rank 10, 100 solver iterations in one Newton step, 2
# threads. Prints the wall and CPU seconds, the iterations and kernel products;
# run under /usr/bin/time -v (make bench-laplace-gmm) for the peak RSS.
# Usage: Rscript bench_laplace_gmm_budget.R [per_class] [max_iter]
library(scalegp)
args <- commandArgs(trailingOnly = TRUE)
per <- if (length(args) >= 1) as.integer(args[1]) else 10000L
max_iter <- if (length(args) >= 2) as.integer(args[2]) else 100L
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE),
                                                              value = TRUE)))), "gmm_data.R"))
dat <- gmm_data(per, 10, seed = 1)
t0 <- proc.time()
fit <- gp_laplace(dat$x, dat$y, likelihood = "softmax", kernel = "matern32",
                  lengthscale = 0.05, outputscale = 0.05, mean = 0, policy = "cg",
                  max_iter = max_iter, max_newton = 1, rank = 10, kernel_cache_bytes = 0,
                  inner_rtol = 0, inner_atol = 0, # the whole budget, as in the paper
                  verbose = FALSE, threads = 2L, seed = 1)
el <- proc.time() - t0
cat(sprintf("BENCH gmm_budget n=%d C=10 max_iter=%d wall=%.1fs cpu=%.1fs iterations=%d products=%d s_per_iter=%.2f\n",
            nrow(dat$x), max_iter, el[["elapsed"]], el[["user.self"]] + el[["sys.self"]],
            as.integer(fit$iterations), as.integer(fit$kernel_products),
            el[["elapsed"]] / fit$iterations))
