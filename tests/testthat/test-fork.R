# Forked workers (parallel::mclapply, a FORK cluster) after threaded work in
# the parent: libgomp's thread pool survives fork() without its threads, so a
# child entering a parallel region with several threads used to wait forever.
# The calls run in a child R process under `timeout`: a hang fails the test
# instead of stopping the test run. The forked results must equal the
# sequential ones bitwise: kernel matrices and statistics do not depend on the
# thread count, a fit with a fixed seed differs only in its timings, and a
# cluster's statistics are its workers' groups of sources merged in order.

fork_script <- function(out) c(
  "suppressPackageStartupMessages(library(scalegp))",
  "set.seed(7); n <- 20000; x <- cbind(runif(n), runif(n))",
  "y <- sin(6 * x[, 1]) + x[, 2] + rnorm(n, sd = 0.1)",
  "g <- ski_grid(x, grid_size = c(32, 32)); xs <- x[1:1500, ]",
  "xl <- x[1:200, ]; yl <- as.integer(sin(6 * xl[, 1]) + rnorm(200, sd = 1) > 0)",
  # threaded work first: OpenMP's pool (the kernel, the learning) and OpenBLAS's threads
  "k0 <- gp_kernel(xs, threads = 2)",
  "b0 <- crossprod(matrix(rnorm(600 * 600), 600))",
  "fit0 <- gp_laplace(xl, yl, verbose = FALSE, seed = 1)",
  "s0 <- ski_stats(x, y, g, verbose = FALSE, threads = 2)",
  "fns <- lapply(1:4, function(i) { force(i); r <- seq(i, n, by = 4)",
  "  function() list(x = x[r, ], y = y[r]) })",
  # two workers take two groups of consecutive sources, each summed in one pass
  # (the per-source fields, chunks and dropped, are the sequential run's)
  "grp <- ski_stats_merge(ski_stats(fns[1:2], g, verbose = FALSE),",
  "                       ski_stats(fns[3:4], g, verbose = FALSE))",
  "src0 <- ski_stats(fns, g, verbose = FALSE)",
  "src0[names(grp)] <- grp",
  "mc <- function(f) parallel::mclapply(1:2, function(i) f(), mc.cores = 2)",
  "res <- list(",
  "  stats = mc(function() ski_stats(x, y, g, verbose = FALSE, threads = 2)),",
  "  kernel = mc(function() gp_kernel(xs, threads = 2)),",
  "  fit = mc(function() gp_laplace(xl, yl, verbose = FALSE, seed = 1)),",
  "  threads = mc(function() scalegp_info()$max_threads))",
  "cl <- parallel::makeForkCluster(2L)",
  "res$cluster <- list(ski_stats(fns, g, cluster = cl, verbose = FALSE))",
  "parallel::stopCluster(cl)",
  "saveRDS(list(ref = list(stats = s0, kernel = k0, fit = fit0, cluster = src0),",
  sprintf("  res = res, threads = scalegp_info()$max_threads), '%s')", out))

# A fit without its timings (the only fields that differ between runs).
fork_drop_seconds <- function(v) {
  if (!is.list(v)) return(v)
  v[["seconds"]] <- NULL
  v[] <- lapply(v, fork_drop_seconds)
  v
}

test_that("mclapply and a FORK cluster after threaded calls finish with the sequential results", {
  skip_if_not(.Platform$OS.type == "unix", "fork() is Unix only")
  skip_if(Sys.which("timeout") == "", "needs the timeout command")
  script <- tempfile(fileext = ".R"); out <- tempfile(fileext = ".rds")
  on.exit(unlink(c(script, out)))
  writeLines(fork_script(out), script)
  limit <- 120 # seconds; the script takes a few: a hang, not a slow machine, reaches it
  log <- suppressWarnings(system2(
    "timeout", c("-k", "5", limit, shQuote(file.path(R.home("bin"), "Rscript")), shQuote(script)),
    stdout = TRUE, stderr = TRUE, env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":"))))
  status <- attr(log, "status")
  expect_false(identical(status, 124L), label = "the forked workers hung (killed at the limit)")
  expect_null(status, label = paste(c("the child R process failed:", log), collapse = "\n"))
  skip_if(!file.exists(out), "no result (the failure is reported above)")
  r <- readRDS(out)
  expect_gt(r$threads, 0L)
  for (what in c("stats", "kernel", "fit")) {
    got <- r$res[[what]]
    expect_length(got, 2L)
    for (v in got) {
      expect_false(inherits(v, "try-error"), label = paste(what, format(v)))
      if (what == "fit") expect_identical(fork_drop_seconds(v), fork_drop_seconds(r$ref$fit))
      else expect_identical(v, r$ref[[what]], label = what)
    }
  }
  expect_identical(r$res$cluster[[1]], r$ref$cluster)
  # a forked child runs the core with one thread: its parallelism is the processes'
  expect_identical(unlist(r$res$threads), c(1L, 1L))
})
