## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## The rational-quadratic kernel ("rq") of gp_kernel against a dense formula,
## as tests/testthat/test-kernel-rq.R does in R.

%!function K = rq_dense (a, b, ell, s2, alpha)
%!  ell = ell .* ones (1, columns (a));
%!  r2 = zeros (rows (a), rows (b));
%!  for l = 1:columns (a)
%!    r2 += (a(:, l) / ell(l) - (b(:, l) / ell(l)).') .^ 2;
%!  endfor
%!  K = s2 * (1 + r2 / (2 * alpha)) .^ (-alpha);
%!endfunction

%!test
%! ## the tiles' squared distances carry a few eps times the squared norms
%! ## (about 30 here) and |dk/dr2| <= s/2: 1e-12 s bounds the difference
%! state = randn ("state");
%! randn ("state", 11);
%! for d = [2, 6]  # direct differences and the dgemm path
%!   x = randn (40, d);
%!   x2 = randn (25, d);
%!   ell = linspace (0.6, 1.8, d);
%!   for alpha = [0.4, 3]
%!     K = gp_kernel (x, x2, "kernel", "rq", "lengthscale", ell, "outputscale", 1.7,
%!                    "alpha", alpha);
%!     assert (max (abs (K(:) - rq_dense (x, x2, ell, 1.7, alpha)(:))) < 1e-12 * 1.7);
%!   endfor
%!   ## alpha's default is 1
%!   K = gp_kernel (x, "kernel", "rq");
%!   assert (max (abs (K(:) - rq_dense (x, x, 1, 1, 1)(:))) < 1e-12);
%! endfor
%! randn ("state", state);

%!error <gp_kernel: 'alpha'> gp_kernel ([1 2; 3 4], "kernel", "rq", "alpha", 0)
%!error <gp_kernel: 'alpha'> gp_kernel ([1 2; 3 4], "kernel", "rq", "alpha", -1)
%!error <gp_kernel: 'kernel' must be one of .*"rq"> gp_kernel ([1 2; 3 4], "kernel", "rq2")

%!test
%! ## ski_gsgp with rq carries alpha into its fit and predictions
%! state = rand ("state");
%! rand ("state", 5);
%! x = rand (200, 1);
%! y = sin (6 * x);
%! xt = linspace (0.1, 0.9, 7).';
%! fit = ski_gsgp (x, y, "kernel", "rq", "alpha", 0.5, "lengthscale", 0.3,
%!                 "outputscale", 1, "noise", 0.04, "mean", 0, "xtest", xt);
%! assert (fit.alpha, 0.5);
%! p = scalegp_predict (fit, xt);
%! assert (p.mean, fit.test.mean);
%! bad = rmfield (fit, "alpha");
%! rand ("state", state);
%! try
%!   scalegp_predict (bad, xt);
%!   error ("no error");
%! catch e
%!   assert (! isempty (strfind (e.message, "alpha")));
%! end_try_catch
