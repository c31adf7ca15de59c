# The R examples of README.md run as shown: every ```r block, in order, in one
# fresh environment (later blocks use the data of earlier ones), without an error
# or a warning (the README shows clean runs), each within a time budget.

# tests run from tests/testthat with the package installed; README.md is two
# folders up in the source tree and absent where only the package is (R CMD check)
readme_path <- function() {
  p <- file.path("..", "..", "README.md")
  if (file.exists(p) && file.exists(file.path("..", "..", "DESCRIPTION"))) normalizePath(p) else NULL
}

# The lines of each ```r ... ``` block.
readme_r_blocks <- function(lines) {
  starts <- grep("^```r[[:space:]]*$", lines)
  ends <- grep("^```[[:space:]]*$", lines)
  lapply(starts, function(s) {
    e <- ends[ends > s][1L]
    if (is.na(e)) stop("README.md: the ```r block at line ", s, " is not closed")
    if (e == s + 1L) character(0) else lines[(s + 1L):(e - 1L)]
  })
}

# Evaluates one expression as the R prompt does: printed when visible.
print_visible <- function(expr, env) {
  r <- withVisible(eval(expr, env))
  if (r$visible) print(r$value)
  invisible(NULL)
}

# Seconds a block may take. The examples are sized for a few seconds on 2 cores;
# the budget is ten times that and more, so that only a runaway example (a grid
# or a budget far beyond what the README means) fails it on a shared machine.
readme_block_seconds <- 60

test_that("readme_r_blocks finds each ```r block and nothing else", {
  lines <- c("text", "```r", "a <- 1", "", "b <- 2", "```", "```sh", "make", "```",
             "```octave", "x = 1", "```", "```r", "```")
  expect_identical(readme_r_blocks(lines), list(c("a <- 1", "", "b <- 2"), character(0)))
  expect_error(readme_r_blocks(c("```r", "a")), "not closed")
})

test_that("every R example in README.md runs as shown", {
  path <- readme_path()
  skip_if(is.null(path), "README.md not found (the tests do not run in the source tree)")
  blocks <- readme_r_blocks(readLines(path, encoding = "UTF-8"))
  expect_gt(length(blocks), 0L)
  code <- unlist(blocks)
  if (any(grepl("ski_stats(files", code, fixed = TRUE))) skip_if_not_installed("data.table")
  if (any(grepl("spatstat.data", code, fixed = TRUE))) {
    skip_if_not_installed("spatstat.data")
    skip_if_not_installed("spatstat.geom")
  }
  on.exit(setTimeLimit(), add = TRUE)
  env <- new.env(parent = globalenv())
  for (i in seq_along(blocks)) {
    label <- sprintf("README.md's R block %d (of %d)", i, length(blocks))
    exprs <- parse(text = blocks[[i]], keep.source = FALSE)
    t0 <- proc.time()[["elapsed"]]
    setTimeLimit(elapsed = readme_block_seconds, transient = TRUE)
    warned <- character(0)
    res <- tryCatch({
      withCallingHandlers(
        utils::capture.output(for (e in exprs) print_visible(e, env)),
        warning = function(w) {
          warned <<- c(warned, conditionMessage(w))
          invokeRestart("muffleWarning")
        })
      NULL
    }, error = function(e) conditionMessage(e))
    setTimeLimit()
    seconds <- proc.time()[["elapsed"]] - t0
    expect(is.null(res), sprintf("%s failed: %s", label, res))
    expect(length(warned) == 0L, sprintf("%s warned: %s", label, paste(warned, collapse = "; ")))
    expect(seconds < readme_block_seconds,
           sprintf("%s took %.1f s (budget %d s)", label, seconds, readme_block_seconds))
    if (!is.null(res)) break  # the later blocks need this one's data
  }
})
