# Argument checks shared by the user-facing functions. Every error names the
# function and the argument, and is raised before any compiled code runs.

stop_arg <- function(fn, arg, ...) {
  stop(sprintf("%s: '%s' %s", fn, arg, paste0(...)), call. = FALSE)
}

# An n-by-d double matrix from a matrix, data frame or vector (a vector is one
# column: n points in one dimension; with d > 1 given, a vector of length d is
# one point). Rejects empty, non-numeric and non-finite.
as_input_matrix <- function(x, fn, arg = "x", d = NULL) {
  x <- as_plain_numbers(x, fn, arg)
  if (is.data.frame(x)) {
    if (!all(vapply(x, is.numeric, logical(1))))
      stop_arg(fn, arg, "must have only numeric columns")
    x <- as.matrix(x)
  }
  if (!is.numeric(x) && !is.logical(x))
    stop_arg(fn, arg, "must be a numeric matrix or vector, not ", class(x)[1])
  if (is.null(dim(x)))
    x <- matrix(x, ncol = if (!is.null(d) && d > 1L && length(x) == d) d else 1L)
  if (length(dim(x)) != 2L) stop_arg(fn, arg, "must be a matrix (2 dimensions)")
  if (nrow(x) == 0L || ncol(x) == 0L)
    stop_arg(fn, arg, "is empty (", nrow(x), " x ", ncol(x), ")")
  # anyNA/min/max allocate nothing: no n x d logical garbage on the good path
  # (it would stay allocated until R's next gc, e.g. through a long .Call)
  if (anyNA(x) || !is.finite(min(x)) || !is.finite(max(x))) {
    i <- which(!is.finite(x))[1L]
    stop_arg(fn, arg, "contains NaN, NA or Inf (first at row ", (i - 1L) %% nrow(x) + 1L,
             ", column ", (i - 1L) %/% nrow(x) + 1L, ")")
  }
  storage.mode(x) <- "double"
  attributes(x) <- list(dim = dim(x))
  x
}

# bit64's integer64 (what data.table::fread and hdf5r give for big whole
# numbers) keeps the integers' bits in a double vector: read as doubles (by the
# gateway, matrix(), as.matrix()) 1 is 4.9e-324. Whole numbers up to 2^53 become
# doubles exactly; a larger one has no exact double: an error naming the
# argument. Data frames have their integer64 columns converted (named
# 'arg$column'); NA stays NA.
as_plain_numbers <- function(v, fn, arg) {
  if (is.data.frame(v)) {
    for (j in which(vapply(v, inherits, NA, "integer64")))
      v[[j]] <- as_plain_numbers(v[[j]], fn, paste0(arg, "$", names(v)[j]))
    return(v)
  }
  if (!inherits(v, "integer64")) return(v)
  if (!requireNamespace("bit64", quietly = TRUE))
    stop_arg(fn, arg, "is integer64; reading it needs the R package 'bit64'")
  lim <- bit64::as.integer64(max_whole)
  big <- which(v > lim | v < -lim)
  if (length(big))
    stop_arg(fn, arg, "holds an integer64 value beyond 2^53 (", as.character(v[big[1L]]),
             " at ", big[1L], "), which a double does not hold exactly")
  d <- suppressWarnings(as.double(v)) # (bit64 warns at 2^53 itself, which is exact)
  attributes(d) <- attributes(unclass(v))
  d
}

# Every integer64 anywhere in the arguments of a core call (an option given
# by name, valla_metrics' pred, ...) converted by as_plain_numbers, named by
# its place: an option list's element by its name, else the front's variable
# with $-paths. fn is the nearest calling front's `fn`.
plain_call_args <- function(args, exprs) {
  found <- function(v) inherits(v, "integer64") ||
    (is.list(v) && any(vapply(v, found, NA)))
  if (!any(vapply(args, found, NA))) return(args)
  fn <- calling_front()
  walk <- function(v, path) {
    if (inherits(v, "integer64")) return(as_plain_numbers(v, fn, path))
    nm <- names(v)
    for (i in seq_along(v)) {
      el <- if (!is.null(nm) && nzchar(nm[i])) nm[i] else sprintf("[[%d]]", i)
      sub <- if (!nzchar(path)) el else if (startsWith(el, "[[")) paste0(path, el) else
        paste0(path, "$", el)
      if (found(v[[i]])) v[[i]] <- walk(v[[i]], sub)
    }
    v
  }
  for (i in seq_along(args)) {
    e <- exprs[[i]]
    top <- if (is.symbol(e)) as.character(e) else sprintf("argument %d", i + 1L)
    if (found(args[[i]])) args[[i]] <- walk(args[[i]], if (identical(top, "opts")) "" else top)
  }
  args
}

# The name of the nearest front function on the stack (its `fn`, else its own
# name when it is exported), for messages raised below it.
calling_front <- function() {
  ns <- topenv()
  calls <- sys.calls()
  for (i in rev(seq_along(calls))) {
    env <- environment(sys.function(i))
    if (is.null(env) || !identical(topenv(env), ns)) next
    f <- get0("fn", envir = sys.frame(i), inherits = FALSE)
    if (is.character(f) && length(f) == 1L) return(f)
    head <- calls[[i]][[1L]]
    if (is.symbol(head) && as.character(head) %in% getNamespaceExports(ns))
      return(as.character(head))
  }
  "scalegp"
}

# A vector of positive finite numbers whose length is one of `lengths`.
check_positive <- function(v, fn, arg, lengths = 1L) {
  if (!is.numeric(v) || !length(v) %in% lengths) {
    what <- if (length(lengths) == 1L) lengths else paste(unique(lengths), collapse = " or ")
    stop_arg(fn, arg, "must be numeric of length ", what, " (got length ", length(v), ")")
  }
  if (any(!is.finite(v)) || any(v <= 0))
    stop_arg(fn, arg, "must be positive and finite (got ", paste(format(v), collapse = ", "), ")")
  as.double(v)
}

# A whole number >= min given as an integer or a double (doubles are exact up
# to 2^53). max is what the core takes: an R integer by default (the C field
# is an int); with a larger max the value is returned as a double (int64 in C).
check_count <- function(v, fn, arg, min = 0L, max = .Machine$integer.max) {
  if (!is.numeric(v) || length(v) != 1L || !is.finite(v) || v != round(v) || v < min)
    stop_arg(fn, arg, "must be a whole number >= ", min)
  if (v > max)
    stop_arg(fn, arg, "must be at most ", format(max, scientific = FALSE), " (got ",
             format(v, digits = 17), ")")
  if (max <= .Machine$integer.max) as.integer(v) else as.double(v)
}

# The largest whole number a double holds exactly (and the core's int64 takes).
max_whole <- 2^53

# One string; the core's kernel table checks the name (and words the error).
check_kernel <- function(kernel, fn) {
  if (!is.character(kernel) || length(kernel) != 1L || is.na(kernel))
    stop_arg(fn, "kernel", "must be one string")
  kernel
}

# NULL or 0: the OpenMP default; the core's rule bounds the count (at most
# 256, SGP_MAX_THREADS in sgp.h) and words the error.
check_threads <- function(threads, fn) {
  if (is.null(threads)) return(0L)
  if (!(is.numeric(threads) || is.logical(threads)) || length(threads) != 1L)
    stop_arg(fn, "threads", "must be one whole number (0 or NULL: the OpenMP default)")
  sgp_call(C_check_threads, as.double(threads), fn)
}

# One string out of `choices` (exact match); the error lists the choices.
check_choice <- function(value, choices, fn, arg) {
  if (!is.character(value) || length(value) != 1L || is.na(value))
    stop_arg(fn, arg, "must be one string")
  if (!value %in% choices)
    stop_arg(fn, arg, "is unknown: \"", value, "\"; use one of ",
             paste0("\"", choices, "\"", collapse = ", "))
  value
}

# Evaluates expr (a .Call whose output R allocates from the input sizes); when
# R cannot allocate it, the error names the argument that sets the size.
alloc_error_names <- function(expr, fn, arg, what) {
  tryCatch(expr, error = function(e) {
    if (!grepl("cannot allocate|too large", conditionMessage(e))) stop(e)
    stop_arg(fn, arg, what, ": ", conditionMessage(e))
  })
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# The options of a verb as the core defines them (name, kind, default, doc).
#' Options of a scalegp function, as the compiled core defines them
#'
#' Every option of \code{gp_laplace} and \code{valla} (more functions follow) is
#' defined once in the core: its name, kind, default and one line of doc. R and
#' Octave forward the options they are given by name; the core checks and stores
#' them.
#'
#' @param fn the function's name, e.g. \code{"gp_laplace"}.
#' @return A data frame with columns \code{name}, \code{kind}, \code{default}
#'   and \code{doc}.
#' @examples
#' scalegp_options("gp_laplace")
#' @export
scalegp_options <- function(fn) {
  fn <- as.character(fn)
  # the core's table (sgp_options_plain), read once per session: a table is fixed
  # for the loaded library, and a fit then crosses into C once
  t <- option_tables[[fn]]
  if (is.null(t)) {
    t <- sgp_call(C_options, fn)
    if (length(fn) == 1L && !is.na(fn)) assign(fn, t, envir = option_tables)
  }
  structure(as.data.frame(t[c("name", "kind", "default", "doc")], stringsAsFactors = FALSE),
            context = t$context)
}
option_tables <- new.env(parent = emptyenv())

option_default <- function(fn, name) {
  t <- scalegp_options(fn)
  eval(parse(text = t$default[t$name == name]), baseenv())
}

# The options given to a verb (every one by name), with R's own defaults for the
# context: verbose = interactive(), a seed drawn from R's RNG (so set.seed()
# makes a run reproducible), threads = getOption("scalegp.threads"); host =
# FALSE: none of them (a verb without randomness, threads or output: ski_grid).
verb_options <- function(fn, opts, host = TRUE) {
  nm <- names(opts)
  if (length(opts) && (is.null(nm) || any(!nzchar(nm))))
    stop(sprintf("%s: options after the data must be given by name (argument %d is not)", fn,
                 which(if (is.null(nm)) rep(TRUE, length(opts)) else !nzchar(nm))[1L]),
         call. = FALSE)
  if (anyDuplicated(nm)) stop_arg(fn, nm[anyDuplicated(nm)], "is given twice")
  if (!host) return(opts)
  if (is.null(opts[["verbose"]])) opts$verbose <- interactive()
  # (a verb whose table has its own seed row keeps the core's default: ski_stats)
  if (is.null(opts[["seed"]]) && !"seed" %in% scalegp_options(fn)$name)
    opts$seed <- as.double(sample.int(.Machine$integer.max, 1L))
  if (is.null(opts[["threads"]]) && !is.null(getOption("scalegp.threads")))
    opts$threads <- getOption("scalegp.threads")
  opts
}

as_doubles <- function(v) if (is.null(v) || !is.numeric(v)) v else as.double(v)

# One real number as a double, its range left to the core (one message for R
# and Octave: the core's).
check_number <- function(v, fn, arg) {
  if (!(is.numeric(v) || is.logical(v)) || length(v) != 1L || !is.null(dim(v)))
    stop_arg(fn, arg, "must be one real number")
  as.double(v)
}

# Numbers as print and summary show them, "%.<digits>g" joined by spaces: a C
# format, so Octave's scalegp_summary writes the same characters.
fmt_g <- function(v, digits = 4L) paste(sprintf("%.*g", as.integer(digits), as.double(v)), collapse = " ")

# A whole count ("%.0f": 100000, not R's 1e+05).
fmt_count <- function(v) sprintf("%.0f", as.double(v))

# A base-graphics call whose arguments the user's ... override: plot(fit, main =
# "...", xlab = ..., ylim = ...) replaces the method's own defaults.
plot_call <- function(fun, ..., .user = list()) {
  args <- list(...)
  nm <- names(args)
  keep <- if (is.null(nm)) rep(TRUE, length(args)) else !nzchar(nm) | !nm %in% names(.user)
  do.call(fun, c(args[keep], .user))
}

# Column names of a matrix or data frame input (NULL when it has none).
input_colnames <- function(x) {
  cn <- if (is.data.frame(x)) names(x) else colnames(x)
  if (is.null(cn) || anyNA(cn) || !all(nzchar(cn))) NULL else cn
}

# New data's columns in the order of the fit's names (when both have names): a
# reordered data frame or matrix gives the same predictions; other names are an
# error instead of a silently different answer.
match_columns <- function(newdata, names_fit, fn, arg) {
  cn <- input_colnames(newdata)
  if (is.null(names_fit) || is.null(cn)) return(newdata)
  miss <- setdiff(names_fit, cn)
  if (length(miss))
    stop_arg(fn, arg, "lacks the column", if (length(miss) > 1L) "s", " ",
             paste0("'", miss, "'", collapse = ", "), " of the fit's inputs")
  newdata[, names_fit, drop = FALSE]
}

# The package's .Call entries, one per verb, registered in src/init.c as C_<verb>
# (the verbs of Octave's __sgp_call__): sgp_call(C_laplace_fit, x, y, ...).
# Integer64 values are made doubles on the way (plain_call_args). The call is
# built from `args[[i]]`, not from the values, so that an error's call stays short.
sgp_call <- function(entry, ...) {
  args <- plain_call_args(list(...), as.list(substitute(list(...)))[-1L])
  eval(as.call(c(quote(.Call), quote(entry),
                 lapply(seq_along(args), function(i) call("[[", quote(args), i)))))
}
