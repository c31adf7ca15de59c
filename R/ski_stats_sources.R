# ski_stats over chunk sources: files read in row blocks or functions that
# return a chunk. The chunks are cut into as many groups of consecutive chunks
# as the engine (a parallel cluster, a future plan, else this process) has
# workers; a group's blocks are added in order to one running accumulator, so
# its statistics are those of its rows in memory to the bit (sequentially: the
# whole data's), and the core merges the groups in order. The result depends on
# the rows and the worker count, not on the engine, the files or the blocks.

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

# A running accumulator of the statistics (the core's, added to in place:
# sgp_ski_stats_acc), made at the first block so that option errors arise in
# a chunk as a block's would. n: the points accumulated so far.
ski_acc <- function(grid, opts) {
  env <- new.env(parent = emptyenv())
  env$n <- 0
  add <- function(x, y, first_row) {
    if (is.null(env$ptr)) {
      env$opts <- verb_options("ski_stats", c(opts, list(verbose = FALSE)))
      env$ptr <- sgp_call(C_ski_acc_new, grid, env$opts)
    }
    env$n <- sgp_call(C_ski_acc_add, env$ptr, x, y, as.double(first_row))
  }
  # stats() frees the accumulator (C memory, which R's collector does not
  # count), as free() does
  list(add = add, n = function() env$n,
       stats = function() structure(sgp_call(C_ski_acc_stats, env$ptr, grid, env$opts),
                                    class = "ski_stats"),
       free = function() if (!is.null(env$ptr)) sgp_call(C_ski_acc_stats, env$ptr, NULL, NULL))
}

# One chunk's blocks added in order to acc (run by a worker): the rows read,
# the points used and the rows (1-based within the chunk) that bounds_policy
# "drop" left out.
ski_chunk_stats <- function(task, acc) {
  fn <- "ski_stats"
  rd <- ski_source_reader(task$source, task$x, task$y, task$block_rows)
  on.exit(rd$close())
  rows <- 0
  before <- acc$n()
  dropped <- numeric(0)
  grid <- task$grid
  repeat {
    b <- rd$next_block()
    if (is.null(b)) break
    named <- function(offset) function(e) ski_block_error(e, offset, rows, b$line, rd$where)
    x <- tryCatch(as_input_matrix(b$x, fn, "x"), error = named(0))
    y <- tryCatch(ski_check_y(b$y, nrow(x), fn), error = named(0))
    key <- (task$k - 1) * ski_chunk_key + rows
    tryCatch(acc$add(x, y, key), error = named(key))
    if (task$drop)
      dropped <- c(dropped, rows + sgp_call(C_ski_outside, x, as.double(grid$size), grid$bounds,
                                         grid$interpolation))
    rows <- rows + nrow(x)
  }
  if (rows == 0) stop("the chunk has no rows", call. = FALSE)
  list(rows = rows, used = acc$n() - before, dropped = dropped)
}

# A group of consecutive chunks (run by a worker): all their blocks added in
# order to one accumulator, so a chunk costs what its rows cost and the group's
# statistics are those of its rows in memory, to the bit. ok FALSE: chunk `at`
# (NULL: unknown) failed, for `reason`; the accumulator then holds part of a
# chunk, so the group is redone as a whole.
ski_group_stats <- function(group) {
  acc <- ski_acc(group$tasks[[1L]]$grid, group$tasks[[1L]]$opts)
  on.exit(acc$free())
  chunks <- vector("list", length(group$tasks))
  for (j in seq_along(group$tasks)) {
    r <- tryCatch(list(ok = TRUE, value = ski_chunk_stats(group$tasks[[j]], acc)),
                  error = function(e) list(ok = FALSE, at = j, reason = conditionMessage(e)))
    if (!r$ok) return(r)
    chunks[[j]] <- r$value
  }
  tryCatch(list(ok = TRUE, stats = acc$stats(), chunks = chunks),
           error = function(e) list(ok = FALSE, at = length(chunks), reason = conditionMessage(e)))
}

ski_try_group <- function(group) {
  tryCatch(ski_group_stats(group),
           error = function(e) list(ok = FALSE, at = NULL, reason = conditionMessage(e)))
}

# Chunks 1..K in w groups of consecutive chunks, as equal in count as can be.
ski_groups <- function(K, w) {
  w <- max(1L, min(K, w))
  split(seq_len(K), rep(seq_len(w), times = diff(round(seq(0, K, length.out = w + 1L)))))
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
      parallel::clusterApply(cluster, tasks, ski_try_group),
      interrupt = function(i) ski_interrupt_workers(cluster, pids, seq_along(cluster) <= length(tasks)))
    return(list(name = "cluster", width = length(cluster), run = run))
  }
  if (requireNamespace("future", quietly = TRUE) && requireNamespace("future.apply", quietly = TRUE) &&
      !inherits(future::plan(), "sequential"))
    return(list(name = "future", width = max(1L, future::nbrOfWorkers()),
                run = function(tasks) future.apply::future_lapply(tasks, ski_try_group,
                                                                  future.seed = NULL)))
  list(name = "sequential", width = 1L, run = function(tasks) lapply(tasks, ski_try_group))
}

# The groups on the engine; a failure of the engine itself (a dead worker)
# fails every group with its message.
ski_run_batch <- function(engine, tasks) {
  tryCatch(engine$run(tasks), error = function(e)
    rep(list(list(ok = FALSE, at = NULL, reason = paste("the worker failed:", conditionMessage(e)))),
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
  groups <- ski_groups(K, engine$width)
  group <- function(g) list(tasks = lapply(groups[[g]], task))
  out <- ski_run_batch(engine, lapply(seq_along(groups), group))
  for (g in seq_along(groups)) {
    ks <- groups[[g]]
    r <- out[[g]]
    where <- engine$name
    if (!isTRUE(r$ok)) {
      if (verbose)
        for (k in if (is.null(r$at)) ks else ks[r$at])
          message(sprintf("%s: chunk %d (%s) failed (%s); retried here", fn, k, info$source[k],
                          r$reason))
      r <- ski_try_group(group(g)) # the group redone once, here
      where <- "retried here"
    }
    if (!isTRUE(r$ok)) {
      k <- ks[if (is.null(r$at)) 1L else r$at]
      stop(sprintf("%s: chunk %d (%s) failed twice: %s", fn, k, info$source[k], r$reason),
           call. = FALSE)
    }
    acc <- if (is.null(acc)) r$stats else ski_stats_merge(acc, r$stats)
    for (j in seq_along(ks)) {
      k <- ks[j]
      v <- r$chunks[[j]]
      info[k, c("rows", "used", "dropped")] <- c(v$rows, v$used, length(v$dropped))
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
