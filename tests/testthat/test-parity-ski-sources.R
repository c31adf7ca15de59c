# R and Octave read chunk files the same way: CSV and HDF5 files
# written by R (hdf5r: an n-by-2 matrix "inputs", a vector "resp", as R's
# reader expects them), read in blocks of 64 rows, give bitwise the same
# statistics in both hosts (one thread, the same keys and merges; the data are
# multiples of 2^-10 and 2^-3, exact in CSV), and a missing dataset the same
# error. The Octave side is parity-ski-sources.m.

test_that("ski_stats over CSV and HDF5 files agrees between R and Octave bitwise", {
  root <- parity_skip()
  skip_if_not_installed("hdf5r")
  skip_if_not_installed("data.table")
  set.seed(3)
  n <- 300
  x <- cbind(round(runif(n) * 1024) / 1024, round(runif(n) * 1024) / 1024)
  y <- round(8 * (sin(5 * x[, 1]) + x[, 2] + rnorm(n, sd = 0.2))) / 8
  dir <- tempfile("paritysrc")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  parts <- list(1:130, 131:300)
  csv <- file.path(dir, sprintf("a%d.csv", 1:2))
  h5 <- file.path(dir, sprintf("b%d.h5", 1:2))
  for (k in 1:2) {
    i <- parts[[k]]
    utils::write.csv(data.frame(u = x[i, 1], v = x[i, 2], z = y[i]), csv[k], row.names = FALSE)
    f <- hdf5r::H5File$new(h5[k], mode = "w")
    f[["inputs"]] <- x[i, ]
    f[["resp"]] <- y[i]
    f$close_all()
  }
  Sys.setenv(SCALEGP_PARITY_SOURCES = dir)
  on.exit(Sys.unsetenv("SCALEGP_PARITY_SOURCES"), add = TRUE)
  oct <- parity_run_octave(root, "parity-ski-sources.m")
  g <- ski_grid(x = rbind(c(0, 0), c(1, 1)), grid_size = c(12, 10))
  o <- list(block_rows = 64, probes = 2, threads = 1, verbose = FALSE)
  h <- do.call(ski_stats, c(list(h5, g, x = "inputs", y = "resp"), o))
  c <- do.call(ski_stats, c(list(csv, g, x = c("u", "v"), y = "z"), o))
  expect_identical(as.numeric(g$bounds), oct[["grid.bounds"]])
  for (f in c("n", "yty", "ysum", "Wty", "Wt1", "WtW", "Wtz", "rhoz")) {
    expect_identical(as.numeric(h[[f]]), oct[[paste0("h5.", f)]], label = paste("HDF5", f))
    expect_identical(as.numeric(c[[f]]), oct[[paste0("csv.", f)]], label = paste("CSV", f))
  }
  expect_identical(as.numeric(h$chunks$rows), oct[["h5.rows"]])
  r <- tryCatch(ski_stats(h5[1], g, x = "inputs", y = "nope", verbose = FALSE),
                error = function(e) conditionMessage(e))
  expect_identical(r, oct[["h5.err.missing"]])
})
