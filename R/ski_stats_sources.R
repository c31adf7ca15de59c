# ski_stats over chunk sources: files read in row blocks or functions that
# return a chunk, each chunk's statistics computed on a parallel cluster, a
# future plan or sequentially, and merged by the core in chunk order (so the
# result depends on the chunking only, not on the engine or the worker count).

# Rows of chunk k are keyed (the probe sketches' random numbers) from
# (k - 1) * 2^40: a worker needs no row counts of the chunks before its own.
ski_chunk_key <- 2^40
ski_max_chunks <- 8192 # keys stay below 2^53 (first_row's range)

ski_is_grid <- function(v) {
  inherits(v, c("ski_grid", "ski_stats", "ski_gsgp")) ||
    (is.list(v) && all(c("size", "bounds", "interpolation") %in% names(v)))
}

ski_is_sources <- function(v) {
  if (is.character(v)) return(length(v) > 0L)
  is.list(v) && !is.data.frame(v) && !ski_is_grid(v) && length(v) > 0L &&
    all(vapply(v, function(s) is.function(s) || (is.character(s) && length(s) == 1L), TRUE))
}

# The call forms of ski_stats with sources: (sources, grid, x = cols, y = col),
# (sources, grid = g, x =, y =) and (functions, grid). NULL: not a sources call.
ski_sources_call <- function(x, y, grid, dots) {
  unnamed <- if (is.null(names(dots))) seq_along(dots) else which(!nzchar(names(dots)))
  first <- if (length(unnamed)) dots[[unnamed[1L]]]
  opts <- if (length(unnamed)) dots[-unnamed[1L]] else dots
  if (!is.null(grid) && ski_is_sources(grid) && ski_is_grid(first))
    return(list(sources = grid, grid = first, x = x, y = y, opts = opts))
  if (!is.null(grid) && ski_is_grid(grid) && ski_is_sources(first))
    return(list(sources = first, grid = grid, x = x, y = y, opts = opts))
  if (!is.null(x) && ski_is_sources(x) && !is.null(y) && ski_is_grid(y) && is.null(grid))
    return(list(sources = x, grid = y, x = NULL, y = NULL, opts = dots))
  NULL
}

# A label for messages: the file name, or "function k".
ski_source_label <- function(src, k) if (is.character(src)) src else sprintf("function %d", k)

# A chunk's reader: next_block() gives its blocks in order, list(x, y) (and
# for CSV the file line of each row), then NULL; close() frees the file;
# where(r, line) words the chunk's data row r (read from that line) for errors.
ski_source_reader <- function(src, xsel, ysel, block_rows) {
  if (is.function(src)) {
    done <- FALSE
    return(list(next_block = function() {
      if (done) return(NULL)
      done <<- TRUE
      out <- src()
      if (!is.list(out) || !all(c("x", "y") %in% names(out)))
        stop("the function must return list(x = <inputs>, y = <responses>)", call. = FALSE)
      out[c("x", "y")]
    }, close = function() NULL, where = function(r, line) sprintf("row %.0f of the chunk", r)))
  }
  if (!file.exists(src)) stop("cannot read the file (it does not exist)", call. = FALSE)
  if (is.null(xsel) || is.null(ysel))
    stop("files need 'x' (input columns) and 'y' (the response column)", call. = FALSE)
  if (grepl("\\.(h5|hdf5)$", src, ignore.case = TRUE)) return(ski_hdf5_reader(src, xsel, ysel, block_rows))
  ski_csv_reader(src, xsel, ysel, block_rows)
}

ski_need <- function(pkg, what) {
  if (!requireNamespace(pkg, quietly = TRUE))
    stop(sprintf("%s needs the R package '%s' (Debian: r-cran-%s)", what, pkg, tolower(pkg)),
         call. = FALSE)
}

# Columns by name or 1-based index against a file's header.
ski_columns <- function(sel, header, arg, path) {
  idx <- if (is.character(sel)) match(sel, header) else if (is.numeric(sel)) as.integer(sel) else NA
  bad <- is.na(idx) | idx < 1L | idx > length(header)
  if (!length(idx) || any(bad))
    stop(sprintf("%s: '%s' names a column the file does not have (%s); it has %s", path, arg,
                 format(sel[which(bad)[1L]]), paste(header, collapse = ", ")), call. = FALSE)
  idx
}

# An error of a block's statistics with its row named in the source: the
# checks of R count a block's rows from 1, the core from the block's key
# (first_row: (k - 1) 2^40 + the rows before, a number no user knows).
ski_block_error <- function(e, offset, rows, line, where) {
  msg <- conditionMessage(e)
  m <- regexec("(row |first at )([0-9]+)", msg)[[1L]]
  if (m[1L] > 0) {
    at <- regmatches(msg, list(m))[[1L]]
    i <- as.numeric(at[3L]) - offset
    if (i >= 1 && (is.null(line) || i <= length(line))) {
      lab <- paste0(if (at[2L] == "first at ") "first at ", where(rows + i, line[i]))
      msg <- paste0(substr(msg, 1L, m[1L] - 1L), lab,
                    substr(msg, m[1L] + nchar(at[1L]), nchar(msg)))
    }
  }
  stop(msg, call. = FALSE)
}

# One chunk's statistics (run by a worker): its blocks merged in order, the
# rows read and the rows (1-based within the chunk) that bounds_policy "drop"
# left out.
ski_chunk_stats <- function(task) {
  fn <- "ski_stats"
  rd <- ski_source_reader(task$source, task$x, task$y, task$block_rows)
  on.exit(rd$close())
  acc <- NULL
  rows <- 0
  dropped <- numeric(0)
  grid <- task$grid
  repeat {
    b <- rd$next_block()
    if (is.null(b)) break
    named <- function(offset) function(e) ski_block_error(e, offset, rows, b$line, rd$where)
    x <- tryCatch(as_input_matrix(b$x, fn, "x"), error = named(0))
    y <- tryCatch(ski_check_y(b$y, nrow(x), fn), error = named(0))
    key <- list(first_row = (task$k - 1) * ski_chunk_key + rows, verbose = FALSE)
    s <- tryCatch(do.call(ski_stats, c(list(x, y, grid), task$opts, key)),
                  error = named(key$first_row))
    if (task$drop)
      dropped <- c(dropped, rows + sgp_call(C_ski_outside, x, as.double(grid$size), grid$bounds,
                                         grid$interpolation))
    acc <- if (is.null(acc)) s else ski_stats_merge(acc, s)
    rows <- rows + nrow(x)
  }
  if (is.null(acc)) stop("the chunk has no rows", call. = FALSE)
  list(stats = acc, rows = rows, dropped = dropped)
}

ski_try_chunk <- function(task) {
  tryCatch(list(ok = TRUE, value = ski_chunk_stats(task)),
           error = function(e) list(ok = FALSE, reason = conditionMessage(e)))
}

# Ctrl-C during a batch on a cluster: the workers on this host (FORK, or PSOCK
# on localhost) get SIGINT, which makes R's worker loop drop its chunk and wait
# for the next call without answering; results that finished first are read and
# dropped, so the cluster is usable again. Remote workers finish their chunk.
ski_interrupt_workers <- function(cluster, pids, busy) {
  local <- vapply(cluster, function(nd) inherits(nd, "forknode") ||
                    identical(nd$host, "localhost") || identical(nd$host, Sys.info()[["nodename"]]),
                  TRUE)
  sig <- pids[busy & local & !is.na(pids)]
  if (length(sig)) tools::pskill(sig, tools::SIGINT)
  for (i in which(busy & local))
    if (!is.null(cluster[[i]]$con) && isTRUE(socketSelect(list(cluster[[i]]$con), timeout = 1)))
      try(unserialize(cluster[[i]]$con), silent = TRUE)
  invisible(length(sig))
}

# The engine: a parallel cluster, else a non-sequential future plan, else lapply.
ski_engine <- function(cluster, fn) {
  if (!is.null(cluster)) {
    if (!inherits(cluster, "cluster"))
      stop_arg(fn, "cluster", "must be a cluster from parallel::makeCluster (or NULL)")
    pids <- tryCatch(unlist(parallel::clusterCall(cluster, Sys.getpid)),
                     error = function(e) rep(NA_integer_, length(cluster)))
    run <- function(tasks) withCallingHandlers(
      parallel::clusterApply(cluster, tasks, ski_try_chunk),
      interrupt = function(i) ski_interrupt_workers(cluster, pids, seq_along(cluster) <= length(tasks)))
    return(list(name = "cluster", width = length(cluster), run = run))
  }
  if (requireNamespace("future", quietly = TRUE) && requireNamespace("future.apply", quietly = TRUE) &&
      !inherits(future::plan(), "sequential"))
    return(list(name = "future", width = max(1L, future::nbrOfWorkers()),
                run = function(tasks) future.apply::future_lapply(tasks, ski_try_chunk,
                                                                  future.seed = NULL)))
  list(name = "sequential", width = 1L, run = function(tasks) lapply(tasks, ski_try_chunk))
}

# A batch on the engine; a failure of the engine itself (a dead worker) fails
# every chunk of the batch with its message.
ski_run_batch <- function(engine, tasks) {
  tryCatch(engine$run(tasks), error = function(e)
    rep(list(list(ok = FALSE, reason = paste("the worker failed:", conditionMessage(e)))),
        length(tasks)))
}

ski_stats_sources <- function(call, cluster, block_rows, fn) {
  sources <- as.list(call$sources)
  K <- length(sources)
  if (K > ski_max_chunks) stop_arg(fn, "sources", "has ", K, " chunks; at most ", ski_max_chunks)
  grid <- structure(sgp_call(C_ski_grid_check, call$grid, fn, "grid"), class = "ski_grid")
  if (is.null(block_rows)) { # a block's data about the size of a chunk's statistics (m S numbers)
    shape <- sgp_call(C_ski_shape, as.double(grid$size), grid$bounds, grid$interpolation, fn)
    block_rows <- max(1e4, ceiling(shape[1] * shape[2] / (length(grid$size) + 1)))
  }
  block_rows <- check_number(block_rows, fn, "block_rows")
  if (!is.finite(block_rows) || block_rows < 1 || block_rows != round(block_rows))
    stop_arg(fn, "block_rows", "must be a whole number >= 1 (got ", format(block_rows), ")")
  opts <- call$opts
  verbose <- if (is.null(opts$verbose)) interactive() else isTRUE(as.logical(opts$verbose))
  opts$verbose <- NULL
  drop <- identical(tolower(as.character(opts$bounds_policy %||% "")), "drop")
  engine <- ski_engine(cluster, fn)
  task <- function(k) list(k = k, source = sources[[k]], x = call$x, y = call$y, grid = grid,
                           opts = opts, block_rows = block_rows, drop = drop)
  acc <- NULL
  info <- data.frame(source = vapply(seq_len(K), function(k) ski_source_label(sources[[k]], k), ""),
                     rows = 0, used = 0, dropped = 0, stringsAsFactors = FALSE)
  dropped <- vector("list", K)
  for (first in seq(1L, K, by = engine$width)) {
    ks <- first:min(K, first + engine$width - 1L)
    out <- ski_run_batch(engine, lapply(ks, task))
    for (j in seq_along(ks)) {
      k <- ks[j]
      r <- out[[j]]
      where <- engine$name
      if (!isTRUE(r$ok)) {
        if (verbose)
          message(sprintf("%s: chunk %d (%s) failed (%s); retried here", fn, k, info$source[k],
                          r$reason))
        r <- ski_try_chunk(task(k)) # retried once, here
        where <- "retried here"
      }
      if (!isTRUE(r$ok))
        stop(sprintf("%s: chunk %d (%s) failed twice: %s", fn, k, info$source[k], r$reason),
             call. = FALSE)
      v <- r$value
      acc <- if (is.null(acc)) v$stats else ski_stats_merge(acc, v$stats)
      info[k, c("rows", "used", "dropped")] <- c(v$rows, v$stats$n, length(v$dropped))
      dropped[[k]] <- v$dropped
      if (verbose)
        message(sprintf("%s: chunk %d/%d (%s): %g rows%s [%s]", fn, k, K, info$source[k], v$rows,
                        if (length(v$dropped)) sprintf(", %d dropped", length(v$dropped)) else "",
                        where))
    }
  }
  acc$chunks <- info
  acc$dropped <- dropped
  acc
}
