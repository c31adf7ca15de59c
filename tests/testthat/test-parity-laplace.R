# R and Octave fronts of gp_laplace agree: the same calls on the same
# doubles give the same field sets, the same numbers (to 1e-10: one core, one
# thread, the same seed), the same option table and the same error and warning
# texts (helper-parity.R runs the Octave side, parity-laplace.m).

test_that("gp_laplace agrees between R and Octave: fields, numbers, options, messages", {
  root <- parity_skip()
  oct <- parity_run_octave(root, "parity-laplace.m")
  x <- cbind(((1:30) - 15.5) / 5, (1:30) %% 7 / 7)
  xs <- rbind(c(-2, 0.5), c(0, 0), c(1.5, 0.25))
  yb <- as.double(x[, 1] + 0.3 * x[, 2] > 0.2)
  ys <- 1 + (x[, 1] > -1) + (x[, 1] > 1.5)
  yp <- floor(2 + x[, 1]^2 / 3)
  yg <- sin(x[, 1])
  gl <- function(...) suppressWarnings(gp_laplace(..., seed = 1, threads = 1, verbose = FALSE))
  # full budgets: the exact Laplace approximation, backward stable, so the two
  # hosts' BLAS (R's and Octave's may differ) agree to cond * eps, far below 1e-10;
  # a truncated solve amplifies their rounding (a small budget's iterates differ);
  # fixed hyperparameters here (learned ones are compared below, at their tolerance)
  gf <- function(...) gl(..., learn = character(0))
  fits <- list(gf(x, yb, policy = "cholesky", max_iter = 30, xtest = xs),
               gf(x, ys, likelihood = "softmax", lengthscale = c(1, 2), max_iter = 90, xtest = xs),
               gf(x, yp, likelihood = "poisson", offset = rep(0.1, 30), policy = "cholesky",
                  max_iter = 30, xtest = xs),
               gf(x, yg, likelihood = "gaussian", noise = 0.1, max_iter = 30, xtest = xs),
               # preconditioned cg actions up to the full budget
               gf(x, yp, likelihood = "poisson", offset = rep(0.1, 30), precond_rank = 10,
                  max_iter = 30, xtest = xs))
  same <- function(r, o, what) expect_equal(as.vector(r), o, tolerance = 1e-10, label = what)
  # learned hyperparameters agree to 1e-8: the same
  # core optimizer on the same evidence, one thread, and both hosts link the
  # system's one BLAS/LAPACK (the README installs both from Debian), so an
  # evaluation differs between them at most by the BLAS's rounding, n eps cond(B)
  # ~ 1e-12 relative here; the optimizer's line-search decisions have margins far
  # above that, so the iterates and the optimum agree to that level, 1e4 below 1e-8
  fl <- gl(x, yp, likelihood = "poisson", offset = rep(0.1, 30), learn = "auto",
           policy = "cholesky", max_iter = 30)
  h <- fl$hyper
  expect_equal(c(h$lengthscale, h$outputscale, h$mean), oct[["learn.hyper"]], tolerance = 1e-8)
  expect_equal(fl$loglik, oct[["learn.loglik"]], tolerance = 1e-8)
  expect_identical(paste(fl$learned, collapse = ","), oct[["learn.learned"]])
  expect_identical(paste(names(fl$loglik_grad), collapse = ","), oct[["learn.grad_names"]])
  expect_identical(paste(names(fl$optim), collapse = ","), oct[["learn.optim"]])
  # the learned dispersion (negbin) and alpha (rq, at its upper bound here: the
  # data are smooth), to the same 1e-8
  yn <- floor(exp(1 + 2 * sin(1.5 * x[, 1])) * c(1, 0.5, 1.5, 0.2, 2.2)[(1:30 %% 5) + 1])
  fn <- gl(x, yn, likelihood = "negbin", kernel = "rq", policy = "cholesky", max_iter = 30)
  h <- fn$hyper
  expect_equal(c(h$lengthscale, h$outputscale, h$mean, h$dispersion, h$alpha), oct[["negbin.hyper"]],
               tolerance = 1e-8)
  expect_equal(c(fn$dispersion, fn$kernel$alpha), oct[["negbin.used"]], tolerance = 1e-8)
  expect_equal(fn$loglik, oct[["negbin.loglik"]], tolerance = 1e-8)
  expect_identical(paste(fn$learned, collapse = ","), oct[["negbin.learned"]])
  expect_identical(paste(names(fn$loglik_grad), collapse = ","), oct[["negbin.grad_names"]])
  parity_expect_summary(fn, oct, "negbin")
  # scaled inputs (option scale, the default): raw columns whose scales differ by
  # 1e4; the same centre and scale (the same sums), the learned values to the 1e-8
  # above, the predictions at new inputs (standardized alike) and the summary's lines
  err <- function(expr) tryCatch({ expr; "no error" }, error = function(e) conditionMessage(e))
  x2 <- cbind(150 + 30 * x[, 1], x[, 2] / 100)
  xs2 <- cbind(150 + 30 * xs[, 1], xs[, 2] / 100)
  fsc <- gl(x2, yb, policy = "cholesky", max_iter = 30)
  expect_true(fsc$scaling$scaled)
  expect_equal(c(fsc$scaling$centre, fsc$scaling$scale), oct[["scaled.moments"]], tolerance = 1e-14)
  expect_equal(c(fsc$hyper$lengthscale, fsc$scaling$lengthscale, fsc$hyper$outputscale,
                 fsc$hyper$mean), oct[["scaled.hyper"]], tolerance = 1e-8)
  expect_equal(predict(fsc, xs2)$prob, oct[["scaled.prob"]], tolerance = 1e-8)
  expect_identical(fsc$scaling$note, oct[["scaled.note"]])
  parity_expect_summary(fsc, oct, "scaled")
  bad <- fsc
  bad$scaling$scale <- -bad$scaling$scale
  expect_identical(parity_predict_message(err(predict(bad, xs2))), oct[["scaled.err"]])
  # the stochastic evidence: the same probes from the same seed, one thread, one BLAS
  fs <- gl(x, yp, likelihood = "poisson", offset = rep(0.1, 30), lengthscale = 1,
           outputscale = 1, mean = 0, learn = character(0), evidence = "stochastic", probes = 8)
  expect_equal(c(fs$loglik, fs$loglik_se, fs$loglik_grad[["lengthscale"]]), oct[["stoch.loglik"]],
               tolerance = 1e-10)
  # summary: the same lines in both hosts; numbers printed with at
  # most 6 significant digits from fits that agree to 1e-8 (learned) or 1e-10
  for (k in seq_along(fits)) parity_expect_summary(fits[[k]], oct, sprintf("fit%d", k))
  parity_expect_summary(fl, oct, "learn")
  parity_expect_summary(fs, oct, "stoch")
  for (k in seq_along(fits)) {
    f <- fits[[k]]
    t <- function(s) oct[[sprintf("fit%d.%s", k, s)]]
    # R's levels is NULL for numeric labels and then not a field; Octave keeps {};
    # R's call (for update) has no Octave counterpart
    expect_identical(paste(sort(union(setdiff(names(f), "call"), "levels")), collapse = ","),
                     t("fields"))
    expect_identical(paste(names(f$history), collapse = ","), t("history"))
    expect_identical(paste(names(f$steps), collapse = ","), t("steps"))
    expect_identical(paste(sort(names(f$test)), collapse = ","), t("test"))
    # softmax: W is singular and K + W^+ has 1/pi (up to noise_max = 1e12) on its
    # diagonal, so the weights and the root (K^-1 b and its factor) carry the
    # BLAS's rounding times cond(K + W^+) (1e-7 between R's and Octave's BLAS
    # here); f, var and the predictions are well conditioned
    rep <- if (f$likelihood == "softmax") character(0) else c("weights", "root")
    for (g in c("f", "var", rep, "newton_steps", "iterations", "kernel_products", "n_class", "seed"))
      same(f[[g]], t(g), sprintf("fit %d %s", k, g))
    same(as.double(f$converged), t("converged"), sprintf("fit %d converged", k))
    expect_identical(f$stop_reason, t("stop_reason"))
    expect_identical(f$likelihood, t("likelihood"))
    expect_identical(sprintf("%s %.17g %.17g", f$kernel$kernel, f$kernel$lengthscale[1],
                             f$kernel$outputscale), t("kernel"))
    same(f$steps$psi, t("psi"), sprintf("fit %d psi", k))
    same(f$test$mean, t("test.mean"), sprintf("fit %d test mean", k))
    same(f$test$var, t("test.var"), sprintf("fit %d test var", k))
  }
  expect_identical(parity_option_line("gp_laplace"), oct$options)
  err <- function(expr) tryCatch({ expr; "no error" }, error = function(e) conditionMessage(e))
  g0 <- function(...) gp_laplace(x, ..., verbose = FALSE)
  expect_identical(err(g0(yb, max_iter = 0)), oct$err.max_iter)
  expect_identical(err(g0(yb, policy = "lanczos")), oct$err.policy)
  expect_identical(err(g0(yb + 1)), oct$err.labels)
  expect_identical(err(g0(yb, nonsense = 1)), oct$err.unknown)
  expect_identical(err(g0(yb, recycle = 2)), oct$err.recycle)
  expect_identical(err(g0(yb, lengthscale = 1:3)), oct$err.lengthscale)
  expect_identical(err(g0(yb, rank = -1)), oct$err.rank)
  expect_identical(err(g0(yb, noise = 1)), oct$err.noise)
  expect_identical(err(g0(yb, threads = 1e6)), oct$err.threads)
  expect_identical(err(g0(rep(40, 30), likelihood = "softmax")), oct$err.softmax_big)
  expect_match(oct$err.max_iter, "^gp_laplace: 'max_iter' must be a whole number >= 1 \\(got 0\\)$")
  w <- tryCatch(g0(ys, likelihood = "softmax", max_iter = 1, max_newton = 2, seed = 1),
                warning = function(w) conditionMessage(w))
  expect_identical(w, oct$warning)
  # predict and tampered fits (plain data): the core checks both hosts' fits, so the
  # texts agree once R's names are Octave's (predict.gp_laplace, object$, newdata)
  f1 <- fits[[1]]
  tamper <- function(name, value) { b <- f1; b[name] <- list(value); b }
  drop_root <- function() { b <- f1; b$root <- NULL; b }
  calls <- as.list(quote(list(
    weights = predict(tamper("weights", f1$weights[-1, , drop = FALSE]), xs),
    x = predict(tamper("x", "a"), xs), likelihood = predict(tamper("likelihood", "probit"), xs),
    n_class = predict(tamper("n_class", 3), xs),
    kernel = predict(tamper("kernel", list(kernel = "rbf", lengthscale = -1, outputscale = 1)), xs),
    noise = predict(tamper("noise", 1), xs), iterations = predict(tamper("iterations", -1), xs),
    converged = predict(tamper("converged", NA), xs),
    policy = predict(tamper("policy", "lanczos"), xs), y = predict(tamper("y", rep(2, 30)), xs),
    var = predict(tamper("var", -f1$var), xs),
    root0 = predict(tamper("root", f1$root[, 0, drop = FALSE]), xs),
    missing = predict(drop_root(), xs),
    columns = predict(f1, matrix(0, 2, 3)), offset = predict(f1, xs, offset = c(0, 0, 0)),
    offset_n = predict(fits[[3]], xs, offset = c(0, 0)),
    class = predict(fits[[3]], xs, type = "class"), type = predict(f1, xs, type = "nonsense"))))[-1]
  parity_expect_predict_errors(calls, oct, "predict.err.")
  # gp_kernel: the same matrices (one core, direct sums: to rounding), table and errors
  same(gp_kernel(x, xs, kernel = "matern32", lengthscale = c(0.7, 1.3), outputscale = 2),
       oct$kernel.m32, "gp_kernel matern32")
  same(gp_kernel(x[1:5, ]), oct$kernel.rbf, "gp_kernel rbf")
  expect_identical(parity_option_line("gp_kernel"), oct$kernel.options)
  expect_identical(err(gp_kernel(x, kernel = "gauss")), oct$kernel.err.kernel)
  expect_identical(err(gp_kernel(x, lengthscale = 1:3)), oct$kernel.err.lengthscale)
  expect_identical(err(gp_kernel(x, outputscale = 0)), oct$kernel.err.outputscale)
  expect_identical(err(gp_kernel(x, sigma = 1)), oct$kernel.err.unknown)
})

test_that("the option docs of R and Octave follow the core's table (every verb)", {
  root <- parity_root()
  if (is.null(root)) skip("not run from the source tree")
  for (fn in c("gp_laplace", "gp_kernel", "ski_gsgp", "ski_grid", "ski_stats", "valla", "mlp_fit")) {
    rd <- readLines(file.path(root, "man", paste0(fn, ".Rd")))
    t <- scalegp:::verb_option_rows(fn)  # the context's rows only where the verb takes them
    for (k in seq_len(nrow(t)))
      expect_true(any(grepl(sprintf("\\item{\\code{%s} (default", t$name[k]), rd, fixed = TRUE)),
                  label = sprintf("%s's Rd documents '%s'", fn, t$name[k]))
  }
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c(file.path(root, "tools", "option_docs.R"), "--check"), stdout = TRUE,
                 stderr = TRUE, env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":")))
  expect_null(attr(out, "status"), label = paste(out, collapse = "\n"))
})
