# Benchmarks of gp_laplace (IterNCGP): the experiments of Tatzel, Wenger et al.,
# Accelerating Non-Conjugate Gaussian Processes By Trading Off Computation For
# Uncertainty (E2-E5 below), and speed/memory targets. Every case runs in a child Rscript so that
# its peak resident memory (VmHWM) is its own; timings are medians of `reps` fits
# after one warm-up fit (the heavy cases: one fit after a small warm-up fit, said
# in the table). All fits use `threads` OpenMP threads (default 2).
#
# Usage: Rscript bench_laplace.R [--threads=2] [--quick] [case ...]
#   cases: binary_exact binary_cg softmax_fmnist gmm_large e2_toy e3_poisson e4_gmm
#   (default: all). --quick shrinks the heavy cases (for a smoke run).
# Each figure is also printed as one machine-readable line:
#   BENCH <name> <parameter=value ...> <metric>=<value><unit>
# Fashion-MNIST comes from the Debian package dataset-fashion-mnist
# (make bench-laplace installs it when missing).

args <- commandArgs(trailingOnly = TRUE)
opt_value <- function(name, default) {
  hit <- grep(paste0("^--", name, "="), args, value = TRUE)
  if (length(hit)) sub(paste0("^--", name, "="), "", hit[1]) else default
}
threads <- as.integer(opt_value("threads", "2"))
quick <- "--quick" %in% args
child_case <- opt_value("case", NA)
all_cases <- c("e2_toy", "e3_poisson", "binary_cg", "binary_exact", "e4_gmm",
               "softmax_fmnist", "gmm_large")

suppressPackageStartupMessages(library(scalegp))

# ------------------------------------------------------------------ helpers

peak_rss_mb <- function() {
  s <- readLines("/proc/self/status")
  as.numeric(gsub("[^0-9]", "", grep("^VmHWM", s, value = TRUE))) / 1024
}

# Wall seconds and process CPU seconds (all threads): on a shared machine
# cpu / threads is what the wall time would be without contention (a lower bound).
elapsed <- function(expr) {
  t0 <- proc.time()
  value <- force(expr)
  t1 <- proc.time()
  list(value = value, seconds = t1[["elapsed"]] - t0[["elapsed"]],
       cpu = sum(t1[c("user.self", "sys.self")]) - sum(t0[c("user.self", "sys.self")]))
}

# Median time of `reps` runs of fit_fun() after one warm-up run (warm_fun, or
# fit_fun itself); returns the last fit and the times.
timed <- function(fit_fun, reps, warm_fun = fit_fun) {
  invisible(warm_fun())
  invisible(gc()) # garbage of earlier fits out of the peak RSS
  times <- cpus <- numeric(reps)
  fit <- NULL
  for (i in seq_len(reps)) {
    r <- elapsed(fit_fun())
    times[i] <- r$seconds
    cpus[i] <- r$cpu
    fit <- r$value
  }
  list(fit = fit, seconds = median(times), cpu = median(cpus), all = times)
}

# Class probabilities (n x C) from a fit's test list (bernoulli: P(y = 1)).
prob_matrix <- function(prob) {
  p <- as.matrix(prob)
  if (ncol(p) == 1L) p <- cbind(1 - p, p)
  p
}

# Accuracy, NLL and ECE (15 bins, torchmetrics binning); y in 1..C.
metrics <- function(p, y) {
  p <- prob_matrix(p)
  pred <- max.col(p, ties.method = "first")
  conf <- p[cbind(seq_along(pred), pred)]
  correct <- pred == y
  nll <- -mean(log(pmax(p[cbind(seq_along(y), y)], 1e-300)))
  bin <- findInterval(conf, (0:15) / 15)
  ece <- sum(vapply(split(seq_along(conf), bin), function(i)
    length(i) / length(conf) * abs(mean(correct[i]) - mean(conf[i])), 0))
  c(acc = mean(correct), nll = nll, ece = ece)
}

# Draws f = L z, L = chol(K + 1e-6 s I) for a GP prior.
gp_draw <- function(x, kernel, lengthscale, outputscale, seed) {
  K <- gp_kernel(x, kernel = kernel, lengthscale = lengthscale, outputscale = outputscale)
  set.seed(seed)
  drop(crossprod(chol(K + diag(1e-6 * outputscale, nrow(K))), rnorm(nrow(K))))
}

# 64-node Gauss-Hermite rule (Golub-Welsch) for E_{f ~ N(mu, s2)}[g(f)].
gh <- local({
  m <- 64
  J <- matrix(0, m, m)
  b <- sqrt(seq_len(m - 1) / 2)
  J[cbind(1:(m - 1), 2:m)] <- b
  J[cbind(2:m, 1:(m - 1))] <- b
  e <- eigen(J, symmetric = TRUE)
  list(x = e$values, w = sqrt(pi) * e$vectors[1, ]^2)
})
poisson_nll <- function(y, mu, s2) {
  f <- outer(mu, rep(1, 64)) + outer(sqrt(2 * pmax(s2, 0)), gh$x)
  lp <- dpois(matrix(y, length(y), 64), exp(f), log = TRUE)
  p <- drop(exp(lp) %*% gh$w) / sqrt(pi)
  -mean(log(pmax(p, 1e-300)))
}

result <- function(...) {
  r <- list(...)
  r$peak_rss_mb <- peak_rss_mb()
  r$threads <- threads
  r
}

# ------------------------------------------------------------------ data

binary_data <- function(n, nt = 2000, d = 16, seed = 1) {
  set.seed(seed)
  x <- matrix(runif((n + nt) * d, -1, 1), n + nt, d)
  fx <- sin(2 * x[, 1]) + x[, 2] * x[, 3] + cos(3 * x[, 4]) - 0.5
  y <- as.integer(runif(n + nt) < plogis(3 * fx))
  list(x = x[1:n, ], y = y[1:n], xt = x[-(1:n), ], yt = y[-(1:n)])
}

# The paper's GMM mixture (gmm_data), shared with bench_laplace_gmm_budget.R.
source(file.path(dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE),
                                                              value = TRUE)))), "gmm_data.R"))

# The first `rows` items of an IDX file (images as rows scaled to [0, 1], or labels).
read_idx <- function(path, rows) {
  con <- gzfile(path, "rb"); on.exit(close(con))
  magic <- readBin(con, "integer", 1, size = 4, endian = "big")
  dims <- readBin(con, "integer", magic %% 256, size = 4, endian = "big")
  rows <- min(rows, dims[1])
  v <- readBin(con, "integer", rows * prod(dims[-1]), size = 1, signed = FALSE)
  if (length(dims) == 1) v else matrix(v / 255, rows, prod(dims[-1]), byrow = TRUE)
}

fmnist_data <- function(n, nt) {
  dir <- "/usr/share/datasets/fashion-mnist"
  if (!file.exists(file.path(dir, "train-images-idx3-ubyte.gz")))
    stop("Fashion-MNIST not found in ", dir, ": apt-get install dataset-fashion-mnist")
  out <- list(x = read_idx(file.path(dir, "train-images-idx3-ubyte.gz"), n),
              y = read_idx(file.path(dir, "train-labels-idx1-ubyte.gz"), n) + 1L,
              xt = read_idx(file.path(dir, "t10k-images-idx3-ubyte.gz"), nt),
              yt = read_idx(file.path(dir, "t10k-labels-idx1-ubyte.gz"), nt) + 1L)
  invisible(gc()) # the raw bytes are garbage: keep them out of the peak
  out
}

# ------------------------------------------------------------------ cases (children)

run_case <- function(case) {
  switch(case,
  binary_exact = , binary_cg = {
    n <- if (quick) 1500 else 5000
    dat <- binary_data(n)
    exact <- case == "binary_exact"
    fit_fun <- function(dd = dat) gp_laplace(dd$x, dd$y, kernel = "matern32",
      lengthscale = 2, outputscale = 4, policy = if (exact) "cholesky" else "cg",
      max_iter = if (exact) nrow(dd$x) else 5, max_newton = if (exact) 20 else 10,
      xtest = dd$xt, verbose = FALSE, threads = threads)
    small <- binary_data(500)
    r <- timed(fit_fun, reps = if (exact) 1 else 3, warm_fun = function() fit_fun(small))
    m <- metrics(r$fit$test$prob, dat$yt + 1L)
    result(case = case, n = n, d = 16, seconds = r$seconds, cpu = r$cpu, runs = length(r$all),
           newton = r$fit$newton_steps, iterations = r$fit$iterations,
           acc = m[["acc"]], nll = m[["nll"]])
  },
  softmax_fmnist = {
    n <- if (quick) 3000 else 20000
    dat <- fmnist_data(n, if (quick) 1000 else 10000)
    out <- list()
    for (mi in c(1, 5)) {
      fit_fun <- function(dd = dat) gp_laplace(dd$x, dd$y, likelihood = "softmax",
        kernel = "matern32", lengthscale = 1.550934, outputscale = 0.451591, policy = "cg",
        max_iter = mi, max_newton = 3, xtest = dd$xt, kernel_cache_bytes = 3.5e9,
        verbose = FALSE, threads = threads)
      small <- list(x = dat$x[1:300, ], y = dat$y[1:300], xt = dat$xt[1:10, ])
      r <- NULL # the previous fit (with its copy of x) is garbage now
      r <- timed(fit_fun, reps = 1, warm_fun = function() fit_fun(small))
      m <- metrics(r$fit$test$prob, dat$yt)
      out[[length(out) + 1]] <- data.frame(max_iter = mi, seconds = r$seconds, cpu_s = r$cpu,
        newton = r$fit$newton_steps, iterations = r$fit$iterations, acc = m[["acc"]],
        nll = m[["nll"]], ece = m[["ece"]])
    }
    result(case = case, n = n, d = 784, table = do.call(rbind, out))
  },
  gmm_large = {
    per <- if (quick) 2000 else 10000
    dat <- gmm_data(per, 10, seed = 1)
    fit_fun <- function(dd = dat, mi = 2) gp_laplace(dd$x, dd$y, likelihood = "softmax",
      kernel = "matern32", lengthscale = 0.05, outputscale = 0.05, policy = "cg",
      max_iter = mi, max_newton = 1, rank = 10, kernel_cache_bytes = 0,
      verbose = FALSE, threads = threads)
    small <- gmm_data(50, 1, seed = 2)
    r <- timed(fit_fun, reps = 1, warm_fun = function() fit_fun(small))
    h <- r$fit$history
    result(case = case, n = nrow(dat$x), C = 10, seconds = r$seconds, cpu = r$cpu,
           iterations = r$fit$iterations, products = r$fit$kernel_products,
           s_per_iter = r$seconds / r$fit$iterations)
  },
  e2_toy = {
    set.seed(7)
    n <- 100
    x <- cbind(runif(n, -3, 5), runif(n, -4, 1))
    f <- gp_draw(x, "rbf", 1, 10, seed = 7)
    y <- as.integer(runif(n) < plogis(f))
    xt <- cbind(runif(200, -3, 5), runif(200, -4, 1))
    step0 <- function(policy, j) gp_laplace(x, y, kernel = "rbf", lengthscale = 1,
      outputscale = 10, policy = policy, max_iter = j, max_newton = 1, tol = 0,
      inner_atol = 0, inner_rtol = 0, xtest = xt, verbose = FALSE, threads = threads)
    ref <- step0("cholesky", n)$test$mean
    dist <- do.call(rbind, lapply(c(1, 10, 19), function(j) data.frame(j = j,
      chol = sqrt(sum((step0("cholesky", j)$test$mean - ref)^2)),
      cg = sqrt(sum((step0("cg", j)$test$mean - ref)^2)))))
    fit_fun <- function() gp_laplace(x, y, kernel = "rbf", lengthscale = 1, outputscale = 10,
      policy = "cg", max_iter = 10, verbose = FALSE, threads = threads)
    r <- timed(fit_fun, reps = 5)
    result(case = case, n = n, dist = dist, seconds = r$seconds,
           newton = r$fit$newton_steps, iterations = r$fit$iterations)
  },
  e3_poisson = {
    x <- matrix(seq(0, 1, length.out = 100))
    schedules <- list(c(5, 20), c(10, 10), c(20, 5), c(100, 1))
    fit_s <- function(y, s, seed) gp_laplace(x, y, likelihood = "poisson", kernel = "rbf",
      lengthscale = 0.1, outputscale = 5, policy = "cg", max_newton = s[1], max_iter = s[2],
      max_total_iter = 100, damping = FALSE, xtest = x, verbose = FALSE, threads = threads)
    # seed rule: the first GP draws for which every schedule stays finite
    rows <- list(); used <- integer(); seed <- 0
    while (length(used) < 10 && seed < 200) {
      seed <- seed + 1
      f <- gp_draw(x, "rbf", 0.1, 5, seed = seed)
      set.seed(1000 + seed)
      y <- rpois(100, exp(f)); yt <- rpois(100, exp(f))
      fits <- lapply(schedules, function(s) tryCatch(suppressWarnings(fit_s(y, s, seed)),
                                                     error = function(e) NULL))
      ok <- all(vapply(fits, function(ft) !is.null(ft) && ft$stop_reason != "diverged" &&
                         all(is.finite(ft$f)), TRUE))
      if (!ok) next
      used <- c(used, seed)
      for (k in seq_along(schedules)) {
        ft <- fits[[k]]
        t <- elapsed(fit_s(y, schedules[[k]], seed))$seconds
        rows[[length(rows) + 1]] <- data.frame(seed = seed,
          schedule = sprintf("(%d,%d)", schedules[[k]][1], schedules[[k]][2]),
          nll = poisson_nll(yt, ft$test$mean, ft$test$var), iterations = ft$iterations,
          newton = ft$newton_steps, seconds = t)
      }
    }
    result(case = case, seeds = used, table = do.call(rbind, rows))
  },
  e4_gmm = {
    dat <- gmm_data(if (quick) 300 else 1000, 200, seed = 1)
    common <- function(xx, yy, ...) gp_laplace(xx, yy, likelihood = "softmax",
      kernel = "matern32", lengthscale = 0.05, outputscale = 0.05, xtest = dat$xt,
      verbose = FALSE, threads = threads, ...)
    out <- list()
    warm <- round(seq(1, nrow(dat$x), length.out = 200))
    for (rk in c(Inf, 10)) {
      r <- timed(function() common(dat$x, dat$y, policy = "cg", max_iter = 5, rank = rk),
                 reps = 1, warm_fun = function() common(dat$x[warm, ], dat$y[warm],
                                                       policy = "cg", max_iter = 5))
      m <- metrics(r$fit$test$prob, dat$yt)
      out[[length(out) + 1]] <- data.frame(method = sprintf("IterNCGP-CG R=%s", rk),
        seconds = r$seconds, newton = r$fit$newton_steps, iterations = r$fit$iterations,
        acc = m[["acc"]], nll = m[["nll"]], ece = m[["ece"]])
    }
    for (ns in c(50, 100, 200)) {
      set.seed(ns)
      sub <- sort(sample(nrow(dat$x), ns))
      r <- timed(function() common(dat$x[sub, ], dat$y[sub], policy = "cholesky",
                                   max_iter = ns * 10, damping = FALSE), reps = 3)
      m <- metrics(r$fit$test$prob, dat$yt)
      out[[length(out) + 1]] <- data.frame(method = sprintf("SoD N_sub=%d", ns),
        seconds = r$seconds, newton = r$fit$newton_steps, iterations = r$fit$iterations,
        acc = m[["acc"]], nll = m[["nll"]], ece = m[["ece"]])
    }
    result(case = case, n = nrow(dat$x), table = do.call(rbind, out))
  },
  stop("unknown case ", case))
}

if (!is.na(child_case)) {
  res <- run_case(child_case)
  dput(res)
  quit(save = "no")
}

# ------------------------------------------------------------------ parent: run, report

cases <- setdiff(args[!grepl("^--", args)], "")
if (!length(cases)) cases <- all_cases
bad <- setdiff(cases, all_cases)
if (length(bad)) stop("unknown case(s): ", paste(bad, collapse = ", "))
self <- normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
cat(sprintf("gp_laplace benchmarks, %d threads, %s\nload: %s\n\n", threads, date(),
            paste(system("uptime", intern = TRUE), collapse = " ")))

run_child <- function(case) {
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c(shQuote(self), paste0("--case=", case), paste0("--threads=", threads),
                   if (quick) "--quick"), stdout = TRUE, stderr = FALSE)
  status <- attr(out, "status")
  if (!is.null(status) && status != 0) {
    cat("case", case, "failed (exit status", status, ")\n")
    return(NULL)
  }
  eval(parse(text = paste(out, collapse = "\n")))
}

bench <- function(name, params, metrics_str) cat("BENCH", name, params, metrics_str, "\n")
fmt <- function(x, d = 3) formatC(x, digits = d, format = "fg")

results <- list()
for (case in cases) {
  r <- run_child(case)
  if (is.null(r)) next
  results[[case]] <- r
  switch(case,
  binary_exact = , binary_cg = {
    target <- if (case == "binary_exact") "<= 10 s" else "<= 2 s"
    cat(sprintf("%s: binary n = %d, d = 16, Matern-3/2, %s\n", case, r$n,
                if (case == "binary_exact") "policy = cholesky, max_iter = n (exact Laplace)"
                else "policy = cg, max_iter = 5, max_newton = 10"))
    print(data.frame(seconds = fmt(r$seconds), cpu_s = fmt(r$cpu), runs = r$runs, target = target,
                     newton = r$newton, iterations = r$iterations, test_acc = fmt(r$acc, 4),
                     test_nll = fmt(r$nll, 4), peak_rss_mb = round(r$peak_rss_mb)),
          row.names = FALSE)
    bench(paste0("laplace_", case), sprintf("n=%d d=16 threads=%d", r$n, r$threads),
          sprintf("time=%.2fs cpu=%.2fs rss=%.0fMB acc=%.4f", r$seconds, r$cpu, r$peak_rss_mb, r$acc))
    cat("\n")
  },
  softmax_fmnist = {
    cat(sprintf("E5 Fashion-MNIST (stand-in for the paper's MNIST): n = %d, d = 784, C = 10, cg, recycling, R = Inf, kernel cached\n", r$n))
    tab <- r$table
    tab$peak_rss_mb <- round(r$peak_rss_mb)
    tab$paper <- "beats SVGP in acc/NLL (MNIST, GPU)"
    print(tab, digits = 4, row.names = FALSE)
    cat("target: softmax n = 20000, C = 10 <= 120 s and <= 4 GB = 4.0e9 bytes (3815 MiB) peak RSS\n",
        "(whole child process; peak_rss_mb is MiB). The cached K keeps only its lower triangle\n",
        "resident (~1.6e9 bytes at n = 20000; 4036 MiB peak before, with the full 3.2e9-byte K)\n\n", sep = "")
    for (i in seq_len(nrow(tab)))
      bench("laplace_fmnist", sprintf("n=%d C=10 max_iter=%d threads=%d", r$n, tab$max_iter[i],
            r$threads), sprintf("time=%.1fs cpu=%.1fs rss=%.0fMB acc=%.4f nll=%.4f ece=%.4f",
            tab$seconds[i], tab$cpu_s[i], r$peak_rss_mb, tab$acc[i], tab$nll[i], tab$ece[i]))
    cat("\n")
  },
  gmm_large = {
    cat(sprintf("GMM n = %d, C = 10, matrix-free (no kernel cache), rank 10, cg: %d solver iterations (max_newton 1)\n",
                r$n, r$iterations))
    print(data.frame(seconds = fmt(r$seconds), cpu_s = fmt(r$cpu), iterations = r$iterations,
                     kernel_products = r$products, s_per_iteration = fmt(r$s_per_iter),
                     peak_rss_mb = round(r$peak_rss_mb), target_rss = "<= 2048 MB"),
          row.names = FALSE)
    bench("laplace_gmm_matrix_free", sprintf("n=%d C=10 rank=10 threads=%d", r$n, r$threads),
          sprintf("s_per_iter=%.1fs cpu=%.1fs rss=%.0fMB", r$s_per_iter, r$cpu, r$peak_rss_mb))
    cat("\n")
  },
  e2_toy = {
    cat("E2 2-D binary toy (the IterNCGP paper's Fig. 3): distance of the step-0 test mean to the reference (Chol, j = 100)\n")
    d <- r$dist
    d$paper <- "CG much closer than Chol at equal j"
    print(d, digits = 4, row.names = FALSE)
    for (i in seq_len(nrow(d)))
      bench("laplace_e2_step0_dist", sprintf("n=100 j=%d", d$j[i]),
            sprintf("chol=%.4g cg=%.4g", d$chol[i], d$cg[i]))
    cat(sprintf("full fit (cg, max_iter 10, recycling): %s s median, %d Newton steps, %d iterations\n",
                fmt(r$seconds), r$newton, r$iterations))
    bench("laplace_e2_fit", sprintf("n=100 threads=%d", r$threads), sprintf("time=%.4fs", r$seconds))
    cat("\n")
  },
  e3_poisson = {
    cat("E3 Poisson schedules at a 100-iteration budget (the IterNCGP paper's Fig. 5), GP seeds", paste(r$seeds, collapse = " "), "\n")
    tab <- r$table
    agg <- do.call(rbind, lapply(split(tab, factor(tab$schedule, unique(tab$schedule))), function(t)
      data.frame(schedule = t$schedule[1], median_test_nll = median(t$nll), min_nll = min(t$nll),
                 max_nll = max(t$nll), median_iterations = median(t$iterations),
                 median_newton = median(t$newton), median_seconds = median(t$seconds))))
    agg$paper <- ifelse(agg$schedule == "(100,1)", "most efficient (lowest NLL)", "")
    print(agg, digits = 4, row.names = FALSE)
    for (i in seq_len(nrow(agg)))
      bench("laplace_e3_poisson", sprintf("schedule=%s runs=%d", agg$schedule[i], length(r$seeds)),
            sprintf("nll=%.4f iterations=%g time=%.4fs", agg$median_test_nll[i],
                    agg$median_iterations[i], agg$median_seconds[i]))
    cat("\n")
  },
  e4_gmm = {
    cat(sprintf("E4 GMM (the IterNCGP paper's mixture, scaled CI version): n = %d, C = 10, test 2000\n", r$n))
    tab <- r$table
    tab$peak_rss_mb <- round(r$peak_rss_mb)
    tab$paper <- ifelse(grepl("IterNCGP", tab$method), "best acc/NLL/ECE; R=10 ~ R=Inf",
                        "clearly worse")
    print(tab, digits = 4, row.names = FALSE)
    for (i in seq_len(nrow(tab)))
      bench("laplace_e4_gmm", sprintf("n=%d method=%s threads=%d", r$n,
            gsub(" ", "_", tab$method[i]), r$threads),
            sprintf("time=%.2fs acc=%.4f nll=%.4f ece=%.4f", tab$seconds[i], tab$acc[i],
                    tab$nll[i], tab$ece[i]))
    cat("\n")
  })
}
if (all(c("binary_exact", "binary_cg") %in% names(results))) {
  gap <- 100 * (results$binary_exact$acc - results$binary_cg$acc)
  cat(sprintf("binary: cg test accuracy %.2f points below exact (target <= 0.5)\n", gap))
  bench("laplace_binary_acc_gap", sprintf("n=%d", results$binary_cg$n), sprintf("gap=%.2fpt", gap))
}
cat(sprintf("\nfinished %s; load: %s\n", date(), paste(system("uptime", intern = TRUE))))
