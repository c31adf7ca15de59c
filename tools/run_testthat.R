# Runs the R tests against the installed package; exits non-zero on any failure.
library(testthat)
library(scalegp)
res <- as.data.frame(test_dir("tests/testthat", package = "scalegp",
                              load_package = "installed", reporter = "summary",
                              stop_on_failure = FALSE))
failed <- sum(res$failed) + sum(res$error)
passed <- sum(res$nb) - sum(res$failed) - sum(res$skipped)
cat(sprintf("testthat: %d passed, %d failed, %d skipped\n", passed, failed, sum(res$skipped)))
if (failed > 0 || nrow(res) == 0) quit(status = 1)
