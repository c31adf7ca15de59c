# ski_stats over chunk sources (files, functions) on a cluster, a future plan
# or sequentially. Data are multiples of 2^-10 and 2^-3, so a CSV round trip is
# exact and the oracles can be bitwise: the statistics of the rows in memory
# (sequentially), of each worker's group of chunks merged (workers).

sources_data <- function(n = 600, seed = 11) {
  set.seed(seed)
  x <- cbind(round(runif(n) * 1024) / 1024, round(runif(n) * 1024) / 1024)
  y <- round(8 * (sin(5 * x[, 1]) + x[, 2] + rnorm(n, sd = 0.2))) / 8
  list(x = x, y = y, grid = ski_grid(range = rbind(c(0, 1), c(0, 1)), grid_size = c(12, 10)))
}

write_chunks <- function(d, k = 3, dir = tempfile("skisrc")) {
  dir.create(dir)
  idx <- split(seq_len(nrow(d$x)), rep(seq_len(k), each = ceiling(nrow(d$x) / k))[seq_len(nrow(d$x))])
  files <- file.path(dir, sprintf("part%d.csv", seq_len(k)))
  for (j in seq_len(k))
    utils::write.csv(data.frame(u = d$x[idx[[j]], 1], v = d$x[idx[[j]], 2], z = d$y[idx[[j]]]),
                     files[j], row.names = FALSE)
  list(files = files, idx = idx)
}


test_that("CSV chunks read in blocks equal the statistics in memory bitwise", {
  skip_if_not_installed("data.table")
  d <- sources_data()
  ch <- write_chunks(d)
  s <- ski_stats(ch$files, d$grid, x = c("u", "v"), y = "z", block_rows = 70, probes = 4,
                 verbose = FALSE)
  ref <- ski_grouped(d, ch$idx, probes = 4)
  expect_sources_stats(s, ref)
  expect_equal(s$chunks$rows, unname(lengths(ch$idx)))
  expect_equal(s$chunks$used, unname(lengths(ch$idx)))
  # columns by index give the same
  s2 <- ski_stats(ch$files, d$grid, x = 1:2, y = 3, block_rows = 70, probes = 4, verbose = FALSE)
  expect_identical(s2$WtW, s$WtW)
  # sequentially: the statistics of all rows in memory, to the bit
  one <- ski_stats(d$x, d$y, d$grid)
  for (f in c("n", "yty", "ysum", "Wty", "Wt1", "WtW")) expect_identical(s[[f]], one[[f]], label = f)
})

test_that("a PSOCK cluster, a FORK cluster and a future plan of 2 workers agree bitwise", {
  d <- sources_data(n = 300)
  idx <- list(1:100, 101:200, 201:300)
  fns <- lapply(idx, function(i) { force(i); function() list(x = d$x[i, ], y = d$y[i]) })
  s <- ski_stats(fns, d$grid, probes = 3, verbose = FALSE)
  expect_sources_stats(s, ski_grouped(d, idx, probes = 3))
  ref <- ski_grouped(d, idx, workers = 2, probes = 3) # chunks {1, 2} and {3}
  cl <- parallel::makeCluster(2L)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  parallel::clusterCall(cl, function(p) .libPaths(p), .libPaths())
  sc <- ski_stats(fns, d$grid, probes = 3, cluster = cl, verbose = FALSE)
  expect_sources_stats(sc, ref)
  if (.Platform$OS.type == "unix") {
    fk <- parallel::makeForkCluster(2L)
    sk <- ski_stats(fns, d$grid, probes = 3, cluster = fk, verbose = FALSE)
    parallel::stopCluster(fk)
    for (f in ski_stats_fields) expect_identical(sk[[f]], sc[[f]], label = f)
  }
  skip_if_not_installed("future.apply")
  old <- future::plan(future::multisession, workers = 2L)
  on.exit(future::plan(old), add = TRUE)
  sf <- ski_stats(fns, d$grid, probes = 3, verbose = FALSE)
  for (f in ski_stats_fields) expect_identical(sf[[f]], sc[[f]], label = f)
  # and a fit from them runs
  # (the 12 x 10 grid is coarse for this kernel: the fit says so)
  expect_warning(fit <- ski_gsgp(stats = sf, kernel = "rbf", lengthscale = 0.3, outputscale = 1,
                                 noise = 0.05, learn = character(0), verbose = FALSE),
                 "interpolation error")
  expect_true(fit$converged)
})

test_that("a failing chunk is retried once, then named in the error", {
  d <- sources_data(n = 200)
  calls <- 0
  flaky <- function() { calls <<- calls + 1; if (calls == 1) stop("disk hiccup"); list(x = d$x[1:100, ], y = d$y[1:100]) }
  good <- function() list(x = d$x[101:200, ], y = d$y[101:200])
  s <- ski_stats(list(flaky, good), d$grid, verbose = FALSE)
  expect_equal(calls, 2)
  expect_equal(s$n, 200)
  bad <- function() stop("boom")
  expect_error(ski_stats(list(good, bad), d$grid, verbose = FALSE),
               "ski_stats: chunk 2 (function 2) failed twice: boom", fixed = TRUE)
  expect_error(ski_stats(c(tempfile(), tempfile()), d$grid, x = 1:2, y = 3, verbose = FALSE),
               "chunk 1 .* failed twice: cannot read the file \\(it does not exist\\)")
  skip_if_not_installed("data.table")
  ch <- write_chunks(d, k = 2)
  expect_error(ski_stats(ch$files, d$grid, x = c("u", "w"), y = "z", verbose = FALSE),
               "'x' names a column the file does not have (w)", fixed = TRUE)
  # bad values: a non-finite response in the second file
  z <- utils::read.csv(ch$files[2]); z$z[7] <- NA; utils::write.csv(z, ch$files[2], row.names = FALSE)
  expect_error(ski_stats(ch$files, d$grid, x = 1:2, y = 3, verbose = FALSE),
               "chunk 2 .*part2.csv.* failed twice: ski_stats: 'y' contains NaN, NA or Inf")
  expect_error(ski_stats(list(good), d$grid, cluster = "no"), "'cluster' must be a cluster")
})

test_that("rows dropped by bounds_policy are counted and listed per chunk", {
  d <- sources_data(n = 200)
  g <- ski_grid(range = rbind(c(0, 0.8), c(0, 1)), grid_size = c(12, 10))
  fns <- list(function() list(x = d$x[1:100, ], y = d$y[1:100]),
              function() list(x = d$x[101:200, ], y = d$y[101:200]))
  s <- ski_stats(fns, g, bounds_policy = "drop", verbose = FALSE)
  # the oracle: the rows whose own one-row statistics under "drop" are empty
  out <- which(vapply(seq_len(200), function(i)
    ski_stats(d$x[i, , drop = FALSE], d$y[i], g, bounds_policy = "drop")$n == 0, TRUE))
  expect_gt(length(out), 0)
  got <- c(s$dropped[[1]], 100 + s$dropped[[2]])
  expect_equal(got, out)
  expect_equal(s$chunks$dropped, c(sum(out <= 100), sum(out > 100)))
  expect_equal(s$n, 200 - length(out))
})

test_that("HDF5 chunks read in blocks equal function chunks bitwise", {
  skip_if_not_installed("hdf5r")
  d <- sources_data(n = 300)
  path <- tempfile(fileext = ".h5")
  f <- hdf5r::H5File$new(path, mode = "w")
  f[["inputs"]] <- d$x
  f[["resp"]] <- d$y
  f$close_all()
  s <- ski_stats(path, d$grid, x = "inputs", y = "resp", block_rows = 64, probes = 2,
                 verbose = FALSE)
  expect_sources_stats(s, ski_grouped(d, list(1:300), probes = 2))
  expect_error(ski_stats(path, d$grid, x = "nope", y = "resp", verbose = FALSE),
               "the file has no dataset 'nope'", fixed = TRUE)
})

test_that("CSV and HDF5 files on a PSOCK cluster equal their groups in memory bitwise", {
  skip_if_not_installed("data.table")
  skip_if_not_installed("hdf5r")
  d <- sources_data(n = 400)
  ch <- write_chunks(d, k = 2)
  write_idx <- ch$idx
  h5 <- tempfile(fileext = ".h5")
  f <- hdf5r::H5File$new(h5, mode = "w")
  f[["x"]] <- d$x[1:150, ]; f[["y"]] <- d$y[1:150]
  f$close_all()
  cl <- parallel::makeCluster(2L)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  parallel::clusterCall(cl, function(p) .libPaths(p), .libPaths())
  for (src in list(ch$files, h5)) {
    xs <- if (identical(src, h5)) "x" else c("u", "v")
    ys <- if (identical(src, h5)) "y" else "z"
    a <- ski_stats(src, d$grid, x = xs, y = ys, block_rows = 50, probes = 2, verbose = FALSE)
    b <- ski_stats(src, d$grid, x = xs, y = ys, block_rows = 50, probes = 2, cluster = cl,
                   verbose = FALSE)
    idx <- if (identical(src, h5)) list(1:150) else write_idx
    expect_sources_stats(a, ski_grouped(d, idx, probes = 2))
    expect_sources_stats(b, ski_grouped(d, idx, workers = 2, probes = 2))
  }
})

test_that("a worker that dies is replaced by a retry in the master; a corrupt file is named", {
  skip_on_os("windows")
  d <- sources_data(n = 200)
  master <- Sys.getpid()
  dies <- function() {
    if (Sys.getpid() != master) quit(save = "no") # the worker process ends
    list(x = d$x[1:100, ], y = d$y[1:100])
  }
  good <- function() list(x = d$x[101:200, ], y = d$y[101:200])
  cl <- parallel::makeCluster(2L)
  on.exit(try(parallel::stopCluster(cl), silent = TRUE), add = TRUE)
  parallel::clusterCall(cl, function(p) .libPaths(p), .libPaths())
  s <- ski_stats(list(dies, good), d$grid, cluster = cl, verbose = FALSE)
  # the groups of the 2 workers, redone here: {1} and {2}
  expect_sources_stats(s, ski_grouped(d, list(1:100, 101:200), workers = 2))
  skip_if_not_installed("data.table")
  bad <- tempfile(fileext = ".csv")
  writeLines(c("u,v,z", "0.1,0.2,1", "0.3,oops,2"), bad)
  expect_error(ski_stats(bad, d$grid, x = 1:2, y = 3, verbose = FALSE),
               "ski_stats: chunk 1 \\(.*\\) failed twice: .*: line 3 \\(data row 2\\), field 2 is not a number \\(\"oops\"\\)")
})

test_that("the fit from merged chunk statistics equals the one-pass fit", {
  d <- sources_data(n = 600)
  fns <- lapply(list(1:250, 251:600), function(i) { force(i); function() list(x = d$x[i, ], y = d$y[i]) })
  s <- ski_stats(fns, d$grid, verbose = FALSE)
  args <- list(kernel = "matern52", lengthscale = 0.3, outputscale = 1, noise = 0.5, tol = 1e-13,
               max_iter = 2000, learn = character(0), verbose = FALSE)
  quiet <- function(expr) withCallingHandlers(expr, warning = function(w)
    if (grepl("interpolation error", conditionMessage(w))) invokeRestart("muffleWarning"))
  a <- quiet(do.call(ski_gsgp, c(list(stats = s), args)))
  b <- quiet(do.call(ski_gsgp, c(list(x = d$x, y = d$y, grid_size = d$grid$size,
                                      grid_bounds = d$grid$bounds), args)))
  # the statistics differ by summation rounding (~ n eps relative); the solves
  # stop at relative residual 1e-13 and cond(K_G-system) <= 1 + m s^2 / noise =
  # 241, so the weights agree to ~ cond (n eps + 2 tol) < 1e-10 relative
  cond <- 1 + prod(d$grid$size) * 1 / 0.5
  bound <- cond * (nrow(d$x) * .Machine$double.eps + 2e-13)
  expect_lt(max(abs(a$weights - b$weights)) / max(abs(b$weights)), bound)
})

test_that("an interrupt drops the local workers' chunks and leaves the cluster usable", {
  skip_on_os("windows")
  cl <- parallel::makeCluster(2L)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  pids <- unlist(parallel::clusterCall(cl, Sys.getpid))
  # chunks that would take a minute; SIGINT ends their wait (sleeps are interruptible)
  slow <- function() { for (i in 1:60) Sys.sleep(1); "done" }
  for (i in 1:2) parallel:::sendCall(cl[[i]], slow, list())
  Sys.sleep(0.5)
  scalegp:::ski_interrupt_workers(cl, pids, c(TRUE, TRUE))
  # had the workers gone on, these calls would read their stale "done" instead
  expect_identical(unlist(parallel::clusterCall(cl, Sys.getpid)), pids)
})

test_that("40 files of 50 rows equal the statistics in memory bitwise (1 and 2 workers)", {
  skip_if_not_installed("data.table")
  d <- sources_data(n = 2000, seed = 5)
  # 2000 rows < 16 m: the tap pass in memory, as in the accumulator of 50-row blocks
  d$grid <- ski_grid(range = rbind(c(0, 1), c(0, 1)), grid_size = c(16, 12))
  ch <- write_chunks(d, k = 40)
  s <- ski_stats(ch$files, d$grid, x = 1:2, y = 3, verbose = FALSE)
  one <- ski_stats(d$x, d$y, d$grid)
  for (f in c("n", "yty", "ysum", "Wty", "Wt1", "WtW")) expect_identical(s[[f]], one[[f]], label = f)
  expect_equal(s$chunks$rows, rep(50, 40))
  # 2 workers: files 1-20 and 21-40, each group's rows in memory, merged
  cl <- parallel::makeCluster(2L)
  on.exit(parallel::stopCluster(cl), add = TRUE)
  parallel::clusterCall(cl, function(p) .libPaths(p), .libPaths())
  s2 <- ski_stats(ch$files, d$grid, x = 1:2, y = 3, cluster = cl, verbose = FALSE)
  ref <- ski_stats_merge(ski_stats(d$x[1:1000, ], d$y[1:1000], d$grid),
                         ski_stats(d$x[1001:2000, ], d$y[1001:2000], d$grid))
  for (f in c("n", "yty", "ysum", "Wty", "Wt1", "WtW")) expect_identical(s2[[f]], ref[[f]], label = f)
  expect_equal(s2$chunks$used, rep(50, 40))
})
