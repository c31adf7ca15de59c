## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## Cases of the fuzz run (inst/fuzz/fuzz_octave.m) kept as regular tests: each
## failure it found and fixed, and a sample of the clean errors naming the
## argument or the fit field.

%!shared x, y, fit
%! i = (1:20).';
%! x = [mod(i * 0.618034, 1), mod(i * 0.414214 + 0.1, 1)];
%! y = double (x(:, 1) > 0.5);
%! fit = gp_laplace (x, y, "seed", 1);

## threads: the core's rule (0..256), in every function taking it
%!error <gp_kernel: 'threads' must be a whole number from 0 \(the OpenMP default\) to 256 \(got 1e\+06\)> gp_kernel (x, "threads", 1e6)
%!error <gp_kernel: 'threads' must be a whole number from 0> gp_kernel (x, "threads", 5000)
%!error <gp_kernel: 'threads' must be a whole number from 0> gp_kernel (x, "threads", 257)
%!error <gp_laplace: 'threads' must be a whole number from 0> gp_laplace (x, y, "threads", 1e5)
%!error <scalegp_predict: 'threads' must be a whole number from 0> scalegp_predict (fit, x, "threads", 1e6)
%!error <ski_stats: 'threads' must be a whole number from 0> ski_stats (x, y, ski_grid (x, "grid_size", 10), "threads", 1e6)
%!error <mlp_fit: 'threads' must be a whole number from 0> mlp_fit (x, y, 2, "iterations", 1, "threads", 1e6)
%!error <'threads' must be a whole number> gp_kernel (x, "threads", 0.5)
%!assert (gp_kernel (x, "threads", 256), gp_kernel (x, "threads", 1), 1e-15)

## whole numbers: a range error naming the argument
%!error <gp_laplace: 'seed' must be at most 9007199254740992> gp_laplace (x, y, "seed", 2^60)
%!error <'max_iter' must be at most 2147483647> gp_laplace (x, y, "max_iter", 2^31)
%!error <'y' has labels up to 1e\+300 but only n = 20 points> gp_laplace (x, [1e300; ones(19, 1)], "likelihood", "softmax")

## noise only with likelihood "gaussian" (before: silently ignored)
%!error <gp_laplace: 'noise' is only used with likelihood = "gaussian" \(got "bernoulli"\)> gp_laplace (x, y, "noise", -5)
%!error <'noise' is only used with likelihood = "gaussian" \(got "poisson"\)> gp_laplace (x, y, "likelihood", "poisson", "noise", 0.5)
%!error <'noise' must be positive> gp_laplace (x, sin (x(:, 1)), "likelihood", "gaussian", "noise", -5)
%!test
%! g1 = gp_laplace (x, sin (3 * x(:, 1)), "likelihood", "gaussian", "seed", 1, "learn", {});
%! g2 = gp_laplace (x, sin (3 * x(:, 1)), "likelihood", "gaussian", "noise", 1, "seed", 1, "learn", {});
%! assert (g1.f, g2.f);  # fixed and not given: 1

## a row of d values is one point (before: "'xnew' has 1 columns but the fit has 2")
%!test
%! p1 = scalegp_predict (fit, [0.3 0.6]);
%! p2 = scalegp_predict (fit, [0.3 0.6; 0.3 0.6]);
%! assert (size (p1.mean), [1 1]);
%! assert (p1.mean, p2.mean(1));
%! assert (size (gp_kernel (x, [0.3 0.6])), [20 1]);
%! t = gp_laplace (x, y, "xtest", [0.3 0.6], "seed", 1).test;
%! assert (size (t.mean), [1 1]);
%!test  # d = 1: a row is still n points
%! f1 = gp_laplace ((0:0.1:0.9).', repmat ([0; 1], 5, 1), "seed", 1);
%! assert (size (scalegp_predict (f1, [0.2 0.5]).mean), [2 1]);

## tampered fits: an error naming the field
%!error <scalegp_predict: 'fit.root' has 0 columns but the fit took> scalegp_predict (setfield (fit, "root", fit.root(:, [])), x)
%!error <scalegp_predict: 'fit.root' is 19 x> scalegp_predict (setfield (fit, "root", fit.root(2:end, :)), x)
%!error <scalegp_predict: 'fit.weights' contains NaN> scalegp_predict (setfield (fit, "weights", NaN (20, 1)), x)
%!error <scalegp_predict: 'fit.x' must be a numeric matrix \(got strings\)> scalegp_predict (setfield (fit, "x", "a"), x)
%!error <scalegp_predict: 'fit.likelihood' must be one of> scalegp_predict (setfield (fit, "likelihood", "probit"), x)
%!error <scalegp_predict: 'fit.n_class' must be 1> scalegp_predict (setfield (fit, "n_class", 3), x)
%!error <scalegp_predict: 'fit.kernel' must have 1 or d = 2 positive> scalegp_predict (setfield (fit, "kernel", struct ("kernel", "rbf", "lengthscale", -1, "outputscale", 1)), x)
%!error <scalegp_predict: 'fit.noise' must be absent .NULL or ... for likelihood> scalegp_predict (setfield (fit, "noise", 1), x)
%!error <scalegp_predict: 'fit.iterations' must be a whole number> scalegp_predict (setfield (fit, "iterations", -1), x)
%!error <scalegp_predict: 'fit.root' is missing> scalegp_predict (rmfield (fit, "root"), x)
%!test  # a response equal to its mean is solved at once: the budget buys variance
%! z = gp_laplace (x, zeros (20, 1), "likelihood", "gaussian", "seed", 1);
%! assert (columns (z.root), z.iterations);
%! assert (size (scalegp_predict (z, x).mean), [20 1]);

## scales beyond double precision
%!assert (all (isfinite (gp_kernel (x, "outputscale", 1e300)(:))))
%!error <gp_kernel: 'x' divided by the lengthscale> gp_kernel (x, "lengthscale", 1e-300)
%!error <scalegp_predict: 'xnew' divided by the lengthscale> scalegp_predict (fit, 1e200 * x)
%!error <gp_laplace: 'xtest' divided by the lengthscale> gp_laplace (x, y, "xtest", 1e200 * x)
%!error <'offset' log exposures must lie in \[-700, 700\]> gp_laplace (x, floor (3 * x(:, 2)), "likelihood", "poisson", "offset", 1e300 * ones (20, 1))
%!test  # far apart points: 0 covariance, not Inf * 0
%! for k = {"matern12", "matern32", "matern52"}
%!   assert (gp_kernel (x, "kernel", k{1}, "lengthscale", 1e-60), eye (20), 1e-300);
%! endfor

## allocation failures name the inputs
%!error <gp_kernel: 'x2' and 'x' give a 1000000 x 1000000 kernel matrix> gp_kernel (zeros (1e6, 1), zeros (1e6, 1))

## ski: y whose squares overflow (before: yty = Inf), merged statistics checked
%!error <ski_stats: 'y' its sum of squares \(the statistic yty\) overflows> ski_stats (x, 1e300 * ones (20, 1), ski_grid (x, "grid_size", 10))
%!error <ski_gsgp: 'y' > ski_gsgp (x, 1e300 * ones (20, 1), "grid_size", 10, "learn", {})
%!shared x, s
%! i = (1:20).';
%! x = [mod(i * 0.618034, 1), mod(i * 0.414214 + 0.1, 1)];
%! s = ski_stats (x, x(:, 2), ski_grid (x, "grid_size", 10));
%!error <ski_stats_merge: 'b' has a 'WtW' with NaN or Inf> ski_stats_merge (s, setfield (s, "WtW", s.WtW * NaN))
%!error <ski_stats_merge: 'a' has a 'WtW' with NaN or Inf> ski_stats_merge (setfield (s, "WtW", s.WtW * NaN), s)
%!error <'b' makes the merged 'yty' overflow> ski_stats_merge (setfield (s, "yty", 1.5e308), setfield (s, "yty", 1.5e308))

## ski_gsgp names its own arguments; scalegp_predict names xnew
%!error <ski_gsgp: 'xtest' contains NaN> ski_gsgp (x, x(:, 2), "grid_size", 10, "xtest", x * NaN, "learn", {})
%!error <ski_gsgp: 'xtest' row 1, column 1 .* is outside the grid> ski_gsgp (x, x(:, 2), "grid_size", 10, "xtest", x + 5, "learn", {})
%!error <ski_gsgp: 'x' the range of column 1 .* gives no grid in doubles> ski_gsgp (0.5e300 * ones (20, 2), x(:, 2), "learn", {})
%!error <ski_gsgp: 'grid_pad' is 0: with fewer than 1 cell of padding> ski_gsgp (x, x(:, 2), "grid_pad", 0, "learn", {})
%!error <ski_grid: 'grid_size' must be 1 to 8 whole numbers> ski_grid (x, "grid_size", 1i)
%!error <ski_grid: 'grid_bounds' must be numbers> ski_grid (x, "grid_size", 10, "grid_bounds", [0 1; 0 1] * 1i)
%!test
%! f = ski_gsgp (x, x(:, 2), "grid_pad", 0, "interpolation", "linear", "learn", {});
%! assert (f.converged);

## ski fits in scalegp_predict: xnew named; tampered results refused (finite, iterations whole)
%!shared x, f
%! i = (1:20).';
%! x = [mod(i * 0.618034, 1), mod(i * 0.414214 + 0.1, 1)];
%! f = ski_gsgp (x, x(:, 2), "grid_size", 10, "loglik", true, "probes", 2, "seed", 1, "learn", {});
%!error <scalegp_predict: 'xnew' row 1, column 1 .* outside the grid> scalegp_predict (f, 1e300 * x)
%!error <scalegp_predict: 'xnew' contains NaN> scalegp_predict (f, x * NaN)
%!error <'fit.rel_residual' must be one finite number> scalegp_predict (setfield (f, "rel_residual", Inf), x)
%!error <'fit.loglik' must be one finite number> scalegp_predict (setfield (f, "loglik", Inf), x)
%!error <'fit.logdet' must be one finite number> scalegp_predict (setfield (f, "logdet", Inf), x)
%!error <'fit.logdet_se' must be one finite number> scalegp_predict (setfield (f, "logdet_se", Inf), x)
%!error <'fit.iterations' must be a whole number> scalegp_predict (setfield (f, "iterations", Inf), x)
%!error <'fit.iterations' must be a whole number> scalegp_predict (setfield (f, "iterations", 2.5), x)
%!error <'fit.timings' must be named finite seconds> scalegp_predict (setfield (f, "timings", struct ("solve", Inf)), x)
%!error <'fit.timings' must be named finite seconds> scalegp_predict (setfield (f, "timings", struct ("preprocess", -1, "solve", 0)), x)
%!assert (size (scalegp_predict (f, x).mean), [20 1])
## valla, mlp_fit, valla_metrics (fuzz): huge values, damaged flags, prior_var
%!shared xv, yv, net, vfit
%! i = (1:30).';
%! xv = [mod(i * 0.618034, 1), mod(i * 0.414214 + 0.1, 1)];
%! yv = sin (4 * xv(:, 1)) + 0.05 * cos (17 * i);
%! net = mlp_fit (xv, yv, 4, "iterations", 50, "seed", 1);
%! vfit = valla (net, xv, yv, "inducing", 5, "iterations", 20, "seed", 1);
%!error <valla: 'x' .* is too large \(at most 1e\+100 in magnitude> valla (net, 1e300 * xv, yv, "inducing", 5, "iterations", 20)
%!error <valla: 'y' .* is too large \(at most 1e\+100> valla (net, xv, 1e300 * yv, "inducing", 5, "iterations", 20)
%!error <valla: 'inducing' .* is too large> valla (net, xv, yv, "inducing", 1e300 * xv(1:5, :), "iterations", 20)
%!error <scalegp_predict: 'xnew' .* is too large \(at most 1e\+100> scalegp_predict (vfit, 1e300 * xv)
%!error <mlp_fit: 'y' 1e\+300 at row 1, column 1 is too large> mlp_fit (xv, 1e300 * ones (30, 1), 3, "iterations", 20)
%!error <valla_metrics: 'y' 1e\+300 at row 1, column 1 is too large> valla_metrics (struct ("mean", yv, "var", 0.1 * ones (30, 1)), 1e300 * ones (30, 1))
%!error <valla: 'prior_var' 1e\+300 makes I \+ L'K_ZZ L \(M = 27 inducing points\) lose> valla (net, xv, yv, "prior_var", 1e300, "iterations", 20, "seed", 1)
%!error <scalegp_predict: 'fit.prior' must be TRUE or FALSE> scalegp_predict (setfield (vfit, "prior", "a"), xv)
%!error <scalegp_predict: 'fit.closed_form' must be TRUE or FALSE> scalegp_predict (setfield (vfit, "closed_form", "a"), xv)
%!error <scalegp_predict: 'fit.prior' must be TRUE or FALSE> scalegp_predict (setfield (vfit, "prior", 2), xv)
%!assert (all (isfinite (scalegp_predict (vfit, 1e50 * xv).mean)))
%!error <valla: 'xtest' holds 1e\+300 \(at most 1e\+100 in magnitude> valla (net, xv, yv, "inducing", 5, "iterations", 20, "xtest", 1e300 * ones (3, 2))
%!error <valla: 'y' has 30 elements but 'x' has 29 rows> valla (net, xv(2:end, :), yv, "inducing", 5, "iterations", 20)
