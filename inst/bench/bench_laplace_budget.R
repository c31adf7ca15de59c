# gp_laplace at small solver budgets: for max_iter in 1, 2, 5, 10, 20
# and the defaults otherwise (policy cg, damping on), held-out accuracy, log
# loss and ECE on real data sets from Debian's r-cran-mlbench, beside the prior
# predictive (log loss log C for softmax, the binary entropy of the class
# frequencies for bernoulli) and a reference fit with a larger budget
# (max_iter = 50, max_newton = 40), and the exact (dense) Laplace predictive at
# that fit's mode.
#
# Usage: Rscript bench_laplace_budget.R [--threads=2] [--budgets=1,2,5,10,20,50]
#          [--set=name=value ...] [data set ...]
#   data sets: Satellite Vehicle Glass Sonar Ionosphere PimaIndiansDiabetes
#   (default: all). One line per fit: BENCH laplace_budget data=... max_iter=...
#   The exact predictive is taken at the last budget's mode (50: the reference).
suppressPackageStartupMessages(library(scalegp))
args <- commandArgs(trailingOnly = TRUE)
threads <- as.integer(sub("^--threads=", "", c(grep("^--threads=", args, value = TRUE), "--threads=2")[1]))
chosen <- grep("^--", args, value = TRUE, invert = TRUE)
budgets <- as.integer(strsplit(sub("^--budgets=", "", c(grep("^--budgets=", args, value = TRUE),
                                                         "--budgets=1,2,5,10,20,50")[1]), ",")[[1]])
# --set=name=value: an option for every budgeted fit (e.g. --set=class_actions=FALSE
# for the old softmax policy side by side); values as R reads them (TRUE, 5, "cg")
sets_opt <- sub("^--set=", "", grep("^--set=", args, value = TRUE))
extra <- stats::setNames(lapply(sub("^[^=]*=", "", sets_opt), function(v) utils::type.convert(v, as.is = TRUE)),
                         sub("=.*$", "", sets_opt))

load_set <- function(name) {
  e <- new.env()
  utils::data(list = name, package = "mlbench", envir = e)
  d <- stats::na.omit(get(name, envir = e))
  cls <- switch(name, Satellite = "classes", Vehicle = "Class", Glass = "Type",
                Sonar = "Class", Ionosphere = "Class", PimaIndiansDiabetes = "diabetes")
  y <- droplevels(as.factor(d[[cls]]))
  x <- d[setdiff(names(d), cls)]
  x <- as.matrix(data.frame(lapply(x, function(v) as.numeric(as.character(v)))))
  x <- x[, apply(x, 2, stats::sd) > 0, drop = FALSE]
  list(x = x, y = y)
}

# Satellite as in the issue (3000 training, 1500 test points); the others 2/3 : 1/3.
split_set <- function(name, d, seed = 1) {
  set.seed(seed)
  n <- nrow(d$x)
  idx <- sample(n)
  ntr <- if (name == "Satellite") 3000 else round(2 * n / 3)
  nte <- if (name == "Satellite") 1500 else n - ntr
  tr <- idx[seq_len(ntr)]; te <- idx[ntr + seq_len(nte)]
  mu <- colMeans(d$x[tr, , drop = FALSE]); sdv <- apply(d$x[tr, , drop = FALSE], 2, stats::sd)
  sc <- function(m) sweep(sweep(m, 2, mu), 2, sdv, "/")
  list(x = sc(d$x[tr, , drop = FALSE]), y = d$y[tr], xs = sc(d$x[te, , drop = FALSE]), ys = d$y[te])
}

metrics <- function(P, ys) {
  # P: n_test x C probabilities in the order of levels(ys)
  P <- pmin(pmax(P, 1e-15), 1)
  k <- as.integer(ys)
  conf <- apply(P, 1, max); pred <- max.col(P, ties.method = "first")
  bins <- cut(conf, seq(0, 1, length.out = 11), include.lowest = TRUE)
  ece <- sum(tapply(seq_along(conf), bins, function(i)
    if (length(i)) length(i) * abs(mean(pred[i] == k[i]) - mean(conf[i])) else 0), na.rm = TRUE) / length(k)
  c(acc = mean(pred == k), logloss = -mean(log(P[cbind(seq_along(k), k)])), ece = ece)
}

probs <- function(fit, xs, C) {
  p <- predict(fit, xs, type = "response", threads = threads)
  if (C == 2) cbind(1 - p, p) else p
}

# The exact Laplace predictive (Rasmussen & Williams, Algorithms 3.2 and 3.4) at the
# mode f of a fit: dense n x n Cholesky factors, an oracle independent of IterGP.
# Probabilities as gp_laplace's (probit scaling of each latent by its variance).
exact_laplace <- function(fit, x, y, xs, ell, os) {
  K <- gp_kernel(x, x, kernel = "rbf", lengthscale = ell, outputscale = os)
  Ks <- gp_kernel(x, xs, kernel = "rbf", lengthscale = ell, outputscale = os)
  kappa <- function(v) 1 / sqrt(1 + pi * v / 8)
  f <- fit$f; n <- nrow(f)
  if (ncol(f) == 1) {
    p <- 1 / (1 + exp(-f[, 1])); sw <- sqrt(p * (1 - p))
    L <- chol(diag(n) + outer(sw, sw) * K)
    v <- backsolve(L, sw * Ks, transpose = TRUE)
    mu <- drop(crossprod(Ks, y - p)); s2 <- os - colSums(v^2)
    p1 <- 1 / (1 + exp(-mu * kappa(s2)))
    return(cbind(1 - p1, p1))
  }
  P <- exp(f - apply(f, 1, max)); P <- P / rowSums(P)
  Y <- outer(as.integer(y), seq_len(ncol(f)), "==") * 1
  Esum <- matrix(0, n, n); B <- list()
  for (c in seq_len(ncol(f))) {
    d <- sqrt(P[, c])
    Ec <- outer(d, d) * chol2inv(chol(diag(n) + outer(d, d) * K))
    Esum <- Esum + Ec; B[[c]] <- Ec %*% Ks
  }
  M <- chol(Esum)
  Z <- sapply(seq_len(ncol(f)), function(c) {
    mu <- drop(crossprod(Ks, Y[, c] - P[, c]))
    s2 <- os - colSums(Ks * B[[c]]) + colSums(backsolve(M, B[[c]], transpose = TRUE)^2)
    mu * kappa(s2)
  })
  E <- exp(Z - apply(Z, 1, max)); E / rowSums(E)
}

run_set <- function(name) {
  s <- split_set(name, load_set(name))
  C <- nlevels(s$y); lik <- if (C == 2) "bernoulli" else "softmax"
  y <- if (C == 2) as.integer(s$y) - 1L else s$y
  ell <- sqrt(ncol(s$x)); os <- 4
  freq <- as.numeric(table(s$y)) / length(s$y)
  prior <- if (C == 2) -sum(freq * log(freq)) else log(C)
  cat(sprintf("\n%s: n = %d train, %d test, d = %d, C = %d, %s, rbf lengthscale %.2f, outputscale %g\n",
              name, nrow(s$x), nrow(s$xs), ncol(s$x), C, lik, ell, os))
  cat(sprintf("  prior predictive log loss %.4f (limit for the budgets: %.4f)\n", prior, prior + 0.05))
  # seconds: the whole gp_laplace call (with the exact evidence every fit reports,
  # O(C n^3)); newton_s: its Newton loop alone; actions: solver actions taken,
  # rank: columns of the root
  cat(sprintf("  %-10s %8s %8s %8s %8s %10s %6s %9s %8s %8s %7s %6s\n", "max_iter", "acc", "logloss", "ECE",
              "max|mu|", "converged", "steps", "stop", "seconds", "newton_s", "actions", "rank"))
  for (mi in budgets) {
    t0 <- proc.time()[["elapsed"]]
    # the reference only supplies the mode: one action per iteration there, since
    # class actions (softmax's default) would let its buffer grow to 40 * 50 * C
    # columns, O(n C B^2) per Newton step
    ref <- if (mi == 50 && is.null(extra$class_actions)) list(class_actions = FALSE) else list()
    fit <- suppressWarnings(do.call(gp_laplace, c(list(s$x, y, likelihood = lik, lengthscale = ell,
                                                       outputscale = os, mean = 0, max_iter = mi,
                                                       max_newton = if (mi == 50) 40 else 20,
                                                       threads = threads, verbose = FALSE, seed = 1),
                                                  extra, ref)))
    sec <- proc.time()[["elapsed"]] - t0
    m <- metrics(probs(fit, s$xs, C), s$ys)
    mu <- max(abs(predict(fit, s$xs, threads = threads)$mean))
    lab <- if (mi == 50) "50 (ref)" else format(mi)
    loop <- utils::tail(fit$steps$seconds, 1); rk <- NCOL(fit$root)
    cat(sprintf("  %-10s %8.4f %8.4f %8.4f %8.3g %10s %6d %9s %8.1f %8.1f %7d %6d\n", lab, m[["acc"]], m[["logloss"]],
                m[["ece"]], mu, fit$converged, fit$newton_steps, fit$stop_reason, sec, loop,
                as.integer(fit$iterations), rk))
    cat(sprintf("BENCH laplace_budget data=%s max_iter=%d acc=%.4f logloss=%.4f ece=%.4f prior_logloss=%.4f max_abs_mean=%.3g converged=%s time=%.1fs newton_time=%.1fs actions=%d rank=%d\n",
                name, mi, m[["acc"]], m[["logloss"]], m[["ece"]], prior, mu, fit$converged, sec, loop,
                as.integer(fit$iterations), rk))
  }
  m <- metrics(exact_laplace(fit, s$x, y, s$xs, ell, os), s$ys)
  cat(sprintf("  %-10s %8.4f %8.4f %8.4f   (dense Laplace predictive at the reference's mode)\n",
              "exact", m[["acc"]], m[["logloss"]], m[["ece"]]))
  cat(sprintf("BENCH laplace_budget data=%s max_iter=exact acc=%.4f logloss=%.4f ece=%.4f\n",
              name, m[["acc"]], m[["logloss"]], m[["ece"]]))
}

sets <- c("Satellite", "Vehicle", "Glass", "Sonar", "Ionosphere", "PimaIndiansDiabetes")
for (name in if (length(chosen)) chosen else sets) run_set(name)
