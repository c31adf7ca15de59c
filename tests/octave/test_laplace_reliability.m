## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## gp_laplace's solver ends against the dense Gaussian process (solve /
## backslash), the cases of tests/testthat/test-laplace-reliability.R on
## Octave's own data: a gaussian fit on c y with scales c^2 is c times the
## fit on y.

%!function K = rbf (a, b, ell, s)
%!  d2 = sum (a .^ 2, 2) + sum (b .^ 2, 2)' - 2 * a * b';
%!  K = s * exp (-0.5 * max (d2, 0) / ell ^ 2);
%!endfunction

%!function [f, v, K] = dense_gp (x, y, m, noise, ell, s)
%!  K = rbf (x, x, ell, s);
%!  A = K + noise * eye (rows (x));
%!  f = m + K * (A \ (y - m));
%!  v = diag (K - K * (A \ K));
%!endfunction

%!function fit = gl (x, y, varargin)
%!  fit = gp_laplace (x, y, "likelihood", "gaussian", "learn", {}, "verbose", false,
%!                    "seed", 1, varargin{:});
%!endfunction

%!test
%! ## (y, m, s, noise) -> (c y, c m, c^2 s, c^2 noise): the same actions, so
%! ## c times the fit (rounding of scaling by c through ~20 CG iterations on
%! ## cond(K^) <= 1 + n / 0.1: far below 1e-8); against the dense GP,
%! ## f - f* = K K^-1 res with ||K K^-1|| <= 1, so ||f - f*|| is at most the
%! ## residual tolerance max(inner_atol c, inner_rtol ||c (y - m)||)
%! rand ("state", 2);  randn ("state", 2);
%! n = 40;
%! x = rand (n, 2);
%! y = sin (3 * x(:, 1)) + cos (2 * x(:, 2)) + 0.3 * randn (n, 1);
%! [fx, ev] = dense_gp (x, y, 0.5, 0.1, 0.3, 1);
%! fitc = @(c, varargin) gl (x, c * y, "mean", 0.5 * c, "noise", 0.1 * c ^ 2,
%!                           "lengthscale", 0.3, "outputscale", c ^ 2, varargin{:});
%! base = fitc (1);
%! for c = [1e-6, 1e6]
%!   fit = fitc (c);
%!   assert (fit.converged);
%!   assert (fit.iterations, base.iterations);
%!   assert (fit.f / c, base.f, -1e-8);
%!   assert (fit.var / c ^ 2, base.var, -1e-8);
%!   assert (norm (fit.f - c * fx) <= max (1e-5 * c, 1e-5 * c * norm (y - 0.5)));
%!   assert (all (fit.var >= c ^ 2 * (ev - 1e-12)));
%!   full = fitc (c, "max_iter", n);
%!   assert (full.var / c ^ 2, ev, -1e-9);
%!   assert (full.f / c, fx, -1e-9);
%! endfor
