# Every fit crosses into the core once: the option tables and the likelihood
# facts the fronts read are fetched once per session, then kept.
test_that("a fit makes one call into the core after the first", {
  x <- matrix(seq(0, 1, length.out = 30))
  y <- as.numeric(x > 0.5)
  fits <- list(function() gp_laplace(x, y, verbose = FALSE),
               function() ski_gsgp(x, y, verbose = FALSE),
               function() ski_laplace(y = c(1, 2, 3, 1, 0, 2, 3), verbose = FALSE))
  for (f in fits) invisible(f())
  real <- get("sgp_call", asNamespace("scalegp"))
  calls <- character(0)
  utils::assignInNamespace("sgp_call", function(entry, ...) {
    calls <<- c(calls, deparse(substitute(entry)))
    real(entry, ...)
  }, "scalegp")
  on.exit(utils::assignInNamespace("sgp_call", real, "scalegp"))
  for (f in fits) {
    calls <- character(0)
    invisible(f())
    expect_length(calls, 1L)
  }
})
