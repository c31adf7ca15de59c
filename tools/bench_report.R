# Writes the generated section of docs/benchmarks.md from the BENCH lines of
# benchmark logs (make bench-report; make bench calls it last).
#
#   Rscript tools/bench_report.R [--out=docs/benchmarks.md] LOG...
#   (default LOG: every build/bench/*.log; each make bench* target tees its
#   output to build/bench/<target>.log)
#
# A BENCH line is "BENCH <name> key=value ...": one table per name, a column per
# key (in the order keys first appear), words without "=" in a column "note".
# A log's first line "BENCH-RUN target=... commit=... date=..." (written by the
# Makefile) says which target printed it, at which commit (a "+" after it: with
# uncommitted changes) and when; a log without one is named by its file. The
# first uptime line of a log gives the load average (1 minute) at the start.
# The section lies between the two marker comments below and is the only part
# of the page written: the narrative around it is left as it is. Each table
# keeps its own machine, date and commit, and a table whose name no log given
# here holds is kept as it was (one target's run replaces only its tables).
# No dependencies beyond base R.

begin_marker <- "<!-- bench-report: begin (written by tools/bench_report.R; edits here are overwritten) -->"
end_marker <- "<!-- bench-report: end -->"

# Splits a BENCH line into its name and its fields (a named character vector).
parse_bench_line <- function(line) {
  tok <- strsplit(trimws(sub("^.*?BENCH[[:space:]]+", "", line, perl = TRUE)), "[[:space:]]+")[[1]]
  name <- tok[1]
  tok <- tok[-1]
  kv <- grepl("^[^=]+=", tok)
  fields <- sub("^[^=]+=", "", tok[kv])
  names(fields) <- sub("=.*$", "", tok[kv])
  fields <- fields[!duplicated(names(fields))]
  if (any(!kv)) fields <- c(fields, note = paste(tok[!kv], collapse = " "))
  list(name = name, fields = fields)
}

# The BENCH lines of one log, with its provenance.
read_bench_log <- function(path) {
  lines <- readLines(path, warn = FALSE)
  run <- grep("^BENCH-RUN ", lines, value = TRUE)
  info <- c(target = sub("[.]log$", "", basename(path)), commit = "unknown",
            date = format(file.mtime(path), "%Y-%m-%d"))
  if (length(run)) {
    f <- parse_bench_line(sub("^BENCH-RUN", "BENCH run", run[1]))$fields
    info[intersect(names(f), names(info))] <- f[intersect(names(f), names(info))]
  }
  # the targets that print uptime before their run: the load then
  up <- grep("load average:", lines, value = TRUE)
  info[["load"]] <- if (length(up)) sub(",.*$", "", sub("^.*load average:[[:space:]]*", "", up[1])) else ""
  rows <- lapply(grep("^[[:space:]]*BENCH[[:space:]]", lines, value = TRUE), parse_bench_line)
  list(info = info, rows = rows)
}

# The machine this runs on: CPU model, logical cores, memory.
machine_line <- function(cpuinfo = "/proc/cpuinfo", meminfo = "/proc/meminfo") {
  cpu <- if (file.exists(cpuinfo)) readLines(cpuinfo, warn = FALSE) else character()
  model <- sub("^[^:]*:[[:space:]]*", "", grep("^model name", cpu, value = TRUE)[1])
  if (is.na(model)) model <- "unknown CPU"
  cores <- sum(grepl("^processor[[:space:]]*:", cpu))
  if (cores == 0) cores <- parallel::detectCores()
  mem <- if (file.exists(meminfo)) grep("^MemTotal:", readLines(meminfo, warn = FALSE), value = TRUE) else ""
  kb <- suppressWarnings(as.numeric(gsub("[^0-9]", "", mem)))
  sprintf("%s, %s logical cores, %s", gsub("[[:space:]]+", " ", model), cores,
          if (length(kb) && !is.na(kb)) sprintf("%.1f GiB memory", kb / 2^20) else "memory unknown")
}

# One markdown table: a row per BENCH line, a column per key.
bench_table <- function(rows) {
  keys <- unique(unlist(lapply(rows, function(r) names(r$fields))))
  keys <- c(setdiff(keys, "note"), intersect("note", keys))
  cell <- function(r, k) {
    v <- r$fields[k]
    if (is.na(v)) "" else gsub("|", "\\|", v, fixed = TRUE)
  }
  body <- vapply(rows, function(r) paste0("| ", paste(vapply(keys, cell, "", r = r),
                                                        collapse = " | "), " |"), "")
  c(paste0("| ", paste(keys, collapse = " | "), " |"),
    paste0("|", paste(rep("---", length(keys)), collapse = "|"), "|"), body)
}

# The blocks of a generated section by name: "### <name>" up to the next one.
split_blocks <- function(lines) {
  heads <- grep("^### ", lines)
  blocks <- list()
  for (i in seq_along(heads)) {
    last <- if (i < length(heads)) heads[i + 1] - 1 else length(lines)
    b <- lines[heads[i]:last]
    while (length(b) && !nzchar(b[length(b)])) b <- b[-length(b)]
    blocks[[sub("^### `?([^`]*)`?.*$", "\\1", lines[heads[i]])]] <- b
  }
  blocks
}

# The new section's lines from the logs, keeping the old section's other blocks.
bench_section <- function(logs, old = character(), machine = machine_line()) {
  blocks <- split_blocks(old)
  parsed <- lapply(logs, read_bench_log)
  names_all <- unique(unlist(lapply(parsed, function(p) vapply(p$rows, `[[`, "", "name"))))
  for (nm in names_all) {
    rows <- list()
    from <- character()
    for (p in parsed) {
      mine <- Filter(function(r) r$name == nm, p$rows)
      if (!length(mine)) next
      rows <- c(rows, mine)
      from <- c(from, sprintf("`make %s`, %s, commit %s%s", p$info[["target"]],
                              p$info[["date"]], p$info[["commit"]],
                              if (nzchar(p$info[["load"]])) paste0(", load average ", p$info[["load"]], " at the start") else ""))
    }
    blocks[[nm]] <- c(sprintf("### `%s`", nm), "",
                      paste0("From ", paste(unique(from), collapse = "; "), "; ", machine, "."),
                      "", bench_table(rows))
  }
  blocks <- blocks[order(names(blocks))]
  c(begin_marker, "",
    "## Tables of the BENCH lines",
    "",
    paste("Every benchmark prints one `BENCH <name> key=value ...` line per figure;",
          "`make bench` and `make bench-report` gather them from `build/bench/<target>.log`",
          "into a table per name, with the machine, date and commit of the run."),
    "", unlist(lapply(blocks, function(b) c(b, ""))), end_marker)
}

# Replaces the section between the markers (appended when there is none).
write_bench_report <- function(out, logs, machine = machine_line()) {
  page <- if (file.exists(out)) readLines(out, warn = FALSE) else character()
  b <- which(page == begin_marker)
  e <- which(page == end_marker)
  if (length(b) > 1 || length(e) > 1 || length(b) != length(e) ||
      (length(b) && e < b))
    stop(out, ": the bench-report markers are not one begin followed by one end")
  if (length(b)) {
    old <- if (e > b + 1) page[(b + 1):(e - 1)] else character()
    heads <- grep("^### ", old)
    old <- if (length(heads)) old[heads[1]:length(old)] else character()
    before <- page[seq_len(b - 1)]
    after <- page[-seq_len(e)]
  } else {
    old <- character()
    before <- if (length(page) && nzchar(page[length(page)])) c(page, "") else page
    after <- character()
  }
  writeLines(c(before, bench_section(logs, old, machine), after), out)
  invisible(out)
}

if (sys.nframe() == 0L) {
  args <- commandArgs(trailingOnly = TRUE)
  out <- sub("^--out=", "", grep("^--out=", args, value = TRUE))
  if (!length(out)) out <- file.path("docs", "benchmarks.md")
  logs <- grep("^--", args, value = TRUE, invert = TRUE)
  if (!length(logs)) logs <- Sys.glob(file.path("build", "bench", "*.log"))
  if (!length(logs)) stop("bench_report: no logs given and none in build/bench")
  missing <- logs[!file.exists(logs)]
  if (length(missing)) stop("bench_report: no such log: ", paste(missing, collapse = ", "))
  write_bench_report(out, logs)
  n <- sum(vapply(logs, function(l) length(read_bench_log(l)$rows), 0L))
  cat(sprintf("bench_report: %d BENCH lines from %d logs into %s\n", n, length(logs), out))
}
