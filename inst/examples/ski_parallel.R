# ski_parallel.R -- SKI-GSGP on data processed in chunks by parallel workers.
#
#   Rscript inst/examples/ski_parallel.R
#
# Each worker turns its chunk into sufficient statistics (ski_stats: W'W, W'y,
# y'y, n on a grid fixed in advance); the main process adds them
# (ski_stats_merge) and fits from the sum (ski_gsgp(stats = )). The data never
# have to be in one place, and the fit equals the one-shot fit on all data.
library(scalegp)
library(parallel)

set.seed(42)
n <- 10000
x <- cbind(runif(n), runif(n))
y <- sin(4 * x[, 1]) * cos(3 * x[, 2]) + rnorm(n, sd = 0.1)

# One grid for every chunk, from the known range of the inputs.
grid <- ski_grid(range = rbind(c(0, 1), c(0, 1)), grid_size = c(40, 40))

chunks <- split(seq_len(n), rep(1:8, length.out = n))
# Workers are forked processes: one OpenMP thread each (threads = 1).
cores <- if (.Platform$OS.type == "windows") 1L else 2L
parts <- mclapply(chunks, function(i) {
  ski_stats(x[i, , drop = FALSE], y[i], grid, first_row = i[1] - 1, threads = 1)
}, mc.cores = cores)
if (any(vapply(parts, inherits, logical(1), "try-error"))) stop("a worker failed")
stats <- do.call(ski_stats_merge, unname(parts))
print(stats)

hyper <- list(kernel = "matern52", lengthscale = 0.3, outputscale = 1, noise = 0.05,
              tol = 1e-7, verbose = FALSE)
xtest <- cbind(c(0.25, 0.5, 0.75), c(0.5, 0.5, 0.5))
fit <- do.call(ski_gsgp, c(list(stats = stats, xtest = xtest), hyper))
one <- do.call(ski_gsgp, c(list(x = x, y = y, grid_size = grid$size,
                                grid_bounds = grid$bounds, xtest = xtest), hyper))
print(fit)
cat("test means (chunked, one-shot, truth):\n")
print(cbind(fit$test$mean, one$test$mean, sin(4 * xtest[, 1]) * cos(3 * xtest[, 2])))
diff <- max(abs(fit$weights - one$weights)) / max(abs(one$weights))
cat(sprintf("largest relative difference of the grid weights: %.2g\n", diff))
stopifnot(fit$converged, one$converged, diff < 1e-5)
