## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## gp_laplace's solver ends against the dense Gaussian process (solve /
## backslash), the cases of tests/testthat/test-laplace-reliability.R on
## Octave's own data: a y equal to its prior mean (a right-hand side that
## meets the tolerance before any action) still buys variance with the budget,
## a full budget or n = 1 is the exact state and passes the fit's own check,
## and a gaussian fit on c y with scales c^2 is c times the fit on y.

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
%! ## y = m: b = 0; the default budget (cg, 5) goes to a surrogate system's
%! ## actions, the mean stays C b = 0; IterGP's variance is never below the
%! ## exact one and, as K's top 5 eigenvectors hold >= 99% (checked) of the
%! ## exact reduction sum lambda^2 / (lambda + 0.1), buys >= 90% of it
%! rand ("state", 1);
%! x = rand (30, 1);
%! y = 5 * ones (30, 1);
%! [~, ev, K] = dense_gp (x, y, 5, 0.1, 0.3, 1);
%! fit = gl (x, y, "mean", 5, "noise", 0.1, "lengthscale", 0.3, "outputscale", 1,
%!           "policy", "cg");
%! assert (fit.converged);
%! assert (fit.iterations, 5);
%! assert (columns (fit.root), 5);
%! assert (fit.f, y);
%! Q = fit.root;
%! assert (Q' * (K + 0.1 * eye (30)) * Q, eye (5), 1e-10);
%! assert (fit.var, diag (K - K * (Q * Q') * K), 1e-10);
%! assert (all (fit.var >= ev - 1e-12));
%! lam = sort (eig (K), "descend");
%! red = lam .^ 2 ./ (lam + 0.1);
%! assert (sum (red(1:5)) / sum (red) > 0.99);
%! assert (sum (1 - fit.var) >= 0.9 * sum (1 - ev));
%! p = scalegp_predict (fit, x);
%! assert (p.var, fit.var, 1e-10);
%! ## cholesky: its unit actions go on, the first 5 points' subset of data
%! ch = gl (x, y, "mean", 5, "noise", 0.1, "lengthscale", 0.3, "outputscale", 1,
%!          "policy", "cholesky");
%! assert (ch.converged);
%! assert (ch.iterations, 5);
%! I = 1:5;
%! assert (ch.var, diag (K - K(:, I) * ((K(I, I) + 0.1 * eye (5)) \ K(I, :))), 1e-10);

%!test
%! ## a full budget: the exact state (dense Cholesky of K^), no iteration; n = 1
%! ## (the default budget is full) passes the fit's check in summary and predict
%! rand ("state", 1);
%! x = rand (30, 1);
%! y = 5 * ones (30, 1);
%! [~, ev] = dense_gp (x, y, 5, 0.1, 0.3, 1);
%! fit = gl (x, y, "mean", 5, "noise", 0.1, "lengthscale", 0.3, "outputscale", 1,
%!           "max_iter", 30);
%! assert (fit.converged);
%! assert (fit.iterations, 0);
%! assert (columns (fit.root), 30);
%! assert (fit.var, ev, 1e-10);
%! one = gl (x(1), 5, "mean", 5, "noise", 0.1, "lengthscale", 0.3, "outputscale", 1);
%! assert (one.converged);
%! assert (one.var, 1 - 1 / 1.1, 1e-14);
%! assert (! isempty (scalegp_summary (one)));
%! xs = [0.2; 0.9];
%! ks = rbf (xs, x(1), 0.3, 1);
%! p = scalegp_predict (one, xs);
%! assert (p.var, 1 - ks .^ 2 / 1.1, 1e-12);

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

## time_limit bounds the learning as well as the Newton loop: learning on 2e4
## points takes minutes; no evaluation of it starts after 0.05 s, and the
## Newton loop stops after its first step
%!test
%! rand ("state", 1);
%! x = rand (2e4, 1);
%! y = double (x > 0.5);
%! lastwarn ("");
%! t0 = tic ();
%! f = gp_laplace (x, y, "time_limit", 0.05, "verbose", false, "seed", 1);
%! assert (toc (t0) < 60);
%! msg = lastwarn ();  # the last of the fit's warnings: the learning's
%! assert (! isempty (strfind (msg, "time limit was reached")));
%! assert (! f.converged);
%! assert (f.stop_reason, "time_limit");
%! assert (isnan (f.loglik));
%! out = evalc ("scalegp_summary (f)");
%! assert (! isempty (strfind (out, "log evidence not computed; nothing learned")));
