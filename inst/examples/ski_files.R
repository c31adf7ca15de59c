# ski_files.R -- SKI-GSGP on a data set kept in several CSV files, its
# statistics computed on a 2-worker PSOCK cluster, then with a future plan.
#
#   Rscript inst/examples/ski_files.R
#
# ski_stats(files, grid, x = <input columns>, y = <response column>) reads each
# file in row blocks on a worker and returns the merged statistics; only
# statistics travel back to the master, and the fit uses nothing else. The
# merge runs in file order, so every engine gives the same numbers bitwise.
library(scalegp)

dir <- file.path(tempdir(), "ski_files")
dir.create(dir, showWarnings = FALSE)
files <- file.path(dir, sprintf("part%d.csv", 1:4))
set.seed(7)
for (f in files) { # 4 files of 25000 rows: lon, lat, a response
  x <- cbind(lon = runif(25000), lat = runif(25000))
  y <- sin(4 * x[, "lon"]) * cos(3 * x[, "lat"]) + rnorm(25000, sd = 0.1)
  utils::write.csv(data.frame(x, response = y), f, row.names = FALSE)
}

# One grid for every file, from the known range of the inputs.
grid <- ski_grid(range = rbind(c(0, 1), c(0, 1)), grid_size = c(40, 40))

cl <- parallel::makeCluster(2L)
stats <- ski_stats(files, grid, x = c("lon", "lat"), y = "response", cluster = cl,
                   verbose = TRUE)
parallel::stopCluster(cl)
print(stats$chunks)

if (requireNamespace("future.apply", quietly = TRUE)) {
  old <- future::plan(future::multisession, workers = 2L)
  again <- ski_stats(files, grid, x = c("lon", "lat"), y = "response", verbose = FALSE)
  future::plan(old)
  stopifnot(identical(again$WtW, stats$WtW), identical(again$Wty, stats$Wty))
  cat("future plan: the same statistics, bitwise\n")
}

fit <- ski_gsgp(stats = stats, kernel = "matern52", lengthscale = 0.3, outputscale = 1,
                noise = 0.01, xtest = cbind(c(0.25, 0.5, 0.75), 0.5), verbose = FALSE)
print(fit)
print(cbind(fit$test$mean, truth = sin(4 * c(0.25, 0.5, 0.75)) * cos(1.5)))
