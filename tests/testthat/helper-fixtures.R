# Shared fixtures (inst/extdata, also read by the Octave tests) and an
# independent dense kernel written in plain R.
read_fixture <- function(name) {
  path <- system.file("extdata", name, package = "scalegp")
  if (!nzchar(path)) path <- file.path("../../inst/extdata", name)
  unname(as.matrix(utils::read.csv(path, header = FALSE)))
}

dense_kernel <- function(a, b, kernel, ell, s2) {
  a <- as.matrix(a); b <- as.matrix(b)
  ell <- rep_len(ell, ncol(a))
  r2 <- matrix(0, nrow(a), nrow(b))
  for (l in seq_len(ncol(a))) r2 <- r2 + outer(a[, l] / ell[l], b[, l] / ell[l], "-")^2
  r <- sqrt(r2)
  switch(kernel,
         rbf = s2 * exp(-r2 / 2),
         matern12 = s2 * exp(-r),
         matern32 = s2 * (1 + sqrt(3) * r) * exp(-sqrt(3) * r),
         matern52 = s2 * (1 + sqrt(5) * r + 5 * r2 / 3) * exp(-sqrt(5) * r))
}

all_kernels <- c("rbf", "matern12", "matern32", "matern52")
