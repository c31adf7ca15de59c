# Builds the vignettes (vignettes/*.Rmd) into build/doc: the HTML and the
# tangled R code, as R CMD build puts them into inst/doc of the tarball. The
# source tree is left alone (knitr's intermediates go to a temporary folder),
# so that generated HTML is never committed. Run from the repository root with
# the package installed (make docs: R_LIBS=build/Rlib).
out <- normalizePath(file.path("build", "doc"), mustWork = FALSE)
dir.create(out, recursive = TRUE, showWarnings = FALSE)
for (rmd in list.files("vignettes", pattern = "[.]Rmd$", full.names = TRUE)) {
  work <- tempfile("vignette")
  dir.create(work)
  seconds <- system.time(
    rmarkdown::render(rmd, output_dir = out, intermediates_dir = work,
                      knit_root_dir = work, envir = new.env(parent = globalenv()),
                      quiet = TRUE)
  )[["elapsed"]]
  knitr::purl(rmd, output = file.path(out, sub("[.]Rmd$", ".R", basename(rmd))),
              quiet = TRUE)
  unlink(work, recursive = TRUE)
  cat(sprintf("vignette %s: %s (%.1f s)\n", basename(rmd),
              file.path("build", "doc", sub("[.]Rmd$", ".html", basename(rmd))), seconds))
}
