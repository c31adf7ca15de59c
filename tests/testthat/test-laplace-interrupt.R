# Ctrl-C during gp_laplace's learning: the call stops within half a second with
# the error "gp_laplace: interrupted" and no result, as every verb does on an
# interrupt. A real SIGINT goes to a child R process once its learning has
# printed its second evaluation (n = 3000: the exact evidence, an O(n^3)
# evaluation). R's hook consumes the interrupt it sees, and the learning used to
# take it for "stop learning": the call went on to fit with the best values so
# far (seconds more) and returned a fit whose summary said they were learned.

interrupt_script <- function(pid_file, out) c(
  "suppressPackageStartupMessages(library(scalegp))",
  "set.seed(1); n <- 3000; x <- matrix(runif(2 * n), n)",
  "y <- as.integer(sin(6 * x[, 1]) + rnorm(n) > 0)",
  sprintf("writeLines(as.character(Sys.getpid()), '%s')", pid_file),
  "res <- withCallingHandlers(tryCatch({",
  "  fit <- gp_laplace(x, y, verbose = TRUE, seed = 1)",
  "  list(result = 'fit', learned = fit$learned, t = Sys.time())",
  "}, error = function(e) list(result = conditionMessage(e), t = Sys.time()),",
  "   interrupt = function(e) list(result = 'R interrupt', t = Sys.time())),",
  "  warning = function(w) invokeRestart('muffleWarning'))",
  sprintf("saveRDS(res, '%s.part')", out),
  sprintf("invisible(file.rename('%s.part', '%s'))", out, out))

test_that("Ctrl-C during the learning stops gp_laplace at once, with no fit", {
  skip_on_os("windows") # signals
  script <- tempfile(fileext = ".R"); pid_file <- tempfile(); log <- tempfile()
  out <- tempfile(fileext = ".rds")
  on.exit(unlink(c(script, pid_file, log, out)))
  writeLines(interrupt_script(pid_file, out), script)
  system2(file.path(R.home("bin"), "Rscript"), shQuote(script), wait = FALSE,
          stdout = log, stderr = log, env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":")))
  wait_for <- function(ok, limit) {
    t0 <- Sys.time()
    while (!ok() && Sys.time() - t0 < limit) Sys.sleep(0.02)
    ok()
  }
  printed <- function(pattern) file.exists(log) && any(grepl(pattern, readLines(log, warn = FALSE)))
  expect_true(wait_for(function() file.exists(pid_file) && length(readLines(pid_file)) == 1, 60))
  pid <- as.integer(readLines(pid_file))
  if (!wait_for(function() printed("learning: evaluation 2 "), 120)) {
    tools::pskill(pid, tools::SIGKILL)
    fail(paste(c("no second evaluation within 120 s:", readLines(log)), collapse = "\n"))
  }
  sent <- Sys.time()
  tools::pskill(pid, tools::SIGINT)
  if (!wait_for(function() file.exists(out), 120)) {
    tools::pskill(pid, tools::SIGKILL)
    fail("the child R process did not finish within 120 s")
  }
  r <- readRDS(out)
  lines <- readLines(log)
  # the signal came during the learning: no Newton step of the fit was printed
  expect_false(any(grepl("Newton step", lines)), label = paste(lines, collapse = "\n"))
  expect_identical(r$result, "gp_laplace: interrupted")
  expect_null(r$learned)
  # the polls are at most about 1e9 flops apart (0.5 s is what we aim at); a
  # second leaves room for a loaded machine's scheduling
  expect_lt(as.numeric(r$t - sent, units = "secs"), 1)
})
