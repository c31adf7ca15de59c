# CSV chunk sources: one open connection read forward by bytes, so each line is
# read once, by position, whatever a line holds (a re-read from a line count
# that a parser's own idea of lines set would skip or repeat rows). A block is
# block_rows data rows; blank lines are skipped (never a data row), anything
# else that is not exactly the header's count of numbers is an error naming
# the file, the line (1-based, the header is line 1) and the data row (1-based,
# blank lines not counted). Octave's reader (private/ski_csv_reader.m) follows
# the same rules and words.

# Text is taken at most this many bytes at a time (a block of more is read in
# several takes): an R string holds < 2^31 bytes, and one take's bytes, string
# and parse are held together.
ski_take_bytes <- 2^28

# Lines of a file in order: take(n) gives the next k <= n lines (fewer where
# they would pass ski_take_bytes, at least one) as one string s (joined by
# newlines; a NUL byte, which R strings cannot hold, replaced by \001), the
# number of the first, the lines (of these) holding a NUL, whether any has a
# "\r", and `clean`: no NUL, space, tab, empty line or "\r" but before a
# newline, so s is k data lines as they are. lines(t) splits a take into
# lines (a "\r" before the newline removed). Byte scans are grepRaw's (C, no
# logical vector per byte).
ski_line_source <- function(path) {
  con <- file(path, open = "rb")
  buf <- raw(0)
  eof <- FALSE
  done <- 0 # lines given out so far
  bpl <- 64 # bytes per line, re-estimated from what was read
  has <- function(byte, x) length(grepRaw(as.raw(byte), x, fixed = TRUE)) > 0L
  take <- function(n) {
    nl <- grepRaw(as.raw(10L), buf, fixed = TRUE, all = TRUE)
    pieces <- list(buf)
    total <- length(buf)
    while (!eof && length(nl) < n && (total < ski_take_bytes || !length(nl))) {
      want <- min(ski_take_bytes, max(65536, ceiling(1.25 * (n - length(nl)) * bpl)))
      more <- readBin(con, "raw", want)
      if (length(more) < want) eof <<- TRUE
      nl <- c(nl, total + grepRaw(as.raw(10L), more, fixed = TRUE, all = TRUE))
      pieces[[length(pieces) + 1L]] <- more
      total <- total + length(more)
    }
    if (length(pieces) > 1L) buf <<- unlist(pieces, use.names = FALSE)
    found <- length(nl)
    k <- min(n, found)
    if (k > 1L && nl[k] > ski_take_bytes) k <- max(1L, sum(nl[seq_len(k)] <= ski_take_bytes))
    nl <- nl[seq_len(k)]
    end <- if (k > 0) nl[k] else 0L
    if (eof && k == found && k < n && length(buf) > end) {
      k <- k + 1L # the last line, without its newline
      end <- length(buf)
      nl <- c(nl, end + 1L)
    }
    first <- done + 1
    if (k == 0) return(list(s = "", k = 0L, first = first, nul = integer(0), cr = FALSE,
                            clean = TRUE, open = FALSE))
    bytes <- buf[seq_len(if (nl[k] == end) end - 1L else end)] # the last newline left out
    buf <<- if (end < length(buf)) buf[(end + 1L):length(buf)] else raw(0)
    bpl <<- end / k
    done <<- done + k
    nul <- integer(0)
    if (has(0L, bytes)) {
      z <- which(bytes == as.raw(0L))
      nul <- unique(findInterval(z, c(0L, nl[-k])))
      bytes[z] <- as.raw(1L)
    }
    # a "\r" only before a newline ("\r\n" endings) leaves the text clean for fread
    crs <- grepRaw(as.raw(13L), bytes, fixed = TRUE, all = TRUE)
    ends <- c(nl[-k] - 1L, length(bytes)) # each line's last byte
    len <- ends - c(0L, nl[-k]) - (ends %in% crs) # its length without that "\r"
    clean <- !length(nul) && all(crs %in% ends) && !has(32L, bytes) && !has(9L, bytes) &&
      all(len > 0L)
    list(s = rawToChar(bytes), k = k, first = first, nul = nul, cr = length(crs) > 0L,
         clean = clean, open = k == 1L || length(bytes) %in% crs)
  }
  lines <- function(t) {
    text <- strsplit(t$s, "\n", fixed = TRUE, useBytes = TRUE)[[1L]]
    length(text) <- t$k # strsplit gives no field for a last empty line
    text[is.na(text)] <- ""
    if (t$cr) sub("\r$", "", text, useBytes = TRUE) else text
  }
  list(take = take, lines = lines, close = function() close(con))
}

ski_blank_lines <- function(text) grepl("^[ \t]*$", text, useBytes = TRUE)

# Fields of a header or data line: split at commas (a trailing empty field
# kept), spaces and tabs around each removed.
ski_csv_fields <- function(text) {
  f <- strsplit(paste0(text, ","), ",", fixed = TRUE, useBytes = TRUE)
  lapply(f, function(v) gsub("^[ \t]+|[ \t]+$", "", v, useBytes = TRUE))
}

ski_plural <- function(n, what) sprintf("%d %s%s", n, what, if (n == 1) "" else "s")

ski_csv_header <- function(src, path) {
  h <- src$take(1L)
  if (!h$k) stop(sprintf("%s: the file is empty", path), call. = FALSE)
  if (length(h$nul)) stop(sprintf("%s: line 1 (the header) contains a NUL byte", path), call. = FALSE)
  text <- sub("^\xef\xbb\xbf", "", src$lines(h), useBytes = TRUE) # a UTF-8 byte order mark
  if (ski_blank_lines(text)) stop(sprintf("%s: line 1 (the header) is blank", path), call. = FALSE)
  names <- ski_csv_fields(text)[[1L]]
  sub('^"(.*)"$', "\\1", names, useBytes = TRUE)
}

# A number as both readers take it: decimal, or Inf / NaN / NA (which the
# checks of the data then name).
ski_number_re <- "^[+-]?(([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?|[Ii]nf|NaN|NA)$"

ski_csv_reader <- function(path, xsel, ysel, block_rows) {
  ski_need("data.table", "reading CSV chunks")
  src <- ski_line_source(path)
  ok <- FALSE
  on.exit(if (!ok) src$close())
  header <- ski_csv_header(src, path)
  xi <- ski_columns(xsel, header, "x", path)
  yi <- ski_columns(ysel, header, "y", path)
  if (length(yi) != 1L) stop(sprintf("%s: 'y' must name one column", path), call. = FALSE)
  nc <- length(header)
  rows <- 0 # data rows read so far
  next_block <- function() {
    parts <- list()
    at <- list()
    got <- 0
    while (got < block_rows) {
      t <- src$take(block_rows - got)
      if (!t$k) break
      p <- ski_csv_take(src, t, nc, rows + got, path)
      parts[[length(parts) + 1L]] <- p$v
      at[[length(at) + 1L]] <- p$line
      got <- got + nrow(p$v)
    }
    if (!got) {
      if (rows == 0) stop(sprintf("%s: the file has no data rows (only the header)", path),
                          call. = FALSE)
      return(NULL)
    }
    v <- if (length(parts) == 1L) parts[[1L]] else do.call(rbind, parts)
    rows <<- rows + got
    list(x = v[, xi, drop = FALSE], y = v[, yi], line = unlist(at, use.names = FALSE))
  }
  ok <- TRUE
  list(next_block = next_block, close = src$close, where = function(r, line)
    sprintf("data row %.0f (line %.0f of %s)", r, line, path))
}

# One take's data rows (rows before it) as a matrix with their file lines:
# fread on the text as it is when it is clean, else its lines without the
# blank ones; a NUL byte is named after the lines before it are read (the
# first fault in the file is the one named).
ski_csv_take <- function(src, t, nc, rows, path) {
  if (t$clean) { # the common case: k data lines, read as they are
    # (fread takes a string without a newline for a file name, and a last "\r"
    # without one for part of the field)
    v <- ski_csv_fread(if (t$open) paste0(t$s, "\n") else t$s, t$k, nc)
    if (!is.null(v)) return(list(v = v, line = t$first - 1 + seq_len(t$k)))
  }
  all <- src$lines(t)
  keep <- !ski_blank_lines(all)
  if (length(t$nul)) {
    i <- t$nul[1L]
    before <- which(keep[seq_len(i - 1L)])
    ski_csv_parse(all[before], t$first - 1 + before, nc, rows, path)
    stop(sprintf("%s: line %.0f (data row %.0f) contains a NUL byte", path, t$first + i - 1,
                 rows + length(before) + 1), call. = FALSE)
  }
  line <- t$first - 1 + which(keep)
  list(v = ski_csv_parse(all[keep], line, nc, rows, path), line = line)
}

# k lines in one string as a k-by-nc matrix, or NULL unless fread reads them
# as exactly that, every value a number ("NA" or an empty field is left to
# the strict reading, which words it; fread's own recovery skips or splits
# lines, so only a full count of rows is taken).
ski_csv_fread <- function(s, k, nc) {
  b <- tryCatch(data.table::fread(text = s, sep = ",", header = FALSE, skip = 0L, quote = "",
                                  colClasses = rep("double", nc), fill = FALSE,
                                  blank.lines.skip = FALSE, strip.white = TRUE,
                                  showProgress = FALSE),
                warning = function(w) NULL, error = function(e) NULL)
  if (is.null(b) || ncol(b) != nc || nrow(b) != k || !all(vapply(b, is.double, NA))) return(NULL)
  v <- unname(as.matrix(b))
  if (anyNA(v)) NULL else v
}

# A block's lines (no blank one) as an n-by-nc matrix: fread when it reads
# every line as nc numbers, else the strict reading line by line, which names
# the first line that is not. (A string with a newline: fread writes a vector
# of lines to a temporary file first, and takes one without for a file name.)
ski_csv_parse <- function(text, line, nc, rows, path) {
  if (!length(text)) return(matrix(0, 0, nc))
  v <- if (!any(grepl("\r", text, fixed = TRUE, useBytes = TRUE)))
    ski_csv_fread(paste0(paste(text, collapse = "\n"), "\n"), length(text), nc)
  if (is.null(v)) ski_csv_strict(text, line, nc, rows, path) else v
}

ski_csv_strict <- function(text, line, nc, rows, path) {
  f <- ski_csv_fields(text)
  nf <- lengths(f)
  num <- lapply(f, function(v) grepl(ski_number_re, v, perl = TRUE, useBytes = TRUE))
  bad <- which(nf != nc | !vapply(num, all, NA))
  if (length(bad)) {
    i <- bad[1L]
    at <- sprintf("%s: line %.0f (data row %.0f)", path, line[i], rows + i)
    if (nf[i] != nc)
      stop(sprintf("%s has %s; the header has %d", at, ski_plural(nf[i], "field"), nc), call. = FALSE)
    j <- which(!num[[i]])[1L]
    v <- f[[i]][j]
    plain <- grepl("^[ -~]+$", v, useBytes = TRUE) # (substr needs valid characters)
    what <- if (!nzchar(v)) "is empty" else if (!plain) "is not a number (not plain text)" else
      sprintf("is not a number (\"%s%s\")", substr(v, 1, 40), if (nchar(v) > 40) "..." else "")
    stop(sprintf("%s, field %d %s", at, j, what), call. = FALSE)
  }
  # (as.numeric warns of "NA", a number here that the data's checks name)
  matrix(suppressWarnings(as.numeric(unlist(f, use.names = FALSE))), ncol = nc, byrow = TRUE)
}
