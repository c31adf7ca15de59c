# inst/fuzz/fuzz_r_cases.R -- the cases of fuzz_r.R (sourced into its
# environment: fuzz_case, arg_cases, the bad_* value sets and the checks).
# fx: the fixtures of fuzz_fixtures (data, fits, grid, statistics, networks).

fuzz_all_cases <- function(fx, quick) {
  c(kernel_cases(fx), laplace_cases(fx), laplace_predict_cases(fx), ski_grid_cases(fx),
    ski_stats_cases(fx), ski_gsgp_cases(fx), ski_predict_cases(fx), mlp_cases(fx),
    valla_cases(fx), valla_predict_cases(fx), metrics_cases(fx), info_cases(),
    tamper_cases(fx, quick), fit_reliability_cases(fx), source_file_cases(fx))
}

# Cases for several arguments of one function: spec = list(arg = values, ...).
many_args <- function(fn, f, base, spec, check = finite_check()) {
  unlist(lapply(names(spec), function(a) arg_cases(fn, f, base, a, spec[[a]], check)),
         recursive = FALSE)
}

# An extra case: a call and the argument its error must name.
one <- function(fn, label, arg, run, check = finite_check()) {
  list(fuzz_case(fn, label, arg, run, check))
}

# ------------------------------------------------------------------ gp_kernel

kernel_cases <- function(fx) {
  base <- list(x = fx$x2, x2 = fx$x2[1:5, ], lengthscale = 0.5)
  # inputs far from each other may be reported on either side (x or x2)
  x2 <- lapply(arg_cases("gp_kernel", gp_kernel, base, "x2", bad_matrices(5, 2)),
               function(k) { k$arg <- c("x2", "x"); k })
  c(many_args("gp_kernel", gp_kernel, base, list(
      x = bad_matrices(30, 2), kernel = bad_strings,
      lengthscale = bad_numbers, outputscale = bad_numbers, alpha = bad_numbers,
      threads = bad_threads)), x2,
    one("gp_kernel", "x, x2 of 1e6 rows (an 8 TB matrix)", c("x", "x2"),
        function() gp_kernel(matrix(0, 1e6, 1), matrix(0, 1e6, 1))),
    one("gp_kernel", "x2 = one point as a vector of length d", "x2",
        function() gp_kernel(fx$x2, c(0.5, 0.5))))
}

# ------------------------------------------------------------------ gp_laplace

laplace_cases <- function(fx) {
  base <- list(x = fx$x2, y = fx$yb, verbose = FALSE, seed = 1)
  pois <- modifyList(base, list(y = fx$yp, likelihood = "poisson"))
  gauss <- modifyList(base, list(y = fx$yg, likelihood = "gaussian"))
  soft <- modifyList(base, list(y = fx$ys, likelihood = "softmax"))
  counts <- c(bad_numbers, list("2^31" = 2^31, "2^40 (valid)" = 2^40))
  c(many_args("gp_laplace", gp_laplace, base, list(
      x = bad_matrices(30, 2), y = c(bad_vectors(30), list("labels 2" = rep(2, 30),
                                                            "one class" = rep(1, 30))),
      likelihood = bad_strings, kernel = bad_strings, lengthscale = bad_numbers,
      outputscale = bad_numbers, noise = bad_numbers, offset = bad_vectors(30),
      policy = bad_strings, max_newton = counts, max_iter = counts, rank = counts,
      tol = bad_numbers, xtest = bad_matrices(5, 2), backend = bad_strings, seed = bad_numbers,
      verbose = bad_flags, threads = bad_threads, recycle = bad_flags, damping = bad_flags,
      max_total_iter = counts, random_order = bad_flags, time_limit = bad_numbers,
      inner_atol = bad_numbers, inner_rtol = bad_numbers, history_trace = bad_strings,
      kernel_cache_bytes = bad_numbers)),
    many_args("gp_laplace", gp_laplace, gauss, list(noise = bad_numbers,
                                                   y = bad_vectors(30))),
    many_args("gp_laplace", gp_laplace, pois, list(
      offset = bad_vectors(30), y = c(bad_vectors(30), list("counts 1e3" = rep(1e3, 30),
                                                             "counts 1e6" = rep(1e6, 30))),
      xtest_offset = bad_vectors(5))),
    many_args("gp_laplace", gp_laplace, soft, list(
      y = c(bad_vectors(30), list("one class" = rep(1, 30), "labels 0..2" = fx$ys - 1,
                                  "factor with an empty level" =
                                    factor(fx$ys, levels = 1:4))))),
    laplace_extra_cases(fx, base))
}

laplace_extra_cases <- function(fx, base) {
  fit_pred <- function(...) {
    f <- suppressWarnings(do.call(gp_laplace, modifyList(base, list(...))))
    predict(f, fx$x2[1:5, ])
  }
  c(one("gp_laplace", "poisson counts 1e6, then predict", "y",
        function() fit_pred(y = rep(1e6, 30), likelihood = "poisson")),
    one("gp_laplace", "max_total_iter = 0 reports converged = FALSE", "max_total_iter",
        function() {
          f <- suppressWarnings(gp_laplace(fx$x2, fx$yb, max_total_iter = 0, verbose = FALSE))
          if (isTRUE(f$converged)) NaN else f$converged
        }),
    one("gp_laplace", "x of 2e4 x 1 with time_limit = 0.01", "x",
        function() suppressWarnings(gp_laplace(matrix(runif(2e4)), rep(0:1, 1e4),
                                               time_limit = 0.01, verbose = FALSE)$converged)),
    one("gp_laplace", "xtest = one point as a vector of length d", "xtest",
        function() gp_laplace(fx$x2, fx$yb, xtest = c(0.5, 0.5), verbose = FALSE)$test),
    one("gp_laplace", "gaussian y equal to its prior mean, then predict", "y",
        function() fit_pred(y = rep(5, 30), likelihood = "gaussian", mean = 5, noise = 0.1)),
    one("gp_laplace", "gaussian fit on n = 1 point, then summary and predict", "x",
        function() {
          f <- gp_laplace(fx$x2[1, , drop = FALSE], 5, likelihood = "gaussian", mean = 5,
                          noise = 0.1, lengthscale = 0.3, outputscale = 1,
                          learn = character(0), verbose = FALSE, seed = 1)
          summary(f)
          predict(f, fx$x2[1:5, ])
        }))
}

laplace_predict_cases <- function(fx) {
  f <- fx$lap$bernoulli
  pr <- function(...) predict(...)
  base <- list(object = f, newdata = fx$x2[1:5, ])
  c(many_args("predict.gp_laplace", pr, base, list(
      newdata = bad_matrices(5, 2), type = bad_strings, threads = bad_threads,
      offset = bad_vectors(5))),
    many_args("predict.gp_laplace", pr, list(object = fx$lap$poisson, newdata = fx$x2[1:5, ]),
              list(offset = bad_vectors(5))),
    arg_cases("predict.gp_laplace", pr, base, "object",
              list("NULL" = NULL, "list()" = structure(list(), class = "gp_laplace"),
                   "a ski_gsgp fit" = structure(fx$ski, class = "gp_laplace"),
                   "a valla fit" = structure(fx$valla$gaussian, class = "gp_laplace"))),
    one("predict.gp_laplace", "newdata = one point as a vector of length d", "newdata",
        function() predict(f, c(0.5, 0.5))))
}

# ------------------------------------------------------------------ SKI

ski_grid_cases <- function(fx) {
  base <- list(x = fx$x2, grid_size = 10)
  sizes <- c(bad_numbers, list("1e10" = 1e10, "3e9" = 3e9, "c(1e5, 1e5)" = c(1e5, 1e5)))
  c(many_args("ski_grid", ski_grid, base, list(
      x = bad_matrices(30, 2), grid_size = sizes, grid_bounds = bad_matrices(2, 2),
      interpolation = bad_strings, lengthscale = bad_numbers, n = bad_numbers,
      grid_pad = bad_numbers)),
    many_args("ski_grid", ski_grid, list(range = rbind(c(0, 1), c(0, 1))), list(
      range = bad_matrices(2, 2), n = bad_numbers)))
}

ski_stats_cases <- function(fx) {
  base <- list(x = fx$x2, y = fx$yg, grid = fx$grid, verbose = FALSE)
  g <- fx$grid
  grids <- list("NULL" = NULL, "'a'" = "a", "list()" = list(),
                "size 0" = modifyList(g, list(size = c(0L, 12L))),
                "size NA" = modifyList(g, list(size = c(NA, 12L))),
                "bounds NaN" = modifyList(g, list(bounds = g$bounds * NaN)),
                "bounds reversed" = modifyList(g, list(bounds = g$bounds[, 2:1])),
                "interpolation 'x'" = modifyList(g, list(interpolation = "x")),
                "one dimension" = fx$grid1)
  firsts <- c(bad_numbers, list("2^31 + 5 (valid)" = 2^31 + 5, "2^53 (valid)" = 2^53))
  # a bad grid may be reported by the name of its field
  grid_cases <- lapply(arg_cases("ski_stats", ski_stats, base, "grid", grids), function(k) {
    k$arg <- c("grid", "grid_size", "grid_bounds", "interpolation")
    k
  })
  c(grid_cases, many_args("ski_stats", ski_stats, base, list(
    x = bad_matrices(30, 2), y = bad_vectors(30), first_row = firsts,
    bounds_policy = bad_strings, probes = bad_numbers, seed = bad_numbers,
    verbose = bad_flags, threads = bad_threads)))
}

ski_gsgp_cases <- function(fx) {
  base <- list(x = fx$x2, y = fx$yg, grid_size = 12, lengthscale = 0.3, verbose = FALSE,
               seed = 1)
  s <- fx$stats
  stats <- list("'a'" = "a", "list()" = list(), "n = -1" = modifyList(s, list(n = -1)),
                "WtW NaN" = modifyList(s, list(WtW = s$WtW * NaN)),
                "Wty short" = modifyList(s, list(Wty = s$Wty[-1])))
  c(many_args("ski_gsgp", ski_gsgp, base, list(
      x = bad_matrices(30, 2), y = bad_vectors(30), grid_size = bad_numbers,
      grid_bounds = bad_matrices(2, 2), kernel = bad_strings, lengthscale = bad_numbers,
      outputscale = bad_numbers, noise = bad_numbers, interpolation = bad_strings,
      method = bad_strings, tol = bad_numbers, max_iter = bad_numbers, variance = bad_strings,
      rank = bad_numbers, loglik = bad_flags, probes = bad_numbers, xtest = bad_matrices(5, 2),
      backend = bad_strings, seed = bad_numbers, verbose = bad_flags, threads = bad_threads,
      bounds_policy = bad_strings, grid_pad = bad_numbers, slq_max_iter = bad_numbers,
      precond_rank = bad_numbers)),
    many_args("ski_gsgp", ski_gsgp, list(stats = s, lengthscale = 0.3, verbose = FALSE),
              list(stats = stats)),
    one("ski_gsgp", "an unknown argument", "foo",
        function() ski_gsgp(fx$x2, fx$yg, foo = 1, verbose = FALSE)),
    one("ski_gsgp", "x and y with stats (method gsgp would ignore them)", c("x", "y"),
        function() ski_gsgp(fx$x2, fx$yg, stats = s, lengthscale = 0.3, verbose = FALSE)),
    one("ski_gsgp", "x and y with stats, learning (x only for a start)", c("x", "y"),
        function() ski_gsgp(fx$x2, fx$yg, stats = s, verbose = FALSE)))
}

ski_predict_cases <- function(fx) {
  pr <- function(...) predict(...)
  base <- list(object = fx$ski, newdata = fx$x2[1:5, ])
  c(many_args("predict.ski_gsgp", pr, base, list(
      newdata = bad_matrices(5, 2), variance = bad_strings, threads = bad_threads,
      backend = bad_strings)),
    one("predict.ski_gsgp", "newdata = one point as a vector of length d", "newdata",
        function() predict(fx$ski, c(0.5, 0.5))))
}

# ------------------------------------------------------------------ networks

mlp_cases <- function(fx) {
  base <- list(x = fx$x2, y = fx$yg, hidden = 3, iterations = 20, verbose = FALSE, seed = 1)
  hidden <- c(bad_numbers, list("c(3, 0)" = c(3, 0), "1e9" = 1e9, "2^31" = 2^31))
  c(many_args("mlp_fit", mlp_fit, base, list(
      x = bad_matrices(30, 2), y = bad_vectors(30), hidden = hidden, activation = bad_strings,
      likelihood = bad_strings, iterations = bad_numbers, batch_size = bad_numbers,
      lr = bad_numbers, weight_decay = bad_numbers, seed = bad_numbers, verbose = bad_flags,
      threads = bad_threads)),
    many_args("mlp_forward", mlp_forward, list(model = fx$mlp, x = fx$x2), list(
      x = bad_matrices(30, 2), threads = bad_threads,
      model = list("NULL" = NULL, "list()" = list(), "'a'" = "a",
                   "weights NaN" = modifyList(fx$mlp, list(weights = lapply(fx$mlp$weights,
                                                                           function(w) w * NaN))),
                   "one layer dropped" = modifyList(fx$mlp, list(weights = fx$mlp$weights[-1]))))))
}

valla_cases <- function(fx) {
  base <- list(model = fx$mlp, x = fx$x2, y = fx$yg, inducing = 5, iterations = 20,
               verbose = FALSE, seed = 1)
  soft <- base  # not modifyList: it would merge mlp_c's fields into mlp's weights
  soft$model <- fx$mlp_c
  soft$y <- fx$ys
  c(many_args("valla", valla, base, list(
      model = list("NULL" = NULL, "list()" = list(), "'a'" = "a"),
      x = bad_matrices(30, 2), y = bad_vectors(30),
      likelihood = bad_strings, inducing = c(bad_numbers, bad_matrices(5, 2)),
      prior_var = bad_numbers, noise = bad_numbers, learn = bad_strings,
      closed_form = bad_flags, iterations = bad_numbers, batch_size = bad_numbers,
      lr = bad_numbers, alpha = bad_numbers, method = bad_strings,
      xtest = bad_matrices(5, 2), backend = bad_strings, seed = bad_numbers,
      verbose = bad_flags, threads = bad_threads, jitter = bad_numbers,
      eval_every = bad_numbers, val_frac = bad_numbers)),
    many_args("valla", valla, soft, list(y = c(bad_vectors(30),
                                               list("one class" = rep(1, 30))))),
    one("valla", "validation = list('a', 1)", "validation",
        function() valla(fx$mlp, fx$x2, fx$yg, inducing = 5, iterations = 20, verbose = FALSE,
                         validation = list("a", 1))))
}

valla_predict_cases <- function(fx) {
  pr <- function(...) predict(...)
  base <- list(object = fx$valla$softmax, newdata = fx$x2[1:5, ])
  c(many_args("predict.valla", pr, base, list(
      newdata = bad_matrices(5, 2), type = bad_strings, full_cov = bad_flags,
      prob_method = bad_strings, mc_samples = bad_numbers, seed = bad_numbers,
      threads = bad_threads)),
    one("predict.valla", "newdata = one point as a vector of length d", "newdata",
        function() predict(fx$valla$gaussian, c(0.5, 0.5))))
}

metrics_cases <- function(fx) {
  p <- list(mean = fx$yg, var = rep(0.1, 30))
  many_args("valla_metrics", valla_metrics, list(pred = p, y = fx$yg), list(
    pred = c(bad_vectors(30), list("list(mean = NA)" = list(mean = NA, var = 1))),
    y = bad_vectors(30), bins = c(bad_numbers, list("1e9" = 1e9))))
}

info_cases <- function() {
  one("scalegp_info", "no arguments", "none", function() unclass(scalegp_info()))
}

# ------------------------------------------------------------------ tampered fits

# Edits of one field that make it invalid. Only edits that cannot give another
# valid fit are used: "removed" skips the optional fields, "a string" the
# character ones, "negated" is for the fields that are never negative, and
# "transposed" skips square matrices (a transposed square factor has a valid
# fit's shape: only recomputing the fit could tell it apart).
tamper_edits <- function(quick) {
  e <- list(
    "removed" = function(v) NULL,
    "NA" = function(v) NA,
    "a string" = function(v) "a",
    "NaN in it" = function(v) if (is.numeric(v) && length(v)) { v[1] <- NaN; v } else NaN,
    "Inf in it" = function(v) if (is.numeric(v) && length(v)) { v[length(v)] <- Inf; v } else Inf,
    "first row dropped" = function(v) if (is.matrix(v)) v[-1, , drop = FALSE] else v[-1],
    "no columns" = function(v) if (is.matrix(v)) v[, 0, drop = FALSE] else numeric(0),
    "transposed" = function(v) if (is.matrix(v)) t(v) else list(v),
    "negated" = function(v) -abs(v) - 1,
    "a list" = function(v) list(v))
  if (quick) e[c("removed", "NaN in it", "first row dropped", "no columns", "negated")] else e
}

# Fields that may be absent, and fields that are never negative, per fit class.
tamper_meta <- list(
  gp_laplace = list(optional = c("offset", "levels", "noise", "test"),
                    nonneg = c("var", "newton_steps", "iterations", "n_class",
                               "kernel_products", "seed")),
  ski_gsgp = list(optional = c("love", "loglik", "logdet", "logdet_se", "datafit",
                               "probes_used", "test", "timings"),
                  nonneg = c("iterations", "rel_residual", "lengthscale", "outputscale", "noise",
                             "rank", "tol", "max_iter", "seed", "slq_max_iter", "precond_rank",
                             "probes_used", "logdet_se", "timings")),
  valla = list(optional = c("P2", "layers", "levels", "noise", "test"),
               nonneg = c("prior_var", "noise", "iterations", "best_iteration", "clamps", "y_sd",
                          "n_class", "n", "n_train", "d", "C", "seed")))

tamper_applies <- function(edit, field, value, cls) {
  meta <- tamper_meta[[cls]]
  switch(edit,
    "removed" = !field %in% meta$optional,
    "a string" = !is.character(value),
    "negated" = field %in% meta$nonneg && is.numeric(value),
    "transposed" = !(is.matrix(value) && nrow(value) == ncol(value)),
    TRUE)
}

tamper_cases <- function(fx, quick) {
  nd <- fx$x2[1:5, ]
  methods <- list(
    predict = function(f) predict(f, nd),
    print = function(f) utils::capture.output(print(f)),
    summary = function(f) utils::capture.output(print(summary(f))),
    plot = function(f) {  # a 2-D valla fit only plots its history
      if (inherits(f, "valla")) plot(f, what = "history") else plot(f)
      "plotted"
    })
  fits <- c(setNames(fx$lap, paste0("gp_laplace/", names(fx$lap))),
            list("ski_gsgp" = fx$ski),
            setNames(fx$valla, paste0("valla/", names(fx$valla))))
  edits <- tamper_edits(quick)
  out <- list()
  for (fname in names(fits)) for (m in names(methods)) {
    fit <- fits[[fname]]
    cls <- class(fit)[1]
    obj <- if (m %in% c("predict", "summary")) "object" else "x"
    for (field in names(fit)) for (e in names(edits)) {
      if (!tamper_applies(e, field, fit[[field]], cls)) next
      run <- local({
        f2 <- fit; f2[field] <- list(edits[[e]](fit[[field]])); meth <- methods[[m]]
        function() meth(f2)
      })
      ref <- local({ meth <- methods[[m]]; f0 <- fit; function() meth(f0) })
      out[[length(out) + 1L]] <-
        fuzz_case(paste0(m, ".", cls), sprintf("%s: $%s %s", fname, field, e),
                  c(field, paste0(obj, "$", field)), run, finite_check(), ref)
    }
  }
  out
}

# ------------------------------------------- options, edited fits, overflow

# Options twice or in another case, subnormal inputs, fits edited out of range:
# each a clean error naming what is wrong, or predictions that warn.
fit_reliability_cases <- function(fx) {
  x <- fx$x2; y <- fx$yb
  scaled <- function(fit, by) {
    fit$model$weights <- lapply(fit$model$weights, function(w) w * by)
    fit
  }
  warned <- function(run) function() {  # no warning: the non-finite sentinel
    w <- FALSE
    v <- withCallingHandlers(run(), warning = function(c) { w <<- TRUE; invokeRestart("muffleWarning") })
    if (w) v else NaN
  }
  edited <- fx$lap$bernoulli
  edited$root <- edited$root * 10
  c(one("gp_laplace", "tol given twice", "tol", function() gp_laplace(x, y, tol = 1e-3, tol = 1e-4)),
    one("gp_laplace", "an option in upper case (Tol)", "Tol", function() gp_laplace(x, y, Tol = 1e-3)),
    one("gp_laplace", "x * 1e-310 (subnormal)", "x", function() gp_laplace(x * 1e-310, y)),
    one("gp_kernel", "x * 1e-310 (subnormal)", "x", function() gp_kernel(x * 1e-310, lengthscale = 1)),
    one("predict.gp_laplace", "root * 10 (variances below 0)", "object",
        warned(function() predict(edited, x))),
    one("predict.valla", "weights * 1e308", "object",
        function() predict(scaled(fx$valla$gaussian, 1e308), x)),
    one("predict.valla", "weights * 1e200", "object",
        warned(function() predict(scaled(fx$valla$gaussian, 1e200), x))))
}

# ------------------------------------------------------------------ chunk files

# ski_stats over files holding faults (each run writes its files, so a case
# stands alone in its child): every one but a blank line is an error that must
# name the file; and integer64 values (bit64), which must be read as the whole
# numbers they hold or, beyond 2^53, named.
source_file_cases <- function(fx) {
  dir <- file.path(tempdir(), "sgp_fuzz_sources")
  text <- function(l) charToRaw(paste0(paste(l, collapse = "\n"), "\n"))
  lines <- c("a,b,y", sprintf("%.17g,%.17g,%.17g", fx$x2[, 1], fx$x2[, 2], fx$yg))
  good <- file.path(dir, "good.csv")
  put <- function(path, bytes) {
    dir.create(dir, showWarnings = FALSE)
    writeBin(bytes, path)
  }
  faults <- list("a blank line" = as.raw(10L), "a '# comment' line" = text("# comment"),
                 "a missing field" = text("0.5,0.5"), "an extra field" = text("0.5,0.5,1,2"),
                 "an empty field" = text("0.5,,1"), "a text field" = text("0.5,oops,1"),
                 "a NUL byte" = c(charToRaw("0.5,0.5,1"), as.raw(c(0L, 10L))),
                 "random bytes" = as.raw((1:200 * 7919) %% 256),
                 "a value outside the grid" = text("0.5,3,1"))
  csv <- unlist(recursive = FALSE, lapply(seq_along(faults), function(i) {
    path <- file.path(dir, sprintf("fault%d.csv", i))
    bytes <- c(text(lines[1:11]), faults[[i]], text(lines[12:31]))
    one("ski_stats (files)", paste("CSV with", names(faults)[i]), path, function() {
      put(good, text(lines))
      put(path, bytes)
      ski_stats(c(good, path), fx$grid, x = 1:2, y = 3, block_rows = 8, verbose = FALSE)
    })
  }))
  whole <- list("CSV of a header only" = text("a,b,y"), "CSV of zero bytes" = raw(0),
                "CSV with a blank header" = text(c("", lines[-1])))
  files <- unlist(recursive = FALSE, lapply(seq_along(whole), function(i) {
    path <- file.path(dir, sprintf("whole%d.csv", i))
    one("ski_stats (files)", names(whole)[i], path, function() {
      put(path, whole[[i]])
      ski_stats(path, fx$grid, x = 1:2, y = 3, verbose = FALSE)
    })
  }))
  if (!requireNamespace("data.table", quietly = TRUE)) csv <- files <- list()
  h5 <- file.path(dir, "mismatch.h5")
  if (requireNamespace("hdf5r", quietly = TRUE)) files <- c(files, one("ski_stats (files)", "HDF5 x of 30 rows, y of 20", h5, function() {
    dir.create(dir, showWarnings = FALSE)
    f <- hdf5r::H5File$new(h5, mode = "w")
    f[["x"]] <- fx$x2
    f[["y"]] <- fx$yg[1:20]
    f$close_all()
    ski_stats(h5, fx$grid, x = "x", y = "y", verbose = FALSE)
  }), one("ski_stats (files)", "HDF5 that is not one", file.path(dir, "text.h5"), function() {
    put(file.path(dir, "text.h5"), text("a,b"))
    ski_stats(file.path(dir, "text.h5"), fx$grid, x = "x", y = "y", verbose = FALSE)
  }))
  if (!requireNamespace("bit64", quietly = TRUE)) return(c(csv, files))
  i64 <- bit64::as.integer64
  c(csv, files,
    one("gp_kernel", "x integer64 (valid)", "x", function() gp_kernel(i64(c(1, 5, 9)), lengthscale = 3)),
    one("gp_kernel", "x integer64 beyond 2^53", "x",
        function() gp_kernel(i64(c("1", "9007199254740993")), lengthscale = 3)),
    one("gp_laplace", "offset integer64 beyond 2^53", "offset", function()
      gp_laplace(fx$x2, fx$yp, likelihood = "poisson", offset = i64(rep("9007199254740995", 30)),
                 verbose = FALSE, seed = 1)),
    one("ski_stats", "y integer64 (valid)", "y", function()
      ski_stats(fx$x2, i64(round(10 * fx$yg)), fx$grid, verbose = FALSE)),
    one("valla_metrics", "y integer64 beyond 2^53", "y", function()
      valla_metrics(list(mean = fx$yg, var = rep(0.1, 30)), i64(rep("-9007199254740993", 30)))))
}
