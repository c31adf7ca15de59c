# Fits of gp_laplace on small fixtures, saved and compared across versions of
# the package: a refactoring that leaves the arithmetic alone must give the same
# bits; one that reorders it must stay within a few ulps of every result.
#
#   R_LIBS=build/Rlib Rscript tools/compare_fits.R save  fits.rds
#   R_LIBS=build/Rlib Rscript tools/compare_fits.R check fits.rds [rel_tol]
#
# check prints, per fixture and field, "bitwise" or the largest relative
# difference, and exits with status 1 when one exceeds rel_tol (default 1e-13).
suppressMessages(library(scalegp))

fixtures <- function() {
  set.seed(7)
  n <- 40
  x <- matrix(sort(runif(n, -2, 2)))
  x2 <- cbind(runif(n), runif(n))
  f <- sin(2 * x[, 1])
  common <- list(threads = 1L, seed = 3, verbose = FALSE)
  list(
    bernoulli = c(list(x = x, y = as.numeric(runif(n) < plogis(2 * f)), likelihood = "bernoulli"),
                  common),
    bernoulli_chol = c(list(x = x, y = as.numeric(runif(n) < plogis(2 * f)),
                            likelihood = "bernoulli", policy = "cholesky", max_iter = n),
                       common),
    poisson = c(list(x = x, y = rpois(n, exp(1 + f)), likelihood = "poisson",
                     offset = log(runif(n, 0.5, 2))), common),
    softmax = c(list(x = x2, y = sample(1:3, n, TRUE), likelihood = "softmax"), common),
    gaussian = c(list(x = x, y = f + rnorm(n, sd = 0.2), likelihood = "gaussian"), common),
    gaussian_fixed = c(list(x = x, y = f + rnorm(n, sd = 0.2), likelihood = "gaussian",
                            noise = 0.05, lengthscale = 0.7, outputscale = 1.3, learn = character(0)),
                       common))
}

run <- function(args) {
  fit <- do.call(gp_laplace, args)
  xt <- args$x[seq(1, nrow(args$x), by = 7), , drop = FALSE]
  list(f = fit$f, var = fit$var, weights = fit$weights, loglik = fit$loglik,
       loglik_grad = fit$loglik_grad, hyper = fit$hyper, newton_steps = fit$newton_steps,
       iterations = fit$iterations,
       pred = suppressWarnings(predict(fit, xt)))
}

reldiff <- function(a, b) {
  a <- unlist(a); b <- unlist(b)
  if (length(a) != length(b)) return(Inf)
  if (!length(a)) return(0)
  d <- abs(a - b) / pmax(abs(a), abs(b), .Machine$double.xmin)
  d[a == b] <- 0
  max(d)
}

args <- commandArgs(trailingOnly = TRUE)
if (length(args) < 2 || !args[1] %in% c("save", "check"))
  stop("usage: compare_fits.R save|check file.rds [rel_tol]")
fx <- fixtures()
res <- lapply(fx, run)
if (args[1] == "save") {
  saveRDS(res, args[2])
  cat("saved", length(res), "fixtures to", args[2], "\n")
  quit(status = 0)
}
tol <- if (length(args) > 2) as.numeric(args[3]) else 1e-13
old <- readRDS(args[2])
bad <- FALSE
for (nm in names(old)) {
  for (field in names(old[[nm]])) {
    a <- old[[nm]][[field]]; b <- res[[nm]][[field]]
    same <- identical(a, b)
    r <- if (same) 0 else reldiff(a, b)
    if (r > tol) bad <- TRUE
    cat(sprintf("%-15s %-12s %s\n", nm, field, if (same) "bitwise" else sprintf("rel %.3g", r)))
  }
}
if (bad) { cat("FAIL: a difference exceeds", tol, "\n"); quit(status = 1) }
cat("OK\n")
