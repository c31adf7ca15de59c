# R and Octave fronts of valla, mlp_fit and valla_metrics agree: the
# same calls on one fixed data set give the same field names, the same numbers
# (to 1e-10; both hosts run the same core with the same seed, one thread), the
# same argument error texts, option table and warning, and the same default
# inducing on n = 40.
#
# Octave runs in a child octave-cli on the oct-files built in the source tree
# (make -C bindings_octave/src CORE_DIR=../../core, as `make fuzz-octave` does)
# and prints "N name v1 v2 ..." (numbers as %.17g) or "S name text" lines that
# this file reads back. Skipped without octave-cli, outside the source tree
# (R CMD check) or when the oct-files are not built.

test_that("valla, mlp_fit and valla_metrics agree between R and Octave", {
  root <- parity_skip()
  oct <- parity_run_octave(root, "parity-valla.m")
  net <- list(weights = list(matrix(c(1.2, -0.8, 0.5, 0.9), 1), matrix(c(0.7, -0.4, 0.6, 0.3))),
              biases = list(c(0.1, -0.2, 0, 0.3), 0.05), activation = "tanh")
  x <- matrix(((1:40) - 20.5) / 10)  # the same doubles as in parity-valla.m
  y <- sin(x[, 1]) + 0.1 * cos(7 * x[, 1])
  xs <- matrix(c(-3, -0.5, 0, 3))
  cf <- valla(net, x, y, inducing = 5, closed_form = TRUE, learn = character(0),
              prior_var = 0.5, noise = 0.01, xtest = xs, seed = 2, threads = 1, verbose = FALSE)
  ad <- valla(net, x, y, inducing = 6, iterations = 60, batch_size = 20, lr = 1e-2, seed = 1,
              xtest = xs, threads = 1, verbose = FALSE)
  df <- valla(net, x, y, iterations = 2, seed = 1, threads = 1, verbose = FALSE)

  # one field set (Octave adds only its class field; R only its call, for update)
  expect_identical(paste(sort(setdiff(names(cf), c("test", "call"))), collapse = ","), oct$fields)
  expect_identical(paste(sort(setdiff(names(ad), c("test", "call"))), collapse = ","),
                   oct$fields_ad)

  same <- function(r, o, what) expect_equal(as.vector(r), o, tolerance = 1e-10, label = what)
  for (t in c("cf", "ad")) {
    fit <- if (t == "cf") cf else ad
    k <- function(f) oct[[paste0(t, ".", f)]]
    # every field and number of the fit, its network's weights and biases included
    # (Octave: levels [] for R's NULL; the predictions at xtest in test)
    parity_expect_fields(unclass(fit)[names(fit) != "call"], oct, paste0(t, ".all"))
    same(fit$inducing, k("inducing"), paste(t, "inducing"))
    same(fit$L, k("L"), paste(t, "L"))
    same(fit$prior_var, k("prior_var"), paste(t, "prior_var"))
    same(fit$noise, k("noise"), paste(t, "noise"))
    same(fit$history$objective, if (length(k("objective"))) k("objective") else numeric(0),
         paste(t, "objective"))
    same(fit$n_train, k("n_train"), paste(t, "n_train"))
    same(fit$x_range, k("x_range"), paste(t, "x_range"))
    same(fit$test$mean, k("mean"), paste(t, "test mean"))
    same(fit$test$var, k("var"), paste(t, "test var"))
    same(fit$test$latent_var, k("latent_var"), paste(t, "test latent_var"))
    f <- tempfile(fileext = ".rds")
    saveRDS(fit, f)
    back <- readRDS(f)
    unlink(f)
    p <- predict(back, xs + 0.25)
    same(p$var, k("reloaded_var"), paste(t, "reloaded predict var"))
    m <- valla_metrics(p, sin(xs[, 1] + 0.25))
    same(m[c("nll", "crps", "cqm")], k("metrics"), paste(t, "valla_metrics"))
  }

  # the default inducing on n = 40: the 36 rows left after the val_frac hold-out
  expect_equal(nrow(df$inducing), 36L)
  expect_equal(oct$default_M, 36)

  # argument errors: the core's text, prefixed by the function name, in both hosts
  err <- function(expr) tryCatch({ expr; "no error" }, error = function(e) conditionMessage(e))
  expect_identical(err(valla(net, x, y, prior_var = 0, verbose = FALSE)), oct$err_prior_var)
  expect_identical(err(valla(net, x, y, inducing = 3, lr = -1, verbose = FALSE)), oct$err_lr)
  expect_identical(err(valla(net, x, y, inducing = 3, alpha = 2, verbose = FALSE)), oct$err_alpha)
  expect_identical(err(valla(net, x, y, inducing = 100, verbose = FALSE)), oct$err_inducing)
  expect_identical(err(valla(net, x, y, inducing = 41, closed_form = TRUE, verbose = FALSE)),
                   oct$err_inducing_cf)
  expect_identical(err(valla(net, x, y, learn = c("A", "Z"), verbose = FALSE)), oct$err_learn)
  expect_identical(err(valla(net, x, y, method = "laplace", verbose = FALSE)), oct$err_method)
  expect_identical(err(valla(net, x, y, likelihood = "poisson", verbose = FALSE)),
                   oct$err_likelihood)
  expect_identical(err(valla(net, x, y, beta1 = 1, verbose = FALSE)), oct$err_beta1)
  expect_identical(err(valla(net, x, y, eval_evry = 3, verbose = FALSE)), oct$err_unknown)
  expect_identical(err(valla(net, x, y, inducing = 3, method = "lla", closed_form = TRUE,
                             verbose = FALSE)), oct$err_closed_form)
  expect_identical(err(valla(net, x, y, inducing = 3, iterations = 2.5, verbose = FALSE)),
                   oct$err_iterations)
  expect_match(oct$err_prior_var, "^valla: 'prior_var' must be positive and finite \\(got 0\\)")
  expect_match(oct$err_inducing, "^valla: 'inducing' M = 100 inducing points exceed the 36 rows")
  expect_match(oct$err_learn, "^valla: 'learn' has unknown entries \"Z\"; use any of \"A\"")

  # one option table (the core's), and the core-worded warning
  expect_identical(parity_option_line("valla"), oct$options)
  w <- tryCatch(valla(net, x, y, inducing = 6, iterations = 50, lr = 1e3, seed = 1,
                      verbose = FALSE), warning = function(w) conditionMessage(w))
  expect_identical(w, oct$warning)
  expect_match(w, "^valla: training diverged .* \\(iteration 1\\)$")

  # mlp_fit with hidden by name in both hosts
  mn <- mlp_fit(x, y, hidden = c(4, 3), activation = "sigmoid", iterations = 20, seed = 4,
                threads = 1, verbose = FALSE)
  same(mn$weights[[2]], oct$mlp.W2, "mlp_fit W2")
  same(mn$biases[[3]], oct$mlp.b3, "mlp_fit b3")
  same(mn$loss, oct$mlp.loss, "mlp_fit loss")
  # the network: one field set (weights, biases, activation, output, skip) and its numbers
  parity_expect_fields(unclass(mn)[c("weights", "biases", "activation", "output", "skip")],
                       oct, "mlp.all")
  expect_identical(parity_option_line("mlp_fit"), oct$mlp.options)
  expect_identical(err(mlp_fit(x, y, hidden = 3, lr = 0, verbose = FALSE)), oct$mlp.err_lr)
  expect_identical(err(mlp_fit(x, y, hidden = 3, likelihood = "poisson", verbose = FALSE)),
                   oct$mlp.err_likelihood)
  expect_match(oct$mlp.err_lr, "^mlp_fit: 'lr' must be positive and finite \\(got 0\\)$")
  w <- tryCatch(mlp_fit(x, sin(2 * x[, 1]), hidden = 16, iterations = 200, batch_size = 20,
                        lr = 1e300, seed = 3, verbose = FALSE),
                warning = function(w) conditionMessage(w))
  expect_identical(w, oct$mlp.warning)
  # predict's options: the core's table "valla_predict" and its rules
  calls <- as.list(quote(list(
    type = predict(cf, xs, type = "nonsense"), class = predict(cf, xs, type = "class"),
    mc = predict(cf, xs, prob_method = "mc"), mc_samples = predict(cf, xs, mc_samples = 0),
    full_cov = predict(cf, xs, full_cov = "yes"), seed = predict(cf, xs, seed = -1))))[-1]
  parity_expect_predict_errors(calls, oct, "predict.err.")
  expect_identical(err(valla(net, x, y, xtest = xs, prob_method = "z", verbose = FALSE)),
                   oct$valla.err.prob_method)
  # tampered fits: the core's check of a valla fit's fields, one text in both hosts
  tp <- function(name, value) { b <- ad; b[name] <- list(value); b }
  drop_p1 <- function() { b <- ad; b$P1 <- NULL; b }
  calls <- as.list(quote(list(
    missing = predict(drop_p1(), xs), prior = predict(tp("prior", "yes"), xs),
    likelihood = predict(tp("likelihood", "poisson"), xs),
    P1 = predict(tp("P1", ad$P1[-1, , drop = FALSE]), xs), prior_var = predict(tp("prior_var", -1), xs),
    tags = predict(tp("tags", ad$tags + 5), xs), history = predict(tp("history", list()), xs),
    iterations = predict(tp("iterations", -1), xs), levels = predict(tp("levels", "a"), xs),
    stop_reason = predict(tp("stop_reason", "gave up"), xs), model = predict(tp("model", NA), xs))))[-1]
  parity_expect_predict_errors(calls, oct, "tamper.err.")
  # valla_metrics: the core reads pred (list, probabilities, P(y = 1), means with var),
  # codes the labels and checks everything (one text in both hosts)
  ym <- c(0.1, -0.3, 1.2, 0.4); mm <- c(0, 0, 1, 0.5); vm <- c(0.5, 1, 2, 0.3)
  Pm <- cbind(c(0.8, 0.3, 0.4, 0.6), c(0.2, 0.7, 0.6, 0.4)); lm <- c(1, 2, 2, 1)
  same(valla_metrics(mm, ym, var = vm), oct$metrics.reg, "valla_metrics regression")
  same(valla_metrics(Pm[, 2], lm, bins = 4), oct$metrics.bin, "valla_metrics P(y = 1)")
  calls <- as.list(quote(list(
    empty = valla_metrics(list(mean = numeric(0), var = numeric(0)), numeric(0)),
    nan_y = valla_metrics(list(mean = mm, var = vm), c(NaN, ym[-1])),
    var0 = valla_metrics(list(mean = mm, var = replace(vm, 2, 0)), ym),
    var_n = valla_metrics(mm, ym, var = vm[-1]), nomean = valla_metrics(list(var = vm), ym),
    rows = valla_metrics(Pm[-1, ], lm), sum = valla_metrics(cbind(Pm, 0.1), lm),
    label = valla_metrics(Pm, c(1, 2, 3, 1)), bins = valla_metrics(Pm, lm, bins = 0),
    y = valla_metrics(Pm, "abcd"))))[-1]
  parity_expect_errors(calls, oct, "metrics.err.", "valla_metrics")
  expect_match(oct$metrics.err.unknown, "^valla_metrics: unknown option 'nbins'; valid options are bins$")
  # summary: the same lines in both hosts
  for (t in c("cf", "ad")) parity_expect_summary(if (t == "cf") cf else ad, oct, t)
  parity_expect_summary(df, oct, "df")
})
