# Documentation of the options from the core's tables (issue 12): the roxygen
# "Options" section of a verb (@eval in its roxygen block; make docs) and the
# texinfo block of its Octave help (tools/option_docs.R writes it between
# markers), so that no option is described outside the core's table.

# R's own defaults of the context options (the core's are for C callers).
r_host_defaults <- c(verbose = "interactive()", seed = "NULL",
                     threads = "getOption(\"scalegp.threads\")")
octave_host_defaults <- c(verbose = "false", seed = "[]", threads = "0")
r_host_notes <- c(seed = "; NULL draws one from R's RNG, so set.seed() makes a run reproducible")
octave_host_notes <- c(seed = "; [] draws one with rand")

verb_option_rows <- function(fn) {
  rbind(scalegp_options(fn), scalegp_options("context"))
}

rd_escape <- function(s) gsub("([%{}\\\\])", "\\\\\\1", s)

rd_options <- function(fn) {
  t <- verb_option_rows(fn)
  def <- ifelse(t$name %in% names(r_host_defaults), r_host_defaults[t$name], t$default)
  doc <- paste0(t$doc, ifelse(t$name %in% names(r_host_notes), r_host_notes[t$name], ""))
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
  def <- t$default
  def <- ifelse(def == "TRUE", "true", ifelse(def == "FALSE", "false",
                ifelse(def == "NULL", "[]", def)))
  def <- ifelse(t$name %in% names(octave_host_defaults), octave_host_defaults[t$name], def)
  def <- ifelse(grepl("^\"", def), sprintf("@qcode{%s}", def), sprintf("@code{%s}", def))
  doc <- paste0(t$doc, ifelse(t$name %in% names(octave_host_notes), octave_host_notes[t$name], ""))
  doc <- gsub("([@{}])", "@\\1", doc)
  c(sprintf("## @item @qcode{\"%s\"}", t$name), sprintf("## %s (default %s).", doc, def))[
    order(rep(seq_len(nrow(t)), 2))]
}
