## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## run_all.m -- runs scalegp's Octave tests.
##
##   octave-cli --no-gui --norc tests/octave/run_all.m        (from the repo root)
##
## Where the package comes from:
##  - SCALEGP_OCT_PREFIX set: the package installed there by tools/check_octave.sh
##    (pkg install -local under that prefix; see use_prefix.m);
##  - otherwise an installed scalegp package (pkg load scalegp);
##  - otherwise a developer build in the tree:
##      make -C bindings_octave/src CORE_DIR=../../core
##
## Runs the built-in tests (%!test / %!error) of the package functions and of
## the oct-files, then every tests/octave/test_*.m (which read the fixtures in
## inst/extdata/, shared with the R tests). Prints one line per file and, last,
## exactly "octave: N passed, M failed"; exits with status 1 if anything failed
## (or nothing ran), 0 otherwise.

1;  # a script, not a function file

function root = repo_root ()
  here = fileparts (mfilename ("fullpathext"));
  if (isempty (here) || ! exist (fullfile (here, "run_all.m"), "file"))
    here = fullfile (pwd (), "tests", "octave");
  endif
  root = fileparts (fileparts (here));
endfunction

function where = load_scalegp (root)
  prefix = getenv ("SCALEGP_OCT_PREFIX");
  devsrc = fullfile (root, "bindings_octave", "src");
  if (! isempty (prefix))
    use_prefix (prefix);
    pkg ("load", "scalegp");
    where = sprintf ("package installed under %s", prefix);
  elseif (any (cellfun (@(p) strcmp (p.name, "scalegp"), pkg ("list"))))
    pkg ("load", "scalegp");
    where = "installed package";
  elseif (exist (fullfile (devsrc, "__sgp_call__.oct"), "file"))
    addpath (devsrc);
    addpath (fullfile (root, "bindings_octave", "inst"));
    where = "developer build in bindings_octave/";
  else
    error (["run_all: scalegp not found: set SCALEGP_OCT_PREFIX, install the ", ...
            "package, or build it with make -C bindings_octave/src CORE_DIR=../../core"]);
  endif
endfunction

function [passed, failed] = run_tests (target, label)
  t0 = tic ();
  passed = 0;
  failed = 0;
  try
    [n, nmax, nxfail, nbug, nskip, nrtskip] = test (target, "quiet", stdout);
    skipped = "";
    if (nskip + nrtskip > 0)  # e.g. drawing without a graphics toolkit: said, not hidden
      skipped = sprintf (", %d skipped", nskip + nrtskip);
    endif
    if (nmax == 0)
      printf ("  %-28s no tests found%s\n", label, skipped);
      failed = 1;
    else
      passed = n;
      failed = nmax - n - nxfail - nbug;
      printf ("  %-28s %3d passed, %d failed%s  (%.1f s)\n", label, passed, failed, skipped,
              toc (t0));
    endif
  catch err
    printf ("  %-28s ERROR: %s\n", label, err.message);
    failed = 1;
  end_try_catch
  fflush (stdout);
endfunction

total_passed = 0;
total_failed = 0;
t_all = tic ();
try
  root = repo_root ();
  addpath (fullfile (root, "tests", "octave"));
  setenv ("SCALEGP_EXTDATA", fullfile (root, "inst", "extdata"));
  where = load_scalegp (root);
  printf ("scalegp Octave tests (%s)\n", where);
  printf ("  gp_kernel: %s\n", which ("gp_kernel"));
  info = scalegp_info ();
  printf ("  core %s, OpenMP %d (%d threads), %s\n", info.version, info.openmp,
          info.max_threads, info.blas);

  ## built-in tests of the package functions, of the oct-file __sgp_call__ and of
  ## each of its verbs (src/verb_<name>.cc; pkg install extracts the .cc blocks
  ## into <arch>/*.cc-tst)
  targets = {"gp_kernel", "scalegp_info", "__sgp_call__", "verb_kernel_matrix", ...
             "verb_kernel_apply", "verb_info", "verb_options", ...
             "ski_gsgp", "ski_stats", "ski_stats_merge", "ski_grid", "verb_ski_grid", ...
             "verb_ski_grid_check", ...
             "verb_ski_stats", "verb_ski_gsgp", "verb_ski_predict", "verb_ski_stats_merge", ...
             "verb_ski_shape", "verb_ski_outside", "verb_h5_rows", ...
             "ski_laplace", "verb_ski_laplace", ...
             "gp_laplace", "verb_laplace_fit", "verb_laplace_predict", ...
             "valla", "mlp_fit", "verb_valla_fit", "verb_valla_predict", "verb_mlp_fit", ...
             "verb_valla_net_check", ...
             "valla_metrics", "verb_valla_metrics"};
  for i = 1:numel (targets)
    [p, f] = run_tests (targets{i}, targets{i});
    total_passed += p;
    total_failed += f;
  endfor

  ## test files reading the shared fixtures
  files = dir (fullfile (root, "tests", "octave", "test_*.m"));
  if (isempty (files))
    printf ("  no tests/octave/test_*.m files found\n");
    total_failed += 1;
  endif
  for i = 1:numel (files)
    [p, f] = run_tests (fullfile (root, "tests", "octave", files(i).name), files(i).name);
    total_passed += p;
    total_failed += f;
  endfor
catch err
  printf ("run_all: %s\n", err.message);
  total_failed += 1;
end_try_catch

if (total_passed == 0 && total_failed == 0)
  total_failed = 1;  # nothing ran: not a pass
endif
printf ("(%.1f s)\n", toc (t_all));
printf ("octave: %d passed, %d failed\n", total_passed, total_failed);
fflush (stdout);
exit (double (total_failed > 0));
