# Writes each verb's option list, generated from the core's option table, into
# its Octave help between the markers "## @c options: generated ..." and
# "## @c end of the generated options" (make docs; R's Rd gets the same list
# through @eval rd_options()). With --check it only compares and exits 1 when a
# file is out of date (the tests run it).
suppressPackageStartupMessages(library(scalegp))
check <- "--check" %in% commandArgs(TRUE)
root <- normalizePath(file.path(dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE),
                                                                  value = TRUE)[1L])), ".."))
verbs <- c(gp_laplace = "bindings_octave/inst/gp_laplace.m",
           gp_kernel = "bindings_octave/inst/gp_kernel.m",
           ski_gsgp = "bindings_octave/inst/ski_gsgp.m",
           ski_grid = "bindings_octave/inst/ski_grid.m",
           ski_stats = "bindings_octave/inst/ski_stats.m",
           ski_laplace = "bindings_octave/inst/ski_laplace.m")
stale <- character(0)
for (fn in names(verbs)) {
  path <- file.path(root, verbs[[fn]])
  lines <- readLines(path)
  a <- grep("^## @c options: generated", lines)
  b <- grep("^## @c end of the generated options", lines)
  if (length(a) != 1L || length(b) != 1L || b < a) stop(path, ": option markers missing")
  new <- c(lines[seq_len(a)], scalegp:::octave_options_block(fn), lines[b:length(lines)])
  if (!identical(new, lines)) {
    stale <- c(stale, path)
    if (!check) writeLines(new, path)
  }
}
if (check && length(stale)) {
  cat("out of date (run make docs):", stale, "\n")
  quit(status = 1)
}
