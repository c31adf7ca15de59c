# inst/fuzz/fuzz_r.R -- fuzzes every public R function of scalegp with bad
# inputs (wrong shapes and types, NA/NaN/Inf, zero/negative/huge parameters,
# empty data, one class, sizes that cannot fit in memory, tampered fits), each
# case in its own forked child process, and prints a table per function.
#
# Usage, from the repository root after `make install`:
#   R_LIBS=build/Rlib Rscript inst/fuzz/fuzz_r.R [--quick] [--filter=REGEX]
#                     [--tsv=FILE] [--show=CLASSES]
#   --quick      a sample of the tampered-fit cases (every field, fewer edits)
#   --filter     only the cases whose "function: label" matches REGEX (perl)
#   --tsv        one line per case (function, label, class, message) to FILE
#   --show       print the cases of these classes (default "unclear,garbage,crash")
# Exit status 1 when a case crashed or returned silent garbage.
#
# Classes (see fuzz_classify):
#   error    a clean error naming the argument (or the fit field) that was bad
#   unclear  an error that does not name it
#   ok       accepted with a sound result (a valid edge value, or a fit field
#            the method does not read: the result equals the untampered one;
#            a fit that warned may have non-finite history/steps diagnostics)
#   garbage  accepted, but NA/NaN/Inf, a wrong shape, or (tampered fit) a
#            result that differs from the untampered fit's
#   crash    the child died (signal, abort, OOM kill) or ran past the limit
# Every child runs under a virtual-memory limit (ulimit -v, SGP_FUZZ_VMEM_KB,
# default 8 GB) so an oversized allocation fails instead of calling the OOM
# killer; the children's crash reports go to stderr.

fuzz_args <- function() {
  a <- commandArgs(TRUE)
  val <- function(key, default) {
    hit <- grep(paste0("^--", key, "="), a, value = TRUE)
    if (length(hit)) sub("^[^=]*=", "", hit[1]) else default
  }
  list(quick = "--quick" %in% a, filter = val("filter", ""), tsv = val("tsv", ""),
       show = strsplit(val("show", "unclear,garbage,crash"), ",")[[1]],
       limit = as.numeric(val("timeout", "60")))
}

# Re-runs this script under ulimit -v unless it already is.
fuzz_limit_memory <- function() {
  if (Sys.getenv("SGP_FUZZ_LIMITED") == "1") return(invisible())
  file <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1])
  kb <- Sys.getenv("SGP_FUZZ_VMEM_KB", "8000000")
  cmd <- sprintf("ulimit -v %s && SGP_FUZZ_LIMITED=1 exec '%s' '%s' %s", kb,
                 file.path(R.home("bin"), "Rscript"), file,
                 paste(shQuote(commandArgs(TRUE)), collapse = " "))
  quit(status = system2("sh", c("-c", shQuote(cmd))))
}

suppressPackageStartupMessages({
  library(parallel)
  library(scalegp)
})

# ------------------------------------------------------------------ fixtures
# Built in a child: the parent never runs OpenMP code (forking a process whose
# OpenMP runtime has started can hang the children).

fuzz_fixtures <- function() {
  set.seed(1)
  n <- 30
  x2 <- cbind(runif(n), runif(n))
  yg <- sin(4 * x2[, 1]) + 0.1 * rnorm(n)
  yb <- as.integer(x2[, 1] > 0.5)
  ys <- 1 + (x2[, 1] > 0.3) + (x2[, 2] > 0.6)
  yp <- rpois(n, 2)
  q <- function(...) suppressWarnings(...)
  lap <- list(
    bernoulli = q(gp_laplace(x2, yb, verbose = FALSE, seed = 1)),
    softmax = q(gp_laplace(x2, ys, likelihood = "softmax", verbose = FALSE, seed = 1)),
    poisson = q(gp_laplace(x2, yp, likelihood = "poisson", offset = rep(0.1, n),
                           verbose = FALSE, seed = 1)),
    gaussian = q(gp_laplace(x2, yg, likelihood = "gaussian", noise = 0.1, verbose = FALSE,
                            seed = 1)))
  grid <- ski_grid(x2, grid_size = 12)
  grid1 <- ski_grid(range = c(0, 1), grid_size = 8)
  stats <- ski_stats(x2, yg, grid, verbose = FALSE)
  ski <- ski_gsgp(x2, yg, grid_size = 12, lengthscale = 0.3, noise = 0.1,
                  variance = "lanczos", loglik = TRUE, probes = 4, verbose = FALSE, seed = 1)
  mlp <- mlp_fit(x2, yg, hidden = 4, iterations = 50, seed = 1, verbose = FALSE)
  mlp_c <- mlp_fit(x2, ys, hidden = 4, likelihood = "softmax", iterations = 50, seed = 1,
                   verbose = FALSE)
  valla_g <- q(valla(mlp, x2, yg, inducing = 5, iterations = 30, seed = 1, verbose = FALSE))
  valla_c <- q(valla(mlp_c, x2, ys, inducing = 5, iterations = 30, seed = 1, verbose = FALSE))
  list(n = n, x2 = x2, yg = yg, yb = yb, ys = ys, yp = yp, lap = lap, grid = grid, grid1 = grid1,
       stats = stats, ski = ski, mlp = mlp, mlp_c = mlp_c, valla = list(gaussian = valla_g,
                                                                       softmax = valla_c))
}

fuzz_in_child <- function(expr_fun, limit) {
  job <- mcparallel(expr_fun(), silent = TRUE)
  res <- mccollect(job, wait = FALSE, timeout = limit)
  if (is.null(res)) {
    tools::pskill(job$pid, tools::SIGKILL)
    suppressWarnings(mccollect(job, wait = TRUE))
    return(list(class = "crash", msg = sprintf("no result within %g s (killed)", limit)))
  }
  r <- res[[1]]
  if (is.null(r)) return(list(class = "crash", msg = "the child process died"))
  if (inherits(r, "try-error")) return(list(class = "crash", msg = paste("harness:", r)))
  r
}

# ------------------------------------------------------------------ values

bad_numbers <- list("NULL" = NULL, "NA" = NA, "NaN" = NaN, "Inf" = Inf, "-Inf" = -Inf,
                    "-1" = -1, "0" = 0, "0.5" = 0.5, "1e-300" = 1e-300, "1e300" = 1e300, "2^31" = 2^31,
                    "2^53" = 2^53, "2^63" = 2^63, "-2^31" = -2^31, "'a'" = "a",
                    "TRUE" = TRUE, "c(1, 2)" = c(1, 2), "numeric(0)" = numeric(0),
                    "list(1)" = list(1), "1i" = 1i, "factor" = factor("a"))
bad_strings <- list("NULL" = NULL, "NA" = NA_character_, "''" = "", "'nonsense'" = "nonsense",
                    "two strings" = c("a", "b"), "1" = 1, "TRUE" = TRUE, "list('a')" = list("a"))
bad_flags <- list("NULL" = NULL, "NA" = NA, "'yes'" = "yes", "c(TRUE, FALSE)" = c(TRUE, FALSE),
                  "2" = 2, "logical(0)" = logical(0))
bad_threads <- list("-1" = -1, "0.5" = 0.5, "257" = 257, "1024" = 1024, "5000" = 5000,
                    "1e5" = 1e5, "1e6" = 1e6, "2^31" = 2^31, "Inf" = Inf, "NaN" = NaN,
                    "'a'" = "a", "c(1, 2)" = c(1, 2), "256 (valid)" = 256, "1 (valid)" = 1)

bad_matrices <- function(n, d) {
  m <- matrix(0.5, n, d)
  poke <- function(v) { m[2] <- v; m }
  list("NULL" = NULL, "'a'" = "a", "numeric(0)" = numeric(0), "0 rows" = matrix(0, 0, d),
       "0 columns" = matrix(0, n, 0), "all NA" = matrix(NA_real_, n, d), "one NaN" = poke(NaN),
       "one Inf" = poke(Inf), "one -Inf" = poke(-Inf), "one NA" = poke(NA),
       "extra column" = matrix(0.5, n, d + 1), "missing row" = matrix(0.5, n - 1, d),
       "3-d array" = array(0.5, c(n, d, 2)), "complex" = m + 0i, "list" = as.list(m),
       "character matrix" = matrix("a", n, d), "data frame of strings" = data.frame(a = rep("x", n)),
       "1e300 values" = m * 1e300, "one row" = m[1, , drop = FALSE])
}

bad_vectors <- function(n) {
  v <- rep(1, n)
  poke <- function(x) { v[2] <- x; v }
  list("NULL" = NULL, "'a'" = "a", "numeric(0)" = numeric(0), "all NA" = rep(NA_real_, n),
       "one NaN" = poke(NaN), "one Inf" = poke(Inf), "one NA" = poke(NA), "length n - 1" = v[-1],
       "length n + 1" = c(v, 1), "n x 2 matrix" = cbind(v, v), "list" = as.list(v),
       "complex" = v + 0i, "character" = as.character(v), "-1 values" = -v, "1e300 values" = v * 1e300)
}

# ------------------------------------------------------------------ checks

# All numeric leaves of a result finite? (names in `skip` are not looked at.)
all_finite_leaves <- function(v, skip = character(0)) {
  if (is.null(v) || is.character(v) || is.factor(v) || is.function(v)) return(TRUE)
  if (is.logical(v)) return(!anyNA(v))
  if (is.list(v)) {
    nm <- names(v)
    for (i in seq_along(v))
      if (is.null(nm) || !nm[i] %in% skip)
        if (!all_finite_leaves(v[[i]], skip)) return(FALSE)
    return(TRUE)
  }
  if (is.numeric(v)) return(all(is.finite(v)))
  TRUE
}

finite_check <- function(skip = character(0)) {
  function(res) if (all_finite_leaves(res, skip)) "" else "non-finite values in the result"
}

# ------------------------------------------------------------------ cases

fuzz_case <- function(fn, label, arg, run, check = finite_check(), ref = NULL) {
  list(fn = fn, label = label, arg = arg, run = run, check = check, ref = ref)
}

# One case per value of `values` given to argument `arg` of f(base).
arg_cases <- function(fn, f, base, arg, values, check = finite_check(), name = arg) {
  lapply(names(values), function(lbl) {
    args <- base
    args[arg] <- list(values[[lbl]])
    fuzz_case(fn, paste0(name, " = ", lbl), arg, function() do.call(f, args), check)
  })
}

source_cases <- function(file) {
  dir <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
  sys.source(file.path(dir, file), envir = environment(fuzz_case))
}

fuzz_main <- function() {
  opt <- fuzz_args()
  fuzz_limit_memory()
  source_cases("fuzz_r_cases.R")
  fx <- fuzz_in_child(fuzz_fixtures, 300)
  if (!is.null(fx$class)) stop("fixtures failed: ", fx$msg)
  cases <- fuzz_all_cases(fx, opt$quick)
  keys <- vapply(cases, function(k) paste0(k$fn, ": ", k$label), "")
  if (nzchar(opt$filter)) cases <- cases[grepl(opt$filter, keys, perl = TRUE)]
  t0 <- Sys.time()
  out <- do.call(rbind, lapply(cases, function(k) {
    r <- fuzz_in_child(function() fuzz_classify(k), opt$limit)
    data.frame(fn = k$fn, label = k$label, class = r$class, msg = r$msg)
  }))
  fuzz_report(out, opt, as.numeric(difftime(Sys.time(), t0, units = "secs")))
}

# In the child: run a case and classify what happened.
fuzz_classify <- function(k) {
  grDevices::pdf(NULL)
  warns <- character(0)
  res <- tryCatch(withCallingHandlers(
    { utils::capture.output(v <- k$run()); list(value = v) },
    warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    }), error = function(e) list(error = conditionMessage(e)))
  if (!is.null(res$error)) {
    msg <- res$error
    if (grepl("segfault|stack overflow|C stack usage|irrecoverable", msg))
      return(list(class = "crash", msg = msg))
    named <- any(vapply(k$arg, function(a) grepl(arg_pattern(a), msg), TRUE))
    return(list(class = if (named) "error" else "unclear", msg = msg))
  }
  bad <- k$check(res$value)
  # documented NaN: the optimizer's trace marks a failed evaluation, the history's
  # trace column is NA where history_trace did not compute it (the exact path's
  # dense solve); a fit that warned (did not converge, learning failed) may carry
  # more non-finite diagnostics: its history, an evidence that could not be evaluated
  diagnostics <- if (length(warns)) c("history", "steps", "optim", "loglik", "loglik_se",
                                      "loglik_grad", "interp_error") else c("optim", "trace")
  if (nzchar(bad) && all_finite_leaves(res$value, diagnostics))
    bad <- ""
  if (!is.null(k$ref) && !nzchar(bad)) {
    ref <- tryCatch({ utils::capture.output(r <- k$ref()); r }, error = function(e) e)
    if (!identical(ref, res$value)) bad <- "differs from the untampered fit's result"
  }
  if (nzchar(bad)) return(list(class = "garbage", msg = bad))
  list(class = "ok", msg = paste(c("accepted", warns), collapse = "; "))
}

# The argument as a word of a message ('x' matches "'x' has" or "x: is", not "x2").
arg_pattern <- function(a) {
  paste0("(^|[^A-Za-z0-9_])", gsub("([.$^()])", "\\\\\\1", a), "([^A-Za-z0-9_]|$)")
}

fuzz_report <- function(out, opt, secs) {
  classes <- c("error", "unclear", "ok", "garbage", "crash")
  tab <- as.data.frame.matrix(table(factor(out$fn, unique(out$fn)),
                                    factor(out$class, classes)))
  tab <- cbind(inputs = rowSums(tab), tab)
  tab <- rbind(tab, total = colSums(tab))
  cat(sprintf("scalegp R fuzz: %d cases in %.0f s (one forked child each)\n\n", nrow(out), secs))
  print(tab)
  show <- out[out$class %in% opt$show, ]
  if (nrow(show)) {
    cat("\n")
    for (i in seq_len(nrow(show)))
      cat(sprintf("[%s] %s: %s\n    %s\n", show$class[i], show$fn[i], show$label[i],
                  substr(gsub("\n", " ", show$msg[i]), 1, 300)))
  }
  if (nzchar(opt$tsv))
    utils::write.table(out, opt$tsv, sep = "\t", quote = FALSE, row.names = FALSE)
  quit(status = if (any(out$class %in% c("garbage", "crash"))) 1 else 0)
}

fuzz_main()
