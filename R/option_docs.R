# Documentation of the options from the core's tables (ARCHITECTURE.md, "Options"): the roxygen
# "Options" section of a verb (@eval in its roxygen block; make docs) and the
# texinfo block of its Octave help (tools/option_docs.R writes it between
# markers), so that no option is described outside the core's table.

# R's own defaults of the context options (the core's are for C callers).
r_host_defaults <- c(verbose = "interactive()", seed = "NULL",
                     threads = "getOption(\"scalegp.threads\")")
octave_host_defaults <- c(verbose = "false", seed = "[]", threads = "0")
r_host_notes <- c(seed = "; NULL draws one from R's RNG, so set.seed() makes a run reproducible")
octave_host_notes <- c(seed = "; [] draws one with rand")

# A verb's rows, then the context's rows it takes (none for ski_grid: its table
# says so), host = TRUE.
verb_option_rows <- function(fn) {
  t <- scalegp_options(fn)
  ctx <- scalegp_options("context")
  ctx <- ctx[!ctx$name %in% t$name & isTRUE(attr(t, "context")), ]  # a verb's own row wins
  cbind(rbind(t, ctx), host = rep(c(FALSE, TRUE), c(nrow(t), nrow(ctx))))
}

# The host's default of a context row (R's or Octave's own), else the core's.
host_value <- function(t, values) {
  ifelse(t$host & t$name %in% names(values), values[t$name], "")
}

rd_escape <- function(s) gsub("([%{}\\\\])", "\\\\\\1", s)

rd_options <- function(fn) {
  t <- verb_option_rows(fn)
  h <- host_value(t, r_host_defaults)
  def <- ifelse(nzchar(h), h, t$default)
  doc <- paste0(t$doc, host_value(t, r_host_notes))
  c("@section Options:",
    paste0("Given by name after the data. Every option's name, kind, default, range and the ",
           "check of its value are defined once in the compiled core (",
           "\\code{scalegp_options(\"", fn, "\")}); R and Octave forward them."),
    "\\describe{",
    sprintf("  \\item{\\code{%s} (default \\code{%s})}{%s.}", t$name, rd_escape(def),
            rd_escape(doc)),
    "}")
}

octave_options_block <- function(fn) {
  t <- verb_option_rows(fn)
  h <- host_value(t, octave_host_defaults)
  def <- ifelse(t$default == "TRUE", "true", ifelse(t$default == "FALSE", "false",
                ifelse(t$default == "NULL", "[]", t$default)))
  def <- ifelse(nzchar(h), h, def)
  def <- ifelse(grepl("^\"", def), sprintf("@qcode{%s}", def), sprintf("@code{%s}", def))
  doc <- gsub("([@{}])", "@\\1", paste0(t$doc, host_value(t, octave_host_notes)))
  own <- !t$host
  rows <- c(sprintf("## @item @qcode{\"%s\"}", t$name[own]),
            sprintf("## %s (default %s).", doc[own], def[own]))[order(rep(seq_len(sum(own)), 2))]
  if (all(own)) return(rows)
  # the context's options in one item (the same in every function's help)
  c(rows, paste0("## @item ", paste(sprintf("@qcode{\"%s\"}", t$name[!own]), collapse = ", ")),
    paste0("## ", paste(sprintf("%s (default %s)", doc[!own], def[!own]), collapse = "; "), "."))
}
