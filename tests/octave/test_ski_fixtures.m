## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## ski_gsgp against the fixtures shared with the R tests (inst/extdata/ski_*,
## written by inst/extdata/make_ski_fixtures.R: the dense GP with covariance
## W K_G W' + noise I in plain R).  Solves at tol 1e-11 give the fixture's
## mean and latent variance to 1e-7 relative to the largest value, as in R.
## Also: chunked statistics equal one pass, save/load round trips, the chunk
## example, and errors naming `stats`.

%!function c = ski_case (name)
%!  p = fixture_csv (sprintf ("ski_%s_params.csv", name));
%!  data = fixture_csv (sprintf ("ski_%s_data.csv", name));
%!  test = fixture_csv (sprintf ("ski_%s_test.csv", name));
%!  d = p(1);
%!  at = @(k) p(5 + (k - 1) * d + (1:d));
%!  kernels = {"rbf", "matern12", "matern32", "matern52"};
%!  interps = {"cubic", "linear"};
%!  c = struct ("d", d, "kernel", kernels{p(2)}, "interpolation", interps{p(3)},
%!              "outputscale", p(4), "noise", p(5), "lengthscale", at (1),
%!              "grid_size", at (2), "grid_bounds", [at(3).', at(4).'],
%!              "x", data(:, 1:d), "y", data(:, d + 1), "xtest", test(:, 1:d),
%!              "mean", test(:, d + 1), "var", test(:, d + 2));
%!endfunction

%!function fit = ski_fit_case (c, varargin)
%!  fit = ski_gsgp (c.x, c.y, "grid_size", c.grid_size, "grid_bounds", c.grid_bounds,
%!                  "kernel", c.kernel, "lengthscale", c.lengthscale,
%!                  "outputscale", c.outputscale, "noise", c.noise,
%!                  "interpolation", c.interpolation, "seed", 1, "mean", 0, varargin{:});
%!endfunction

%!function e = rel_err (a, b)
%!  e = max (abs (a(:) - b(:))) / max (abs (b(:)));
%!endfunction

%!test
%! for name = {"1d", "1d_linear", "2d"}
%!   c = ski_case (name{1});
%!   fit = ski_fit_case (c, "tol", 1e-11, "variance", "exact", "xtest", c.xtest);
%!   assert (fit.converged);
%!   assert (rel_err (fit.test.mean, c.mean) < 1e-7);
%!   assert (rel_err (fit.test.var, c.var) < 1e-7);
%!   assert (fit.grid.size, c.grid_size);
%!   assert (fit.grid.bounds, c.grid_bounds);
%!   love = ski_fit_case (c, "tol", 1e-11, "variance", "lanczos", "rank", prod (c.grid_size),
%!                        "xtest", c.xtest);
%!   assert (rel_err (love.test.var, c.var) < 1e-7);
%!   ski = ski_fit_case (c, "tol", 1e-11, "method", "ski", "xtest", c.xtest);
%!   assert (rel_err (ski.test.mean, c.mean) < 1e-7);
%!   assert (isempty (ski.test.var));
%! endfor

%!test
%! ## chunked and merged statistics equal one pass and give the same fit
%! c = ski_case ("1d");
%! g = ski_grid ([], "grid_size", c.grid_size, "grid_bounds", c.grid_bounds);
%! one = ski_stats (c.x, c.y, g);
%! parts = {1:20, 21:55, 56:80};
%! s = ski_stats (c.x(parts{1}), c.y(parts{1}), g);
%! for k = 2:3
%!   i = parts{k};
%!   s = ski_stats_merge (s, ski_stats (c.x(i), c.y(i), g, "first_row", i(1) - 1));
%! endfor
%! for f = {"n", "yty", "ysum", "Wty", "Wt1", "WtW"}
%!   assert (s.(f{1}), one.(f{1}), 1e-12 * max (1, max (abs (one.(f{1})(:)))));
%! endfor
%! fit = ski_gsgp ("stats", s, "kernel", c.kernel, "lengthscale", c.lengthscale,
%!                 "outputscale", c.outputscale, "noise", c.noise, "tol", 1e-11,
%!                 "xtest", c.xtest, "mean", 0);
%! assert (rel_err (fit.test.mean, c.mean) < 1e-7);

%!test
%! ## the same numbers as R for the statistics: sum of W'1 and y'y
%! c = ski_case ("2d");
%! s = ski_stats (c.x, c.y, ski_grid ([], "grid_size", c.grid_size, "grid_bounds", c.grid_bounds));
%! assert (s.yty, sum (c.y .^ 2), 1e-12);
%! assert (sum (s.Wt1), rows (c.x), 1e-10);
%! assert (size (s.WtW), [prod(c.grid_size), 49]);

%!test
%! ## save/load round trip of a fit and of statistics
%! c = ski_case ("2d");
%! fit = ski_fit_case (c, "tol", 1e-10, "variance", "lanczos", "rank", 40);
%! f = [tempname() ".mat"];
%! unwind_protect
%!   save ("-binary", f, "fit");
%!   back = load (f);
%!   p1 = scalegp_predict (fit, c.xtest);
%!   p2 = scalegp_predict (back.fit, c.xtest);
%!   assert (p2, p1);
%!   p3 = scalegp_predict (back.fit, c.xtest, "variance", "exact");
%!   assert (rel_err (p3.var, c.var) < 1e-7);
%!   stats = fit.stats;
%!   save ("-text", f, "stats");
%!   back = load (f);
%!   refit = ski_gsgp ("stats", back.stats, "kernel", c.kernel, "lengthscale", c.lengthscale,
%!                     "noise", c.noise, "tol", 1e-10, "learn", {});
%!   assert (refit.converged);
%! unwind_protect_cleanup
%!   unlink (f);
%! end_unwind_protect

%!function W = dense_W (x, sz, bounds, interp)
%!  ## n-by-m interpolation matrix from the formula, first grid dimension fastest
%!  W = ones (rows (x), 1);
%!  for j = 1:columns (x)
%!    g = linspace (bounds(j, 1), bounds(j, 2), sz(j));
%!    s = abs ((x(:, j) - g) / (g(2) - g(1)));
%!    if (strcmp (interp, "cubic"))
%!      Wj = (s <= 1) .* (1.5 * s.^3 - 2.5 * s.^2 + 1) ...
%!           + (s > 1 & s < 2) .* (-0.5 * s.^3 + 2.5 * s.^2 - 4 * s + 2);
%!    else
%!      Wj = max (0, 1 - s);
%!    endif
%!    Wn = zeros (rows (x), columns (W) * sz(j));
%!    for i = 1:sz(j)
%!      Wn(:, (i - 1) * columns (W) + (1:columns (W))) = W .* Wj(:, i);
%!    endfor
%!    W = Wn;
%!  endfor
%!endfunction

%!test
%! ## the log-likelihood against the dense SKI GP (1-D case: Matern 3/2);
%! ## data fit exact, log-determinant within 4 standard errors or 2 %
%! c = ski_case ("1d");
%! assert (c.kernel, "matern32");
%! a = ski_fit_case (c, "tol", 1e-10, "loglik", true, "probes", 64);
%! W = dense_W (c.x, c.grid_size, c.grid_bounds, c.interpolation);
%! g = linspace (c.grid_bounds(1), c.grid_bounds(2), c.grid_size)';
%! r = sqrt (3) * abs (g - g') / c.lengthscale;
%! A = W * (c.outputscale * (1 + r) .* exp (-r)) * W' + c.noise * eye (rows (W));
%! L = chol (A, "lower");
%! ld = 2 * sum (log (diag (L)));
%! df = c.y' * (A \ c.y);
%! ll = -0.5 * (ld + df + rows (W) * log (2 * pi));
%! assert (abs (a.datafit - df) < 1e-8 * df);
%! tol = max (4 * a.logdet_se, 0.02 * abs (ld));
%! assert (abs (a.logdet - ld) < tol);
%! assert (abs (a.loglik - ll) < tol);
%! ## the same seed gives the same estimate; merged statistics with sketches too
%! b = ski_fit_case (c, "tol", 1e-10, "loglik", true, "probes", 64);
%! assert (a.loglik, b.loglik);
%! gr = ski_grid ([], "grid_size", c.grid_size, "grid_bounds", c.grid_bounds);
%! s = ski_stats_merge (ski_stats (c.x(1:40), c.y(1:40), gr, "probes", 64, "seed", 1),
%!                      ski_stats (c.x(41:80), c.y(41:80), gr, "first_row", 40,
%!                                 "probes", 64, "seed", 1));
%! f2 = ski_gsgp ("stats", s, "kernel", c.kernel, "lengthscale", c.lengthscale,
%!                "outputscale", c.outputscale, "noise", c.noise, "tol", 1e-10,
%!                "loglik", true, "mean", 0);
%! assert (abs (f2.loglik - a.loglik) < 1e-6 * abs (a.loglik));

%!test
%! ## the dense interpolation matrix gives the fixtures' statistics (as in R)
%! c = ski_case ("2d");
%! s = ski_stats (c.x, c.y, ski_grid ([], "grid_size", c.grid_size, "grid_bounds", c.grid_bounds));
%! W = dense_W (c.x, c.grid_size, c.grid_bounds, "cubic");
%! assert (s.Wty, W' * c.y, 1e-12 * max (abs (W' * c.y)));
%! assert (s.Wt1, sum (W, 1)', 1e-12);
%! ## the diagonal offset (0, 0) of the stencil is diag (W'W)
%! assert (s.WtW(:, 25), diag (W' * W), 1e-12);

%!test
%! ## every kernel with both interpolations: gsgp and classic SKI agree
%! c = ski_case ("2d");
%! for k = {"rbf", "matern12", "matern32", "matern52"}
%!   for ip = {"cubic", "linear"}
%!     args = {c.x, c.y, "grid_size", c.grid_size, "grid_bounds", c.grid_bounds, ...
%!             "kernel", k{1}, "lengthscale", c.lengthscale, "noise", c.noise, ...
%!             "interpolation", ip{1}, "tol", 1e-10, "xtest", c.xtest};
%!     g = ski_gsgp (args{:}, "learn", {});
%!     s = ski_gsgp (args{:}, "method", "ski", "learn", {});
%!     assert (g.converged && s.converged);
%!     assert (rel_err (s.test.mean, g.test.mean) < 1e-7);
%!   endfor
%! endfor

%!test
%! ## the chunk example runs and equals the one-shot fit
%! root = fileparts (fixture_csv ());
%! out = evalc ("run (fullfile (root, 'examples', 'ski_chunks.m'))");
%! assert (! isempty (strfind (out, "largest relative difference")));

%!error <ski_gsgp: 'stats' 'WtW'> 
%! c = ski_case ("1d");
%! s = ski_stats (c.x, c.y, ski_grid ([], "grid_size", c.grid_size, "grid_bounds", c.grid_bounds));
%! s.WtW(1, 1) = 1;
%! ski_gsgp ("stats", s, "learn", {});
%!error <'stats' must have finite 'Wty'>
%! s = ski_stats (1, 1, ski_grid ([], "grid_size", 10, "grid_bounds", [0 2]));
%! s.Wty(2) = NaN;
%! ski_gsgp ("stats", s, "learn", {});
%!error <'stats' has no probe sketches>
%! s = ski_stats (1, 1, ski_grid ([], "grid_size", 10, "grid_bounds", [0 2]));
%! ski_gsgp ("stats", s, "loglik", true, "learn", {}, "loglik_method", "slq");
%!test
%! ## the exact log-likelihood needs no sketches
%! x = (0.3:0.1:1.7)';
%! s = ski_stats (x, sin (x), ski_grid ([], "grid_size", 10, "grid_bounds", [0 2]));
%! f = ski_gsgp ("stats", s, "loglik", true, "learn", {}, "noise", 0.1, "loglik_method", "exact");
%! assert (isfinite (f.loglik) && f.probes_used == 0 && f.logdet_se == 0);
%!error <'stats' fixes the grid>
%! s = ski_stats (1, 1, ski_grid ([], "grid_size", 10, "grid_bounds", [0 2]));
%! ski_gsgp ("stats", s, "grid_size", 12, "learn", {});
%!error <needed by method = "ski">
%! s = ski_stats (1, 1, ski_grid ([], "grid_size", 10, "grid_bounds", [0 2]));
%! ski_gsgp ("stats", s, "method", "ski", "learn", {});
%!error <'stats' must be ski_stats \(from ski_stats or ski_stats_merge\)> ski_gsgp ("stats", struct ("a", 1), "learn", {})
%!error <'b' was built on another grid than 'a'>
%! c = ski_case ("1d");
%! a = ski_stats (c.x, c.y, ski_grid ([], "grid_size", 20, "grid_bounds", [-1 4]));
%! ski_stats_merge (ski_stats (c.x, c.y, ski_grid ([], "grid_size", 21, "grid_bounds", [-1 4])), a);
%!error <'probes' must be a whole number> ski_stats (1, 1, ski_grid ([], "grid_size", 10, "grid_bounds", [0 2]), "probes", -1)
%!error <'xnew' has 2 columns>
%! fit = ski_gsgp ((0:0.1:1)', sin (0:0.1:1)', "learn", {});
%! scalegp_predict (fit, [1 2; 3 4]);
