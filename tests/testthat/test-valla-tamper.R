# Damaged valla fits: predict, print, summary and plot check a fit's
# fields (presence by exact name, type, dimensions, finiteness, and the P1 / P2 /
# prior combination each method leaves) and stop naming the field, instead of
# predicting with what is left.

tamper_fits <- function() {
  set.seed(3)
  x <- matrix(runif(60, -2, 2)); y <- sin(2 * x[, 1]) + rnorm(60, sd = 0.1)
  net <- mlp_fit(x, y, hidden = 8, iterations = 300, lr = 0.01, seed = 1, verbose = FALSE)
  list(x = x,
       trained = valla(net, x, y, inducing = 5, iterations = 50, lr = 0.01, seed = 1,
                       verbose = FALSE),
       closed = valla(net, x, y, inducing = 5, closed_form = TRUE, verbose = FALSE),
       lla = valla(net, x, y, method = "lla", verbose = FALSE),
       ella = valla(net, x, y, method = "ella", inducing = 10, ella_rank = 5, verbose = FALSE))
}

test_that("predict, print, summary and plot name the damaged field of a valla fit", {
  fx <- tamper_fits()
  x <- fx$x
  for (f in fx[-1]) expect_true(all(is.finite(predict(f, x)$var)))  # all sound
  set <- function(fit, name, value) { fit[name] <- list(value); fit }
  drop <- function(fit, name) { fit[[name]] <- NULL; fit }
  tr <- fx$trained
  cases <- list(
    list(drop(tr, "P1"), "'object\\$P1' is missing"),
    list(drop(tr, "prior"), "'object\\$prior' is missing"),
    list(set(tr, "P1", NULL), "'P1' is missing although prior = true; the fit is damaged"),
    list(set(tr, "prior", NA), "'object\\$prior' must be TRUE or FALSE"),
    list(set(tr, "prior", "yes"), "'object\\$prior' must be TRUE or FALSE"),
    list(set(tr, "prior", FALSE), "'P2' a fit with prior = false has P2 and no P1"),
    list(set(tr, "P2", tr$P1), "'closed_form' a valla fit with a trained A"),
    list(set(tr, "P1", tr$P1[-1, ]), "'object\\$P1' must be empty or a 5 x 5 numeric matrix"),
    list(set(tr, "P1", replace(tr$P1, 3, NaN)), "'P1' contains NaN or Inf"),
    list(set(tr, "P1", "a"), "'object\\$P1' must be empty or a 5 x 5"),
    list(set(tr, "prior_var", -1), "'object\\$prior_var' must be one positive finite number"),
    list(set(tr, "y_sd", Inf), "'object\\$y_sd' must be one positive finite number"),
    list(drop(tr, "noise"), "'object\\$noise' is missing"),
    list(set(drop(tr, "d"), "datafit", 1), "'object\\$d' is missing"),
    list(set(tr, "tags", tr$tags + 5), "'object\\$tags' must give one output per inducing point \\(5 of them, each in 1..1\\)"),
    list(set(tr, "inducing", tr$inducing[-1, , drop = FALSE]), "'object\\$tags' must give one output per inducing point \\(4 of them"),
    list(set(tr, "inducing", cbind(tr$inducing, 1)), "'object\\$inducing' must be a numeric matrix with d = 1"),
    list(set(tr, "likelihood", "poisson"), "'object\\$likelihood' must be one of"),
    list(set(tr, "method", NULL), "'object\\$method' must be one of"),
    list(set(tr, "iterations", -1), "'object\\$iterations' must be a whole number"),
    list(set(tr, "history", list()), "'object\\$history' must be a list or struct"),
    list(set(tr, "closed_form", TRUE), "'P2' is missing from a closed-form fit"),
    list(set(fx$closed, "P2", NULL), "'P2' is missing from a closed-form fit"),
    list(set(fx$lla, "prior", FALSE), "the fit is damaged"),
    list(set(fx$lla, "P2", fx$lla$P1), "'method' an exact LLA fit has P1, prior = true and no P2"),
    list(set(fx$ella, "prior", TRUE), "'P1' is missing although prior = true"),
    list(set(fx$ella, "P1", fx$ella$P2), "'P2' a fit with prior = false has P2 and no P1"),
    list(set(tr, "model", list()), "'object\\$model\\$weights'"),
    list(unclass(tr)[1:3], "'object\\$model' is missing"),
    list(1:3, "'object' must be a valla fit")
  )
  for (k in seq_along(cases)) {
    fit <- cases[[k]][[1]]
    expect_error(scalegp:::predict.valla(fit, x), paste0("predict.valla: .*", cases[[k]][[2]]),
                 info = paste("case", k))
  }
  # print, summary and plot check the same fields (x is the fit's name there)
  for (fn in c("print", "summary", "plot")) {
    g <- get(paste0(fn, ".valla"), envir = asNamespace("scalegp"))
    expect_error(g(drop(tr, "history")), paste0(fn, ".valla: '", if (fn == "summary") "object" else "x",
                                                "\\$history' is missing"))
    expect_error(g(set(tr, "stopped_early", NA)), "stopped_early' must be TRUE or FALSE")
  }
})
