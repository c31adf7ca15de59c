# Regenerates the shared kernel fixtures read by the R and Octave tests.
# kernel_params.csv: row 1 outputscale, row 2 the isotropic lengthscale (each
# repeated to 3 columns), row 3 the ARD lengthscales.
# The expected matrices come from plain R arithmetic (an oracle independent of
# the C core): Rscript inst/extdata/make_fixtures.R  (run from the repo root).
set.seed(20261122)
n1 <- 7; n2 <- 5; d <- 3
x <- matrix(round(rnorm(n1 * d), 6), n1, d)
x2 <- matrix(round(rnorm(n2 * d), 6), n2, d)
x2[1, ] <- x[2, ]  # a coincident pair: r = 0 must give the outputscale exactly
outputscale <- 1.7
lengthscales <- list(iso = 0.7, ard = c(0.5, 1.3, 2.0))

dense_kernel <- function(a, b, kernel, ell, s2) {
  ell <- rep_len(ell, ncol(a))
  r2 <- outer(seq_len(nrow(a)), seq_len(nrow(b)),
              Vectorize(function(i, j) sum(((a[i, ] - b[j, ]) / ell)^2)))
  r <- sqrt(r2)
  switch(kernel,
         rbf = s2 * exp(-r2 / 2),
         matern12 = s2 * exp(-r),
         matern32 = s2 * (1 + sqrt(3) * r) * exp(-sqrt(3) * r),
         matern52 = s2 * (1 + sqrt(5) * r + 5 * r2 / 3) * exp(-sqrt(5) * r))
}

out <- "inst/extdata"
w <- function(m, f) write.table(format(m, digits = 17), file.path(out, f),
                                sep = ",", quote = FALSE, row.names = FALSE,
                                col.names = FALSE)
w(x, "kernel_x.csv")
w(x2, "kernel_x2.csv")
w(rbind(outputscale, lengthscales$iso, t(lengthscales$ard)), "kernel_params.csv")
for (k in c("rbf", "matern12", "matern32", "matern52"))
  for (nm in names(lengthscales))
    w(dense_kernel(x, x2, k, lengthscales[[nm]], outputscale),
      sprintf("kernel_%s_%s.csv", k, nm))
