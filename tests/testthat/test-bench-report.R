# tools/bench_report.R (make bench-report) on small fake logs: the tables of the
# BENCH lines go between the markers of a page, the rest of the page is kept, a
# second run replaces only the tables of the names its logs hold. No benchmark
# runs. tools/ is two folders up in the source tree and absent in R CMD check.
bench_report_env <- function() {
  p <- file.path("..", "..", "tools", "bench_report.R")
  if (!file.exists(p)) skip("tools/bench_report.R: not in the source tree")
  env <- new.env()
  sys.source(p, envir = env)
  env
}

write_log <- function(dir, name, lines) {
  f <- file.path(dir, paste0(name, ".log"))
  writeLines(lines, f)
  f
}

test_that("a BENCH line splits into its name, its key=value fields and a note", {
  br <- bench_report_env()
  r <- br$parse_bench_line("BENCH ski_learn n=1e+06 m=128 pass=1.2s (krylov 12) learn=3s")
  expect_identical(r$name, "ski_learn")
  expect_identical(r$fields, c(n = "1e+06", m = "128", pass = "1.2s", learn = "3s",
                               note = "(krylov 12)"))
  expect_identical(br$parse_bench_line("BENCH x a=b=c")$fields, c(a = "b=c"))
})

test_that("the section goes between the markers and the narrative is kept", {
  br <- bench_report_env()
  dir <- tempfile("bench_report"); dir.create(dir)
  page <- file.path(dir, "benchmarks.md")
  writeLines(c("# Benchmarks", "", "Hand-written text.", "", "## GPU", "Last words."), page)
  log1 <- write_log(dir, "bench-kernel", c(
    "BENCH-RUN target=bench-kernel commit=abc1234 date=2024-05-01T10:00Z",
    " 10:00:00 up 1 day,  load average: 0.50, 0.70, 0.90",
    "threads 2: DGEMM 40.0 GFLOP/s",
    "BENCH kernel_rates threads=2 dgemm=40.0GFLOP/s",
    "BENCH kernel_bound n=5000 d=2 kernel=rbf median=0.10s",
    "BENCH kernel_bound n=5000 d=16 kernel=matern32 median=0.20s bits=same"))
  machine <- "Test CPU, 2 logical cores, 4.0 GiB memory"
  br$write_bench_report(page, log1, machine = machine)
  out <- readLines(page)
  b <- which(out == br$begin_marker)
  e <- which(out == br$end_marker)
  expect_length(b, 1)
  expect_length(e, 1)
  expect_identical(out[1:6], c("# Benchmarks", "", "Hand-written text.", "", "## GPU",
                               "Last words."))
  sec <- out[b:e]
  expect_true("### `kernel_bound`" %in% sec)
  expect_true("### `kernel_rates`" %in% sec)
  expect_true(paste0("From `make bench-kernel`, 2024-05-01T10:00Z, commit abc1234, ",
                     "load average 0.50 at the start; ",
                     machine, ".") %in% sec)
  # the union of the keys is the header; a row without a key has an empty cell
  expect_true("| n | d | kernel | median | bits |" %in% sec)
  expect_true("| 5000 | 2 | rbf | 0.10s |  |" %in% sec)
  expect_true("| 5000 | 16 | matern32 | 0.20s | same |" %in% sec)
  expect_false(any(grepl("up 1 day|DGEMM 40", sec)))  # only BENCH lines become rows

  # the same logs again: the same page
  br$write_bench_report(page, log1, machine = machine)
  expect_identical(readLines(page), out)

  # another target's log: its table added, the kernel tables kept as they were;
  # text after the section stays after it
  writeLines(c(readLines(page), "", "Text after the tables."), page)
  log2 <- write_log(dir, "ski", c("BENCH ski_iter n=1000 m=64 time=0.01s"))
  br$write_bench_report(page, log2, machine = "Other CPU")
  out2 <- readLines(page)
  sec2 <- out2[which(out2 == br$begin_marker):which(out2 == br$end_marker)]
  expect_true(all(sec[grepl("^(###|\\||From)", sec)] %in% sec2))
  expect_true("| n | m | time |" %in% sec2)
  expect_true(any(startsWith(sec2, "From `make ski`, ") & endsWith(sec2, "commit unknown; Other CPU.")))
  expect_identical(tail(out2, 1), "Text after the tables.")
  heads <- grep("^### ", sec2, value = TRUE)
  expect_identical(heads, sort(heads))

  # a rerun of the kernel target replaces its rows
  log3 <- write_log(dir, "bench-kernel", c("BENCH kernel_bound n=100 d=2 kernel=rbf median=0.01s"))
  br$write_bench_report(page, log3, machine = machine)
  out3 <- readLines(page)
  expect_false("| 5000 | 2 | rbf | 0.10s |  |" %in% out3)
  expect_true("| 100 | 2 | rbf | 0.01s |" %in% out3)
  expect_true("| n | m | time |" %in% out3)
})

test_that("a page without markers gets the section at its end; broken markers are an error", {
  br <- bench_report_env()
  dir <- tempfile("bench_report"); dir.create(dir)
  page <- file.path(dir, "b.md")
  writeLines(c("# B", "text"), page)
  log <- write_log(dir, "t", "BENCH a x=1")
  br$write_bench_report(page, log, machine = "M")
  out <- readLines(page)
  expect_identical(out[1:3], c("# B", "text", ""))
  expect_identical(out[4], br$begin_marker)
  expect_identical(tail(out, 1), br$end_marker)
  writeLines(c(br$end_marker, br$begin_marker), page)
  expect_error(br$write_bench_report(page, log, machine = "M"), "markers")
})

test_that("the machine line names a CPU, its cores and its memory", {
  br <- bench_report_env()
  dir <- tempfile("bench_report"); dir.create(dir)
  cpu <- file.path(dir, "cpuinfo")
  mem <- file.path(dir, "meminfo")
  writeLines(c("processor\t: 0", "model name\t: Fake  CPU @ 2.00GHz", "", "processor\t: 1",
               "model name\t: Fake  CPU @ 2.00GHz"), cpu)
  writeLines(c("MemTotal:        8388608 kB", "MemFree: 1 kB"), mem)
  expect_identical(br$machine_line(cpu, mem), "Fake CPU @ 2.00GHz, 2 logical cores, 8.0 GiB memory")
})
