## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## gp_kernel against the fixtures shared with the R tests (inst/extdata,
## written by inst/extdata/make_fixtures.R from plain R arithmetic).
## Run by tests/octave/run_all.m; the fixture folder comes from the environment
## variable SCALEGP_EXTDATA (default: inst/extdata under the current folder).

%!function m = fixture (name)
%!  m = fixture_csv (name);
%!endfunction

%!function check_fixture (kernel, kind)
%!  x = fixture ("kernel_x.csv");
%!  x2 = fixture ("kernel_x2.csv");
%!  p = fixture ("kernel_params.csv");
%!  outputscale = p(1, 1);
%!  if (strcmp (kind, "iso"))
%!    lengthscale = p(2, 1);
%!  else
%!    lengthscale = p(3, :);
%!  endif
%!  expected = fixture (sprintf ("kernel_%s_%s.csv", kernel, kind));
%!  assert (size (expected), [rows(x), rows(x2)]);
%!  K = gp_kernel (x, x2, "kernel", kernel, "lengthscale", lengthscale,
%!                 "outputscale", outputscale);
%!  assert (K, expected, 1e-12);
%!  ## the coincident pair (x2 row 1 = x row 2) gives the outputscale exactly
%!  assert (K(2, 1), outputscale);
%!  ## threads do not change the numbers; a column lengthscale works as a row
%!  assert (gp_kernel (x, x2, "kernel", kernel, "lengthscale", lengthscale(:),
%!                     "outputscale", outputscale, "threads", 1), K, 1e-15);
%!endfunction

%!test
%! x = fixture ("kernel_x.csv");  x2 = fixture ("kernel_x2.csv");
%! p = fixture ("kernel_params.csv");
%! assert (size (x), [7, 3]);
%! assert (size (x2), [5, 3]);
%! assert (size (p), [3, 3]);
%! assert (x2(1, :), x(2, :));

%!test check_fixture ("rbf", "iso")
%!test check_fixture ("rbf", "ard")
%!test check_fixture ("matern12", "iso")
%!test check_fixture ("matern12", "ard")
%!test check_fixture ("matern32", "iso")
%!test check_fixture ("matern32", "ard")
%!test check_fixture ("matern52", "iso")
%!test check_fixture ("matern52", "ard")

%!test
%! ## symmetric case: gp_kernel (x) is gp_kernel (x, x), outputscale on the diagonal
%! x = fixture ("kernel_x.csv");
%! p = fixture ("kernel_params.csv");
%! for kernel = {"rbf", "matern12", "matern32", "matern52"}
%!   K = gp_kernel (x, "kernel", kernel{1}, "lengthscale", p(3, :), "outputscale", p(1, 1));
%!   assert (K, gp_kernel (x, x, "kernel", kernel{1}, "lengthscale", p(3, :),
%!                         "outputscale", p(1, 1)), 1e-15);
%!   assert (K, K.', 1e-15);
%!   assert (diag (K), p(1, 1) * ones (rows (x), 1));
%! endfor
