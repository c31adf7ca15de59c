# formula.R -- the formula / data-frame interface of gp_laplace, ski_gsgp,
# mlp_fit and valla. A verb whose x is a formula hands its call here: the model
# frame is built as lm builds it (data, subset, na.action evaluated in the
# caller), the verb runs again on the design matrix, and the fit keeps terms,
# xlevels and contrasts so predict() rebuilds the same columns from a data frame.

# The verb's call with x a formula -> the verb's fit on the model matrix.
# numeric_only: every predictor must be numeric (a grid: ski_gsgp). like: a fit
# whose xlevels and contrasts code the factors (valla: the network's, so that
# its inputs are the columns it was trained on). The intercept column is
# dropped: a GP's constant is its prior mean (and a network's its output bias).
formula_fit <- function(cl, env, fn, numeric_only = FALSE, like = NULL) {
  call <- cl  # the fit's call: update() evaluates the formula call again
  xlev <- if (is.list(like)) like[["xlevels", exact = TRUE]]
  nm <- names(cl)
  if ("weights" %in% nm)
    stop_arg(fn, "weights", "is not supported: every observation counts once")
  # gp_laplace(y ~ ., df): the second positional argument is the data
  if (!"data" %in% nm && "y" %in% nm) names(cl)[nm == "y"] <- "data"
  else if ("y" %in% nm) stop_arg(fn, "y", "is given twice (the formula names the response)")
  # called through a wrapper f(...), match.call names subset `..k`; model.frame
  # evaluates it within the data, so it needs the expression behind it
  sub <- cl$subset
  if (is.symbol(sub) && grepl("^[.][.][0-9]+$", as.character(sub))) {
    k <- as.integer(substring(as.character(sub), 3L))
    cl$subset <- eval(quote(substitute(list(...))), env)[[k + 1L]]
  }
  if (length(xlev)) {  # only the levels of this formula's variables (else a warning)
    tt <- stats::terms(eval(cl$x, env), data = eval(cl$data, env))
    xlev <- xlev[names(xlev) %in% vapply(as.list(attr(tt, "variables"))[-1L], deparse1, "")]
  }
  mf <- cl[c(1L, match(c("x", "data", "subset", "na.action"), names(cl), 0L))]
  names(mf)[names(mf) == "x"] <- "formula"
  mf$drop.unused.levels <- is.null(xlev)  # (the network's levels are all its columns)
  mf$xlev <- xlev
  mf[[1L]] <- quote(stats::model.frame)
  mf <- as_plain_numbers(eval(mf, env), fn, "data") # (model.matrix reads integer64's bits)
  mt <- attr(mf, "terms")
  if (!attr(mt, "response")) stop_arg(fn, "x", "is a formula without a response (y ~ ...)")
  if (numeric_only) formula_numeric(mt, fn)
  des <- formula_design(mt, mf, if (is.list(like)) like[["contrasts", exact = TRUE]], fn, "x")
  info <- list(terms = mt, xlevels = stats::.getXlevels(mt, mf), contrasts = des$contrasts,
               na.action = attr(mf, "na.action"))
  cl <- cl[!names(cl) %in% c("data", "subset", "na.action")]
  cl$x <- des$x
  cl$y <- stats::model.response(mf)
  if (!is.null(des$offset)) {
    if (fn != "gp_laplace" || !is.null(cl$offset))
      stop_arg(fn, "x", "has an offset() term; ",
               if (fn == "gp_laplace") "give the offset there or as 'offset', not both"
               else "only gp_laplace (poisson) takes one")
    cl$offset <- des$offset
  }
  cl <- formula_test_args(cl, env, info, fn)
  fit <- eval(cl, env)
  fit[names(info)] <- info  # (keeps the fit's class)
  if (!is.null(fit[["call", exact = TRUE]])) fit$call <- call  # (mlp_fit keeps none)
  fit
}

# data, subset and na.action belong to a formula.
formula_only <- function(fn) {
  stop(fn, ": 'data', 'subset' and 'na.action' are used only when 'x' is a formula",
       call. = FALSE)
}

# A data frame for xtest (or valla's validation) becomes the design matrix too.
# (Their values replace their expressions: each is evaluated once.)
formula_test_args <- function(cl, env, info, fn) {
  xt <- if (!is.null(cl$xtest)) cl$xtest <- eval(cl$xtest, env)
  if (is.data.frame(xt)) {
    d <- formula_newdata(info, xt, fn, "xtest", pad = FALSE)
    cl$xtest <- d$x
    if (!is.null(d$offset) && is.null(cl$xtest_offset)) cl$xtest_offset <- d$offset
  }
  val <- if (!is.null(cl$validation)) cl$validation <- eval(cl$validation, env)
  if (is.data.frame(val)) {
    mf <- stats::model.frame(info$terms, val, xlev = info$xlevels, na.action = stats::na.fail)
    cl$validation <- list(formula_design(info$terms, mf, info$contrasts, fn, "validation")$x,
                          stats::model.response(mf))
  }
  cl
}

# The model matrix without its intercept column, the formula's offset and the
# contrasts used.
formula_design <- function(mt, mf, contrasts, fn, arg) {
  # (contrasts of variables this frame lacks would only draw warnings)
  contrasts <- contrasts[names(contrasts) %in% names(mf)[!vapply(mf, is.numeric, NA)]]
  x <- stats::model.matrix(mt, mf, contrasts.arg = if (length(contrasts)) contrasts)
  ctr <- attr(x, "contrasts")
  x <- x[, colnames(x) != "(Intercept)", drop = FALSE]
  if (!ncol(x)) stop_arg(fn, arg, "gives no predictor columns")
  attributes(x) <- list(dim = dim(x), dimnames = list(NULL, colnames(x)))
  list(x = x, offset = stats::model.offset(mf), contrasts = ctr)
}

# Grid inputs are numbers: a factor, character or logical predictor is an error.
formula_numeric <- function(mt, fn) {
  cls <- attr(mt, "dataClasses")
  cls <- cls[setdiff(names(cls), names(cls)[attr(mt, "response")])]
  bad <- cls[!(cls == "numeric" | startsWith(cls, "nmatrix"))]
  if (length(bad))
    stop_arg(fn, "x", "has the ", bad[[1L]], " predictor '", names(bad)[1L], "'; ", fn,
             " interpolates on a grid and needs numeric inputs")
}

# The design of new data for a fit made from a formula: NULL when the fit has no
# terms or newdata is not a data frame (then the matrix path matches columns by
# name). Rows with NA in a predictor are left out and, pad = TRUE, come back as NA
# in the predictions (lm's na.pass); pad = FALSE (xtest) makes them an error.
formula_newdata <- function(fit, newdata, fn, arg, pad = TRUE) {
  tt <- fit[["terms", exact = TRUE]]
  if (is.null(tt) || !is.data.frame(newdata)) return(NULL)
  tt <- stats::delete.response(tt)
  miss <- setdiff(all.vars(tt), names(newdata))
  if (length(miss))
    stop_arg(fn, arg, "lacks the variable", if (length(miss) > 1L) "s", " ",
             paste0("'", miss, "'", collapse = ", "), " of the fit's formula")
  xlev <- fit[["xlevels", exact = TRUE]]
  for (v in intersect(names(xlev), names(newdata))) {
    new <- setdiff(unique(as.character(newdata[[v]][!is.na(newdata[[v]])])), xlev[[v]])
    if (length(new))
      stop_arg(fn, arg, "has the new level", if (length(new) > 1L) "s", " ",
               paste0("'", new, "'", collapse = ", "), " of factor '", v,
               "' (the fit knows ", paste0("'", xlev[[v]], "'", collapse = ", "), ")")
  }
  mf <- stats::model.frame(tt, newdata, xlev = xlev,
                           na.action = if (pad) stats::na.exclude else stats::na.pass)
  mf <- as_plain_numbers(mf, fn, arg)
  c(formula_design(tt, mf, fit[["contrasts", exact = TRUE]], fn, arg)[c("x", "offset")],
    list(na.action = attr(mf, "na.action")))
}

# Predictions (a vector, matrix, factor, or a list of them; arrays with the points
# last) padded with NA at the rows na.exclude left out.
formula_pad <- function(p, omit) {
  if (is.null(omit) || !inherits(omit, "exclude")) return(p)
  if (is.list(p)) return(lapply(p, formula_pad, omit = omit))
  if (length(dim(p)) == 3L) {
    keep <- stats::naresid(omit, seq_len(dim(p)[3L]))
    return(p[, , keep, drop = FALSE])
  }
  stats::napredict(omit, p)
}
