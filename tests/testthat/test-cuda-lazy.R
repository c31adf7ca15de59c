# The CUDA backend is a shared object of its own (scalegp_cuda.so),
# opened on first use; a CPU-only process must never map the CUDA libraries
# (they raised a plain library(scalegp)'s peak RSS from ~54 to ~272 MiB). A
# child process loads the package and computes with the default backend
# ("auto"), then reads its own memory map. Where an NVIDIA driver is present,
# "auto" may rightly open the backend: the check needs a machine without one.
test_that("library(scalegp) and an 'auto' computation map no CUDA library without a driver", {
  skip_if_not(file.exists("/proc/self/maps"), "no /proc (not Linux)")
  skip_if(file.exists("/proc/driver/nvidia/version") || file.exists("/dev/nvidiactl"),
          "an NVIDIA driver is present")
  script <- tempfile(fileext = ".R")
  on.exit(unlink(script))
  writeLines(c("suppressPackageStartupMessages(library(scalegp))",
               "k <- gp_kernel(matrix(runif(20), 10, 2))",
               "i <- scalegp_info()",
               "maps <- readLines('/proc/self/maps')",
               "cat('CUDA_MAPPED', sum(grepl('libcudart|libcublas|libcufft', maps)), '\\n')",
               "cat('BUILT', i$cuda_built, '\\n')"), script)
  out <- system2(file.path(R.home("bin"), "Rscript"), script, stdout = TRUE, stderr = TRUE,
                 env = paste0("R_LIBS=", paste(.libPaths(), collapse = ":")))
  expect_null(attr(out, "status"), label = paste(out, collapse = "\n"))
  expect_true(any(out == "CUDA_MAPPED 0 "), label = paste(out, collapse = "\n"))
  # a CUDA build says why "cuda" cannot run instead of failing to load
  if (scalegp_info()$cuda_built)
    expect_error(gp_kernel(matrix(1:4, 2), backend = "cuda"),
                 "'backend' \"cuda\" is not available \\(no NVIDIA driver on this machine\\)")
})
