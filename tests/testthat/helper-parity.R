# Helpers of the R-vs-Octave parity tests (test-parity-*.R): the same calls in
# both hosts on the same doubles. Octave runs in a child octave-cli on the
# oct-files built in the source tree (make -C bindings_octave/src
# CORE_DIR=../../core; make check does it) and prints "N name v1 v2 ..." (numbers
# as %.17g) or "S name text" lines that R reads back.

parity_root <- function() {
  root <- normalizePath(test_path("..", ".."), mustWork = FALSE)
  if (!file.exists(file.path(root, "bindings_octave", "inst", "valla.m"))) return(NULL)
  root
}

parity_skip <- function() {
  # make check sets SCALEGP_PARITY=required: there a missing Octave is a failure
  miss <- function(why) if (identical(Sys.getenv("SCALEGP_PARITY"), "required")) stop(why) else skip(why)
  if (!nzchar(Sys.which("octave-cli"))) miss("octave-cli is not on PATH")
  root <- parity_root()
  if (is.null(root)) skip("not run from the source tree")
  if (!file.exists(file.path(root, "bindings_octave", "src", "__sgp_call__.oct")))
    miss("Octave oct-files not built (make -C bindings_octave/src CORE_DIR=../../core)")
  root
}

parity_run_octave <- function(root, script_name) {
  out <- tempfile(fileext = ".txt")
  script <- tempfile(fileext = ".m")
  on.exit(unlink(c(out, script)), add = TRUE)
  writeLines(c(sprintf("OUT = \"%s\";", out),
               sprintf("addpath (\"%s\");", file.path(root, "bindings_octave", "src")),
               sprintf("addpath (\"%s\");", file.path(root, "bindings_octave", "inst")),
               sprintf("source (\"%s\");", normalizePath(test_path("parity-emit.m"))),
               sprintf("source (\"%s\");", normalizePath(test_path(script_name)))), script)
  log <- suppressWarnings(system2("octave-cli", c("--no-gui", "--norc", "--no-history", script),
                                  stdout = TRUE, stderr = TRUE))
  if (!file.exists(out)) stop("octave-cli failed:\n", paste(log, collapse = "\n"))
  lines <- readLines(out)
  key <- sub("^[NS] (\\S+).*$", "\\1", lines)
  val <- lapply(lines, function(l) {
    rest <- sub("^[NS] \\S+ ?", "", l)
    if (startsWith(l, "S ")) rest else as.numeric(strsplit(trimws(rest), " +")[[1L]])
  })
  stats::setNames(val, key)
}


# R's option table of fn as the Octave side prints it ("name=default;...").
parity_option_line <- function(fn) {
  o <- scalegp_options(fn)
  paste(paste0(o$name, "=", o$default), collapse = ";")
}

# R's print(summary(fit)) equals Octave's scalegp_summary (its lines under
# oct[["<key>.summary.<i>"]]), after mask (a function of the lines cutting what
# legitimately differs, e.g. timings) is applied to both.
parity_expect_summary <- function(fit, oct, key, mask = identity) {
  r <- utils::capture.output(print(summary(fit)))
  o <- vapply(seq_len(oct[[paste0(key, ".summary.n")]]), function(i)
    oct[[sprintf("%s.summary.%d", key, i)]], "")
  expect_identical(mask(r), mask(o), label = sprintf("R's summary of %s", key))
}

# R's error with the fields of an argument in Octave's syntax: 'grid$size' is
# 'grid.size', 'b$grid$bounds' is 'b.grid.bounds' (the core names a field with the
# host's separator; the rest of the text is the same in both hosts).
parity_field_message <- function(msg) {
  m <- gregexpr("'[A-Za-z0-9_.$]+'", msg)
  regmatches(msg, m) <- lapply(regmatches(msg, m), function(q) gsub("$", ".", q, fixed = TRUE))
  msg
}

# Each call's error text in R (in Octave's field syntax) equals Octave's
# (oct[[paste0(key, name)]]) and has the one form "fn: ...".
parity_expect_errors <- function(calls, oct, key, fn) {
  env <- parent.frame()
  for (name in names(calls)) {
    r <- tryCatch({ eval(calls[[name]], env); "no error" },
                  error = function(e) conditionMessage(e))
    expect_identical(parity_field_message(r), oct[[paste0(key, name)]],
                     label = sprintf("R's %s error %s", fn, name))
    expect_match(r, paste0("^", fn, ": "), label = sprintf("%s error %s in the one form", fn, name))
  }
}

# R's predict error in Octave's names: predict.<class> is scalegp_predict, the fit
# 'object' is 'fit' (fields 'object$root' are 'fit.root'), 'newdata' is 'xnew'; the
# rest of the text is the core's, the same in both hosts.
parity_predict_message <- function(msg) {
  msg <- sub("^predict\\.[a-z_]+: ", "scalegp_predict: ", msg)
  msg <- gsub("'object\\$([A-Za-z0-9_]+)\\$", "'object$\\1.", msg)  # a nested field: love$c0
  msg <- gsub("'object\\$", "'fit.", msg)
  gsub("'newdata'", "'xnew'", gsub("'object'", "'fit'", msg))
}

# Each predict call's error text in R, in Octave's names, equals Octave's
# scalegp_predict error (oct[[paste0(key, name)]]).
parity_expect_predict_errors <- function(calls, oct, key) {
  env <- parent.frame()
  for (name in names(calls)) {
    r <- tryCatch({ eval(calls[[name]], env); "no error" },
                  error = function(e) conditionMessage(e))
    expect_match(r, "^predict\\.[a-z_]+: ", label = sprintf("predict error %s in the one form", name))
    expect_identical(parity_predict_message(r), oct[[paste0(key, name)]],
                     label = sprintf("R's predict error %s", name))
  }
}

# Every field of R's x (a fit, its network, nested lists and data frames) against
# the Octave side's emit_fields lines under `name`: the same sorted field names
# (without R's class), numbers to `tol` (logicals and integers as doubles, NULL as
# Octave's []), the same strings; an unnamed list's element i is <name>.<i>.
parity_expect_fields <- function(x, oct, name, tol = 1e-10) {
  if (is.list(x) && !is.null(names(x))) {
    expect_identical(paste(sort(names(x)), collapse = ","), oct[[paste0(name, ".fields")]],
                     label = paste(name, "field names"))
    for (f in names(x)) parity_expect_fields(x[[f]], oct, paste0(name, ".", f), tol)
  } else if (is.list(x)) {
    for (i in seq_along(x)) parity_expect_fields(x[[i]], oct, paste0(name, ".", i), tol)
  } else if (is.character(x)) {
    expect_identical(paste(x, collapse = ","), oct[[name]], label = name)
  } else {
    expect_equal(as.numeric(x), oct[[name]], tolerance = tol, label = name)
  }
}
