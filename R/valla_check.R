# valla_check.R -- a valla fit is plain data and may come back from a file or from
# another program damaged: the core checks the fields that predict, print,
# summary and plot read (sgp_valla_fit_check: presence by exact name, types,
# lengths); the network is read by mlp_spec (as valla's own model argument); the
# core checks the values, the shapes and the P1 / P2 / prior combination again
# when it predicts (sgp_valla_fit_from_data).

# Stops naming the first damaged field of object (returns it invisibly when sound).
valla_check_fit <- function(object, fn, arg = "object") {
  sgp_call("valla_fit_check", object, fn, arg)
  mlp_spec(object[["model"]], fn, paste0(arg, "$model"))
  invisible(object)
}

# The fields the C side reads (of a fit valla_check_fit passed), with the storage
# types it relies on (integers may come back from a file stored as doubles).
valla_plain_fit <- function(object, fn) {
  dbl <- function(v) if (is.null(v)) NULL else { storage.mode(v) <- "double"; v }
  list(model = mlp_spec(object[["model"]], fn, "object$model")$spec,
       likelihood = object[["likelihood"]], method = object[["method"]],
       inducing = dbl(object[["inducing"]]), tags = as.integer(object[["tags"]]),
       layers = if (is.null(object[["layers"]])) NULL else as.integer(object[["layers"]]),
       P1 = dbl(object[["P1"]]), P2 = dbl(object[["P2"]]), prior = object[["prior"]],
       closed_form = object[["closed_form"]],
       prior_var = as.double(object[["prior_var"]]),
       noise = if (is.null(object[["noise"]])) 0 else as.double(object[["noise"]]),
       y_mean = as.double(object[["y_mean"]]), y_sd = as.double(object[["y_sd"]]))
}
