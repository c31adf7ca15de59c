# Validation of a gp_laplace fit before predict/print/summary/plot read it. A
# fit is plain data: it may come back from a file, another program or a user's
# edits, so every field those methods use is checked for type, shape,
# finiteness and consistency, and an error names the field ("object$root").
# Fields are read with their exact names (`$` would partially match another).
# Returns a gp_laplace fit with those fields, the numeric ones as double matrices.

laplace_fit_check <- function(object, fn, arg = "object") {
  if (!is.list(object))
    stop_arg(fn, arg, "must be a gp_laplace fit (a list), not ", class(object)[1])
  fld <- list(get = function(name) object[[name, exact = TRUE]],
              bad = function(name, ...) stop_arg(fn, paste0(arg, "$", name), ...))
  fit <- laplace_fit_model(fld)
  fit <- laplace_fit_arrays(fld, fit)
  fit <- laplace_fit_data(fld, fit)
  structure(laplace_fit_run(fld, fit), class = "gp_laplace")
}

# likelihood, n_class, levels, kernel (its lengthscale is checked against d later).
laplace_fit_model <- function(fld) {
  lik <- fld$get("likelihood")
  if (!is.character(lik) || length(lik) != 1L || !lik %in% laplace_likelihoods)
    fld$bad("likelihood", "must be one of ", paste0("\"", laplace_likelihoods, "\"",
                                                     collapse = ", "))
  C <- fld$get("n_class")
  if (!fit_whole(C) || (lik == "softmax" && C < 2) || (lik != "softmax" && C != 1))
    fld$bad("n_class", "must be ", if (lik == "softmax") "a whole number >= 2" else "1",
            " for likelihood = \"", lik, "\"")
  lev <- fld$get("levels")
  if (!is.null(lev) && (!is.character(lev) || length(lev) != max(2L, C) || anyNA(lev)))
    fld$bad("levels", "must be NULL or ", max(2L, C), " class names")
  k <- fld$get("kernel")
  if (!is.list(k) || !is.character(k$kernel) || length(k$kernel) != 1L ||
      !k$kernel %in% kernel_names)
    fld$bad("kernel", "must be list(kernel = one of ",
            paste0("\"", kernel_names, "\"", collapse = ", "), ", lengthscale, outputscale)")
  list(likelihood = lik, n_class = as.integer(C), levels = lev, kernel = k)
}

# x (n x d), then f, var, weights (n x C) and root (nC x r), all finite.
laplace_fit_arrays <- function(fld, fit) {
  x <- fit_matrix(fld, "x", NA, NA)
  if (!nrow(x) || !ncol(x)) fld$bad("x", "is empty (", nrow(x), " x ", ncol(x), ")")
  n <- nrow(x)
  C <- fit$n_class
  fit$x <- x
  for (name in c("f", "var", "weights")) fit[[name]] <- fit_matrix(fld, name, n, C)
  if (min(fit$var) < 0) fld$bad("var", "has negative variances")
  fit$root <- fit_matrix(fld, "root", n * C, NA)
  ell <- fit$kernel$lengthscale
  if (!is.numeric(ell) || !length(ell) %in% c(1L, ncol(x)) || !fit_finite(ell) ||
      any(ell <= 0))
    fld$bad("kernel", "must have 1 or d = ", ncol(x), " positive finite lengthscales")
  s2 <- fit$kernel$outputscale
  if (!is.numeric(s2) || length(s2) != 1L || !is.finite(s2) || s2 <= 0)
    fld$bad("kernel", "must have one positive finite outputscale")
  fit$kernel <- list(kernel = fit$kernel$kernel, lengthscale = as.double(ell),
                     outputscale = as.double(s2))
  fit
}

# y (labels valid for the likelihood), noise (gaussian), offset (poisson).
laplace_fit_data <- function(fld, fit) {
  n <- nrow(fit$x)
  y <- fld$get("y")
  ok <- is.numeric(y) && length(y) == n && fit_finite(y)
  if (ok) ok <- switch(fit$likelihood, gaussian = TRUE, bernoulli = all(y %in% c(0, 1)),
                       poisson = all(y >= 0 & y == round(y)),
                       softmax = all(y %in% seq_len(fit$n_class)))
  if (!ok) fld$bad("y", "must be ", n, " finite labels valid for likelihood = \"",
                   fit$likelihood, "\"")
  fit$y <- as.double(y)
  noise <- fld$get("noise")
  gauss <- fit$likelihood == "gaussian"
  if (gauss && (!is.numeric(noise) || !length(noise) %in% c(1L, n) || !fit_finite(noise) ||
                any(noise <= 0)))
    fld$bad("noise", "must be 1 or ", n, " positive finite variances")
  if (!gauss && !is.null(noise)) fld$bad("noise", "must be NULL for likelihood = \"",
                                         fit$likelihood, "\"")
  fit$noise <- if (gauss) as.double(noise) else NULL
  off <- fld$get("offset")
  if (!is.null(off) && (fit$likelihood != "poisson" || !is.numeric(off) ||
                        length(off) != n || !fit_finite(off)))
    fld$bad("offset", "must be NULL or, for likelihood = \"poisson\", ", n, " finite numbers")
  fit$offset <- if (is.null(off)) NULL else as.double(off)
  fit
}

# Counters, status and history; a root without columns is only consistent with
# a fit that took no solver iteration (else predict would return the prior).
laplace_fit_run <- function(fld, fit) {
  for (name in c("newton_steps", "iterations"))
    if (!fit_whole(fld$get(name)) || fld$get(name) < 0)
      fld$bad(name, "must be a whole number >= 0")
  fit$newton_steps <- fld$get("newton_steps")
  fit$iterations <- fld$get("iterations")
  if ((ncol(fit$root) == 0) != (fit$iterations == 0))
    fld$bad("root", "has ", ncol(fit$root), " columns but the fit took ",
            format(fit$iterations), " solver iterations")
  fit$converged <- fld$get("converged")
  if (!is.logical(fit$converged) || length(fit$converged) != 1L || is.na(fit$converged))
    fld$bad("converged", "must be TRUE or FALSE")
  for (name in c("policy", "stop_reason")) {
    v <- fld$get(name)
    if (!is.character(v) || length(v) != 1L || is.na(v)) fld$bad(name, "must be one string")
    fit[[name]] <- v
  }
  if (!fit$policy %in% c("cg", "cholesky")) fld$bad("policy", "must be \"cg\" or \"cholesky\"")
  fit$history <- fit_columns(fld, "history", c("newton", "total", "residual", "trace"))
  fit$steps <- fit_columns(fld, "steps", "delta")
  fit$test <- fld$get("test")
  laplace_fit_selection(fld, fit)
}

# The model selection's fields (NULL in a fit saved before they existed). The core
# checks hyper$mean, the constant prior mean, when it predicts.
laplace_fit_selection <- function(fld, fit) {
  h <- fld$get("hyper")
  if (!is.null(h) && !is.list(h)) fld$bad("hyper", "must be a list")
  fit$hyper <- h
  for (name in c("loglik", "loglik_se", "loglik_grad", "learned", "optim")) fit[[name]] <- fld$get(name)
  fit
}

# ------------------------------------------------------------- helpers

fit_finite <- function(v) {
  !anyNA(v) && (!length(v) || (is.finite(min(v)) && is.finite(max(v))))
}

fit_whole <- function(v) {
  is.numeric(v) && length(v) == 1L && is.finite(v) && v == round(v)
}

# A finite numeric matrix field (a vector is one column) of rows x cols (NA: any).
fit_matrix <- function(fld, name, rows, cols) {
  v <- fld$get(name)
  if (!is.numeric(v) || length(dim(v)) > 2L)
    fld$bad(name, "must be a numeric matrix, not ", class(v)[1])
  if (is.null(dim(v))) v <- matrix(v, ncol = 1L)
  if ((!is.na(rows) && nrow(v) != rows) || (!is.na(cols) && ncol(v) != cols))
    fld$bad(name, "is ", nrow(v), " x ", ncol(v), "; need ",
            if (is.na(rows)) "any" else rows, " x ", if (is.na(cols)) "any" else cols)
  if (!fit_finite(v)) fld$bad(name, "contains NaN, NA or Inf")
  storage.mode(v) <- "double"
  v
}

# A data frame (or list) of equally long numeric columns, with `need` among them.
fit_columns <- function(fld, name, need) {
  v <- fld$get(name)
  ok <- is.list(v) && all(need %in% names(v)) &&
    all(vapply(need, function(k) is.numeric(v[[k]]), logical(1))) &&
    length(unique(lengths(v[need]))) == 1L
  if (!ok) fld$bad(name, "must be a data frame with numeric columns ",
                   paste(need, collapse = ", "))
  as.data.frame(v)
}
