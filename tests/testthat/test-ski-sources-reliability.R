# Chunk sources that hold faults: each CSV line is read once, by position (a
# blank line is skipped, never a data row), anything else that is not the
# header's count of numbers is an error naming the file, the line and the data
# row, HDF5 errors name the file and the dataset, integer64 values are read as
# the whole numbers they are, and a chunk retried in the master says so. The
# statistics equal those of the same rows in memory: bitwise for the same
# blocks and keys (blockwise), to rounding for one pass. Data are multiples of
# 2^-10 and 2^-3, so the CSV round trip is exact.

rel_data <- function(n = 1200, seed = 7) {
  set.seed(seed)
  x <- cbind(round(runif(n) * 1024) / 1024, round(runif(n) * 1024) / 1024)
  y <- round(8 * (sin(5 * x[, 1]) + x[, 2])) / 8
  list(x = x, y = y, grid = ski_grid(range = rbind(c(0, 1), c(0, 1)), grid_size = c(12, 10)))
}

rel_lines <- function(d, rows) c("a,b,y", sprintf("%.17g,%.17g,%.17g", d$x[rows, 1], d$x[rows, 2],
                                                 d$y[rows]))

# Bytes of a file: lines joined by "\n", `insert` (raw) placed after line `after`.
rel_write <- function(path, lines, insert = NULL, after = 0L) {
  b <- lapply(lines, function(l) c(charToRaw(l), as.raw(10L)))
  if (!is.null(insert)) b <- append(b, list(insert), after = after)
  writeBin(unlist(b), path)
  path
}


rel_cluster <- function() {
  cl <- parallel::makeCluster(2L)
  parallel::clusterCall(cl, function(p) .libPaths(p), .libPaths())
  cl
}

rel_error <- function(expr) tryCatch({ expr; "no error" }, error = function(e) conditionMessage(e))

test_that("blank lines are skipped, never a data row, sequentially and on a PSOCK cluster", {
  skip_if_not_installed("data.table")
  d <- rel_data()
  dir <- tempfile("rel")
  dir.create(dir)
  L1 <- rel_lines(d, 1:600)
  L2 <- rel_lines(d, 601:1200)
  f1 <- rel_write(file.path(dir, "a.csv"), L1, as.raw(10L), after = 301L) # after data row 300
  # whitespace only, "\r\n" endings, and blank lines at the end
  L2[2:11] <- paste0(L2[2:11], "\r")
  f2 <- rel_write(file.path(dir, "b.csv"), c(L2[1:250], " \t", L2[251:601], "", ""))
  idx <- list(1:600, 601:1200)
  one <- ski_stats(d$x, d$y, d$grid)
  cl <- rel_cluster()
  on.exit(parallel::stopCluster(cl), add = TRUE)
  for (engine in list(NULL, cl)) {
    s <- ski_stats(c(f1, f2), d$grid, x = c("a", "b"), y = "y", block_rows = 250, probes = 2,
                   cluster = engine, verbose = FALSE)
    expect_equal(s$n, 1200)
    expect_equal(s$chunks$rows, c(600, 600))
    expect_sources_stats(s, ski_grouped(d, idx, if (is.null(engine)) 1 else 2, probes = 2))
    for (f in c("yty", "ysum", "Wty", "Wt1", "WtW")) expect_equal(s[[f]], one[[f]], label = f)
  }
  # the file of the report: 12000 rows, a blank line after row 6000, blocks of 5000
  d2 <- rel_data(12000, seed = 2)
  big <- rel_write(file.path(dir, "big.csv"), rel_lines(d2, 1:12000), as.raw(10L), after = 6001L)
  for (engine in list(NULL, cl)) {
    s <- ski_stats(c(big, big), d2$grid, x = c("a", "b"), y = "y", block_rows = 5000,
                   cluster = engine, verbose = FALSE)
    expect_equal(s$n, 24000)
    ref2 <- ski_grouped(list(x = rbind(d2$x, d2$x), y = c(d2$y, d2$y), grid = d2$grid),
                        list(1:12000, 12001:24000), if (is.null(engine)) 1 else 2)
    expect_sources_stats(s, ref2)
  }
})

test_that("a line that is not the header's count of numbers names the file, line and data row", {
  skip_if_not_installed("data.table")
  d <- rel_data(400)
  dir <- tempfile("rel")
  dir.create(dir)
  f1 <- rel_write(file.path(dir, "good.csv"), rel_lines(d, 1:200))
  set.seed(3)
  bad <- list(
    "# comment" = list(charToRaw("# comment"), " has 1 field; the header has 3"),
    "missing field" = list(charToRaw("0.5,0.5"), " has 2 fields; the header has 3"),
    "extra field" = list(charToRaw("0.5,0.5,1,2"), " has 4 fields; the header has 3"),
    "empty field" = list(charToRaw("0.5,,1"), ", field 2 is empty"),
    "text row" = list(charToRaw("0.5,oops,1"), ", field 2 is not a number (\"oops\")"),
    "NUL byte" = list(c(charToRaw("0.5,0.5,1"), as.raw(0L)), " contains a NUL byte"),
    "bytes that are not text" = list(as.raw(sample(128:255, 30, TRUE)),
                                     " has 1 field; the header has 3"))
  cl <- rel_cluster()
  on.exit(parallel::stopCluster(cl), add = TRUE)
  for (what in names(bad)) {
    # after data row 150 of the second file: its line 152, data row 151
    f2 <- rel_write(file.path(dir, "bad.csv"), rel_lines(d, 201:400),
                    c(bad[[what]][[1]], as.raw(10L)), after = 151L)
    want <- sprintf("ski_stats: chunk 2 (%s) failed twice: %s: line 152 (data row 151)%s", f2, f2,
                    bad[[what]][[2]])
    for (engine in list(NULL, cl))
      expect_identical(rel_error(ski_stats(c(f1, f2), d$grid, x = 1:2, y = 3, block_rows = 64,
                                           cluster = engine, verbose = FALSE)), want,
                       label = what)
  }
  # random bytes anywhere (newlines, NULs included) are an error naming a line, never data
  for (seed in 1:5) {
    set.seed(seed)
    f2 <- rel_write(file.path(dir, "noise.csv"), rel_lines(d, 201:400),
                    as.raw(sample(0:255, 200, TRUE)), after = 101L)
    expect_match(rel_error(ski_stats(c(f1, f2), d$grid, x = 1:2, y = 3, block_rows = 64,
                                     verbose = FALSE)),
                 sprintf("failed twice: %s: line 1[0-9][0-9] \\(data row [0-9]+\\)", f2),
                 fixed = FALSE, label = sprintf("random bytes, seed %d", seed))
  }
})

test_that("a block read in several takes of text is the same block", {
  skip_if_not_installed("data.table")
  # takes of at most 700 bytes (about 14 lines): every block of 100 data rows
  # is put together from several, across blank lines and "\r\n" endings
  old <- scalegp:::ski_take_bytes
  utils::assignInNamespace("ski_take_bytes", 700, "scalegp")
  on.exit(utils::assignInNamespace("ski_take_bytes", old, "scalegp"), add = TRUE)
  d <- rel_data(600)
  L <- rel_lines(d, 1:600)
  L[100:140] <- paste0(L[100:140], "\r")
  f <- rel_write(tempfile(fileext = ".csv"), c(L[1:50], "", "", L[51:300], " ", L[301:601]))
  s <- ski_stats(f, d$grid, x = 1:2, y = 3, block_rows = 100, probes = 2, verbose = FALSE)
  ref <- ski_grouped(d, list(1:600), probes = 2)
  expect_sources_stats(s, ref)
  # "\r\n" endings throughout, the last line without one (fread's own reading)
  crlf <- tempfile(fileext = ".csv")
  writeBin(charToRaw(paste(rel_lines(d, 1:600), collapse = "\r\n")), crlf)
  s2 <- ski_stats(crlf, d$grid, x = 1:2, y = 3, block_rows = 100, probes = 2, verbose = FALSE)
  expect_sources_stats(s2, ref)
  # a line longer than a take, and a fault after many takes
  long <- paste0(strrep("0", 2000), "0.5,0.5,1")
  rel_write(f, c(L[1:200], long, L[201:400], "0.5;0.5;1"))
  expect_identical(rel_error(ski_stats(f, d$grid, x = 1:2, y = 3, block_rows = 100, verbose = FALSE)),
                   sprintf("ski_stats: chunk 1 (%s) failed twice: %s: line 402 (data row 401) has 1 field; the header has 3",
                           f, f))
})

test_that("a header-only, blank-headed or empty file is named and said to be so", {
  skip_if_not_installed("data.table")
  d <- rel_data(50)
  dir <- tempfile("rel")
  dir.create(dir)
  g <- d$grid
  one <- function(f) rel_error(ski_stats(f, g, x = c("a", "b"), y = "y", verbose = FALSE))
  f <- rel_write(file.path(dir, "h.csv"), "a,b,y")
  expect_identical(one(f), sprintf(
    "ski_stats: chunk 1 (%s) failed twice: %s: the file has no data rows (only the header)", f, f))
  rel_write(f, c("a,b,y", "", " "))
  expect_match(one(f), "the file has no data rows (only the header)", fixed = TRUE)
  writeBin(raw(0), f)
  expect_identical(one(f), sprintf("ski_stats: chunk 1 (%s) failed twice: %s: the file is empty",
                                   f, f))
  rel_write(f, c("", "1,2,3"))
  expect_match(one(f), sprintf("%s: line 1 (the header) is blank", f), fixed = TRUE)
  rel_write(f, rel_lines(d, 1:50))
  expect_equal(ski_stats(f, g, x = c("a", "b"), y = "y", verbose = FALSE)$n, 50)
  expect_identical(rel_error(ski_stats(f, g, x = c("a", "w"), y = "y", verbose = FALSE)),
                   sprintf(paste("ski_stats: chunk 1 (%s) failed twice: %s: 'x' names a column",
                                 "the file does not have (w); it has a, b, y"), f, f))
})

test_that("an error in a later file's block names the file and the row, not an internal key", {
  skip_if_not_installed("data.table")
  d <- rel_data(200)
  dir <- tempfile("rel")
  dir.create(dir)
  f1 <- rel_write(file.path(dir, "a.csv"), rel_lines(d, 1:100))
  L2 <- rel_lines(d, 101:200)
  L2[4] <- "0.25,3,1" # data row 3 of file 2, outside the grid
  f2 <- rel_write(file.path(dir, "b.csv"), c(L2[1:2], "", L2[3:101])) # a blank line before it
  msg <- rel_error(ski_stats(c(f1, f2), d$grid, x = 1:2, y = 3, block_rows = 2, verbose = FALSE))
  expect_match(msg, sprintf("failed twice: ski_stats: 'x' data row 3 (line 5 of %s), column 2 (3)",
                            f2), fixed = TRUE)
  expect_false(grepl("1099511627", msg))
  L2[4] <- "0.25,0.5,NA"
  rel_write(f2, L2)
  expect_match(rel_error(ski_stats(c(f1, f2), d$grid, x = 1:2, y = 3, verbose = FALSE)),
               sprintf("'y' contains NaN, NA or Inf (first at data row 3 (line 4 of %s))", f2),
               fixed = TRUE)
  # function chunks: the row of the chunk
  fns <- list(function() list(x = d$x[1:5, ], y = d$y[1:5]),
              function() list(x = rbind(d$x[1:2, ], c(0.5, 3)), y = d$y[1:3]))
  msg <- rel_error(ski_stats(fns, d$grid, verbose = FALSE))
  expect_match(msg, "chunk 2 (function 2) failed twice: ski_stats: 'x' row 3 of the chunk, column 2",
               fixed = TRUE)
})

test_that("HDF5 errors name the file and the datasets, never the library's report", {
  skip_if_not_installed("hdf5r")
  d <- rel_data(1200)
  path <- tempfile(fileext = ".h5")
  f <- hdf5r::H5File$new(path, mode = "w")
  f[["x"]] <- d$x
  f[["y"]] <- d$y[1:1000]
  f[["y2"]] <- cbind(d$y, d$y)
  f[["x3"]] <- array(0.5, c(1200, 2, 2))
  f[["s"]] <- rep("a", 1200)
  f$close_all()
  one <- function(...) rel_error(ski_stats(path, d$grid, ..., verbose = FALSE))
  pre <- sprintf("ski_stats: chunk 1 (%s) failed twice: %s: ", path, path)
  expect_identical(one(x = "x", y = "y"), paste0(pre,
    "dataset 'x' (x) has 1200 rows but 'y' (y) has 1000 values (an n-by-d matrix written by R ",
    "or Octave has the HDF5 dims {d, n})"))
  expect_identical(one(x = "x", y = "y2"), paste0(pre,
                   "dataset 'y2' (y) is a 1200-by-2 matrix, not a vector"))
  expect_identical(one(x = "x3", y = "y"), paste0(pre,
                   "dataset 'x3' has 3 dimensions; 'x' and 'y' must have 1 or 2"))
  expect_identical(one(x = "s", y = "y"), paste0(pre, "dataset 's' is not numeric"))
  expect_identical(one(x = "x", y = "nope"), paste0(pre, "the file has no dataset 'nope'"))
  expect_identical(one(x = "x", y = "no/pe"), paste0(pre, "the file has no dataset 'no/pe'"))
  # not an HDF5 file, and one damaged past its superblock
  txt <- tempfile(fileext = ".h5")
  writeLines("a,b\n1,2", txt)
  expect_identical(rel_error(ski_stats(txt, d$grid, x = "x", y = "y", verbose = FALSE)),
                   sprintf("ski_stats: chunk 1 (%s) failed twice: %s: the file is not an HDF5 file",
                           txt, txt))
  # (bytes that no metadata points to may be damaged unseen: HDF5 has no checksum of data)
  bytes <- readBin(path, "raw", file.size(path))
  for (dmg in c("cut 1000", "50", "800")) {
    bad <- bytes[seq_len(if (dmg == "cut 1000") 1000L else length(bytes))]
    if (dmg != "cut 1000") {
      set.seed(4)
      from <- as.integer(dmg)
      bad[from:(from + 200L)] <- as.raw(sample(0:255, 201L, TRUE))
    }
    dmg <- tempfile(fileext = ".h5")
    writeBin(bad, dmg)
    msg <- rel_error(ski_stats(dmg, d$grid, x = "x", y = "y", verbose = FALSE))
    expect_match(msg, sprintf("failed twice: %s: ", dmg), fixed = TRUE)
    expect_false(grepl("HDF5-API|error #0|H5[A-Z]|outside the dataset|Number of arguments", msg),
                 label = msg)
  }
})

test_that("integer64 values are the whole numbers they hold, up to 2^53; beyond, an error", {
  skip_if_not_installed("bit64")
  i64 <- bit64::as.integer64
  expect_identical(gp_kernel(i64(c(1, 5, 9)), lengthscale = 3), gp_kernel(c(1, 5, 9), lengthscale = 3))
  df <- data.frame(a = i64(c(1, 5, 9)), b = c(0.5, 0.25, 2))
  expect_identical(gp_kernel(df, lengthscale = 3), gp_kernel(cbind(c(1, 5, 9), df$b), lengthscale = 3))
  expect_error(gp_kernel(i64("9007199254740993"), lengthscale = 1),
               "gp_kernel: 'x' holds an integer64 value beyond 2^53 (9007199254740993 at 1)",
               fixed = TRUE)
  expect_error(gp_kernel(data.frame(a = i64(c("1", "-9007199254740993"))), lengthscale = 1),
               "gp_kernel: 'x$a' holds an integer64 value beyond 2^53", fixed = TRUE)
  # 2^53 itself is whole and exact
  expect_identical(gp_kernel(i64(2^53) - i64(c(0, 2)), lengthscale = 1),
                   gp_kernel(2^53 - c(0, 2), lengthscale = 1))
  # an option given by name: gp_laplace's poisson offset
  set.seed(5)
  x <- matrix(runif(20), 20)
  cnt <- rpois(20, 2)
  o <- list(likelihood = "poisson", lengthscale = 0.3, outputscale = 1, learn = character(0),
            verbose = FALSE, seed = 1)
  a <- do.call(gp_laplace, c(list(x, cnt, offset = i64(rep(1, 20))), o))
  b <- do.call(gp_laplace, c(list(x, cnt, offset = rep(1, 20)), o))
  expect_identical(a$offset, b$offset)
  expect_false(is.null(a$f))
  expect_identical(a$f, b$f)
  expect_identical(do.call(gp_laplace, c(list(x, i64(cnt), offset = rep(1, 20)), o))$f, b$f)
  expect_error(gp_laplace(x, i64(c(rep("1", 19), "9007199254740993")), likelihood = "poisson",
                          verbose = FALSE), "gp_laplace: 'y' holds an integer64 value beyond 2^53",
               fixed = TRUE)
  expect_error(gp_laplace(x, cnt, likelihood = "poisson", offset = i64(rep("9007199254740995", 20)),
                          verbose = FALSE), "gp_laplace: 'offset' holds an integer64 value beyond 2^53",
               fixed = TRUE)
  # the formula interface: a data frame's integer64 column, in the fit and in newdata
  d64 <- data.frame(a = i64(c(1, 5, 9, 2)), y = c(0.1, 0.5, 0.9, 0.2))
  dd <- data.frame(a = c(1, 5, 9, 2), y = d64$y)
  fo <- list(lengthscale = 3, grid_size = 10, learn = character(0), verbose = FALSE)
  f64 <- do.call(ski_gsgp, c(list(y ~ a, d64), fo))
  fd <- do.call(ski_gsgp, c(list(y ~ a, dd), fo))
  expect_identical(f64$grid$bounds, fd$grid$bounds)
  expect_identical(predict(f64, data.frame(a = i64(c(1, 5))))$mean,
                   predict(fd, data.frame(a = c(1, 5)))$mean)
  expect_error(predict(fd, data.frame(a = i64("9007199254740993"))),
               "predict.ski_gsgp: 'newdata$a' holds an integer64 value beyond 2^53", fixed = TRUE)
  # valla_metrics: labels and predictions
  p <- list(mean = c(0, 1, 2), var = c(1, 0.5, 1))
  expect_identical(valla_metrics(p, i64(c(1, 5, 9))), valla_metrics(p, c(1, 5, 9)))
  expect_identical(valla_metrics(list(mean = i64(c(0, 1, 2)), var = p$var), c(1, 5, 9)),
                   valla_metrics(p, c(1, 5, 9)))
  expect_error(valla_metrics(p, i64(c("1", "2", "-9007199254740993"))),
               "valla_metrics: 'y' holds an integer64 value beyond 2^53 (-9007199254740993 at 3)",
               fixed = TRUE)
  expect_error(valla_metrics(list(mean = i64(c("0", "1", "9007199254740993")), var = p$var), 1:3),
               "valla_metrics: 'pred$mean' holds an integer64 value beyond 2^53", fixed = TRUE)
  # ski_stats: x and y of a chunk function, and in memory
  g <- ski_grid(range = rbind(c(0, 40), c(0, 1)), grid_size = c(12, 10))
  xs <- cbind(c(3, 17, 29, 40), c(0.25, 0.5, 0.75, 0.125))
  ys <- c(2, 7, 1, 4)
  ref <- ski_stats(xs, ys, g)
  s <- ski_stats(data.frame(a = i64(xs[, 1]), b = xs[, 2]), i64(ys), g)
  for (f in ski_stats_fields) expect_identical(s[[f]], ref[[f]], label = f)
  sf <- ski_stats(list(function() list(x = data.frame(a = i64(xs[, 1]), b = xs[, 2]), y = i64(ys))),
                  g, verbose = FALSE)
  for (f in c("n", "yty", "ysum", "Wty", "Wt1", "WtW")) expect_identical(sf[[f]], ref[[f]], label = f)
})

test_that("a CSV of big whole numbers is read as their doubles", {
  skip_if_not_installed("data.table")
  base <- 2^52
  x <- base + c(0, 2^40, 3 * 2^40, 2^45, 2^46, 7 * 2^42)
  y <- c(1, 2, 3, 4, 5, 6) + 2^53 # y whole numbers near 2^53: exact doubles
  f <- tempfile(fileext = ".csv")
  writeLines(c("x,y", sprintf("%.0f,%.0f", x, y)), f)
  g <- ski_grid(range = c(base, base + 2^46), grid_size = 9)
  ref <- ski_stats(x, y, g)
  s <- ski_stats(f, g, x = "x", y = "y", block_rows = 4, verbose = FALSE)
  # blocks of 4 rows added to one accumulator: the statistics in memory, to the bit
  for (fld in c("n", "yty", "ysum", "Wty", "Wt1", "WtW")) expect_identical(s[[fld]], ref[[fld]])
  # beyond 2^53 the text is read as the nearest double, as any decimal is
  writeLines(c("x,y", sprintf("%.0f,9007199254740993", x)), f)
  expect_equal(ski_stats(f, g, x = "x", y = "y", verbose = FALSE)$ysum, 6 * 2^53)
})

test_that("a chunk retried in the master after its worker died is labelled so", {
  skip_on_os("windows")
  d <- rel_data(200)
  master <- Sys.getpid()
  dies <- function() {
    if (Sys.getpid() != master) quit(save = "no") # the worker process ends
    list(x = d$x[1:100, ], y = d$y[1:100])
  }
  good <- function() list(x = d$x[101:200, ], y = d$y[101:200])
  cl <- rel_cluster()
  on.exit(try(parallel::stopCluster(cl), silent = TRUE), add = TRUE)
  msgs <- character(0)
  s <- withCallingHandlers(ski_stats(list(dies, good), d$grid, cluster = cl, verbose = TRUE),
                           message = function(m) {
                             msgs <<- c(msgs, sub("\n$", "", conditionMessage(m)))
                             invokeRestart("muffleMessage")
                           })
  expect_equal(s$n, 200)
  expect_true(any(grepl("^ski_stats: chunk 1 \\(function 1\\) failed \\(.*\\); retried here",
                        msgs)), label = paste(msgs, collapse = " | "))
  # (the dead worker fails its whole batch: every chunk retried says so)
  for (k in 1:2) {
    retried <- any(grepl(sprintf("^ski_stats: chunk %d \\(function %d\\) failed", k, k), msgs))
    tag <- if (retried) "retried here" else "cluster"
    expect_true(any(grepl(sprintf("^ski_stats: chunk %d/2 \\(function %d\\): 100 rows \\[%s\\]$",
                                  k, k, tag), msgs)), label = paste(msgs, collapse = " | "))
  }
})

test_that("R and Octave word every fault of a chunk file alike", {
  root <- parity_skip()
  skip_if_not_installed("data.table")
  skip_if_not_installed("hdf5r")
  d <- rel_data(400)
  dir <- tempfile("relpar")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  rel_write(file.path(dir, "good.csv"), rel_lines(d, 1:200))
  L <- rel_lines(d, 201:400)
  set.seed(6)
  faults <- list(comment = charToRaw("# comment"), missing = charToRaw("0.5,0.5"),
                 extra = charToRaw("0.5,0.5,1,2"), empty_field = charToRaw("0.5,,1"),
                 text = charToRaw("0.5,oops,1"), long_text = charToRaw(paste0("0.5,", paste(rep("z", 60), collapse = ""), ",1")),
                 nul = c(charToRaw("0.5,0.5,1"), as.raw(0L)),
                 bytes = as.raw(sample(128:255, 30, TRUE)), random = as.raw(sample(0:255, 300, TRUE)),
                 outside = charToRaw("0.5,3,1"))
  cases <- character(0)
  for (nm in names(faults)) {
    rel_write(file.path(dir, paste0(nm, ".csv")), L, c(faults[[nm]], as.raw(10L)), after = 120L)
    cases <- c(cases, paste(nm, paste0(nm, ".csv")))
  }
  rel_write(file.path(dir, "blank.csv"), L, as.raw(c(32L, 9L, 13L, 10L)), after = 120L)
  rel_write(file.path(dir, "header.csv"), "a,b,y")
  writeBin(raw(0), file.path(dir, "zero.csv"))
  rel_write(file.path(dir, "blank_header.csv"), c("", L[-1]))
  h5 <- file.path(dir, "mismatch.h5")
  f <- hdf5r::H5File$new(h5, mode = "w")
  f[["x"]] <- d$x
  f[["y"]] <- d$y[1:300]
  f$close_all()
  writeLines("not HDF5", file.path(dir, "text.h5"))
  cases <- c(cases, "blank blank.csv", "header header.csv", "zero zero.csv",
             "blank_header blank_header.csv", "mismatch mismatch.h5", "text_h5 text.h5")
  writeLines(cases, file.path(dir, "cases"))
  Sys.setenv(SCALEGP_PARITY_FAULTS = dir)
  on.exit(Sys.unsetenv("SCALEGP_PARITY_FAULTS"), add = TRUE)
  oct <- parity_run_octave(root, "parity-ski-sources-faults.m")
  g <- d$grid
  good <- file.path(dir, "good.csv")
  for (cs in strsplit(cases, " ")) {
    p <- file.path(dir, cs[2])
    r <- if (grepl("\\.h5$", p)) rel_error(ski_stats(p, g, x = "x", y = "y", verbose = FALSE)) else
      rel_error(ski_stats(c(good, p), g, x = 1:2, y = 3, block_rows = 64, verbose = FALSE))
    expect_identical(r, oct[[cs[1]]], label = cs[1])
    expect_true(cs[1] == "blank" || grepl(p, r, fixed = TRUE), label = r)
  }
})
