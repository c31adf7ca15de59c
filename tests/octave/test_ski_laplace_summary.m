## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## scalegp_summary, scalegp_plot_data and scalegp_plot of ski_laplace fits.
## The summary's text equals R's line by line (test-parity-ski-laplace.R);
## here its content is checked against the fit's fields.  The plots' numbers
## are checked against the fit (the mode and grid_var at the grid points) and
## scalegp_predict (the 1-D band); the drawing runs in an invisible figure
## where Octave has a graphics toolkit (a run-time skip otherwise).

%!shared y, f2, fs, f1, f3
%! [i, j] = ndgrid (1:12, 1:10);
%! y = floor (3 * (1 + sin (i / 3) .* cos (j / 4)));
%! o = {"seed", 1, "threads", 1, "verbose", false};
%! f2 = ski_laplace ([], y, "lengthscale", 2, "outputscale", 1, "mean", 0.5, o{:});
%! fs = ski_laplace ([], y, "lengthscale", 2, "outputscale", 1, "mean", 0.5,
%!                   "variance", "stochastic", o{:});
%! f1 = ski_laplace ([], floor (3 * (1 + sin ((1:40)' / 5))), "lengthscale", 4,
%!                   "outputscale", 1, "mean", 0.5, o{:});
%! f3 = ski_laplace ([], ones (3, 3, 3), "lengthscale", 1, "outputscale", 1, "mean", 0, o{:});

## summary: R's print lines, then the Newton history as R prints a data frame
%!test
%! t = scalegp_summary (f2);
%! assert (evalc ("scalegp_summary (f2)"), t);
%! l = strsplit (t(1:end-1), "\n");
%! assert (l{1}, "<ski_laplace> poisson, cells layout, 12 x 10 grid (120 cells, 120 observed), rbf kernel");
%! assert (l{2}, sprintf ("  mode: %d Newton steps, %d CG steps, mode bound %.3g (converged)",
%!                        f2.newton_steps, f2.iterations, f2.mode_error));
%! assert (l{3}, "  lengthscale 2, outputscale 1, mean 0.5; nothing learned");
%! assert (l{4}, sprintf ("  log evidence %.6g (exact)", f2.loglik));
%! assert (l{5}, " step    psi mode_error damping cg_steps rel_residual   seconds");
%! assert (numel (l), 5 + f2.newton_steps);
%! ## psi in one fixed format (4 significant digits of the largest), the
%! ## mode bound, spanning many powers of ten, in scientific
%! h = f2.history;
%! assert (strtrim (l{6}(1:12)), sprintf ("1 %.1f", h.psi(1)));
%! assert (strtrim (l{end}(13:23)), sprintf ("%.3e", h.mode_error(end)));
%! assert (strtrim (l{end}(32:40)), sprintf ("%d", h.cg_steps(end)));

%!test
%! ## what was learned, a stochastic evidence with its standard error
%! fl = ski_laplace ([], y, "learn", {"mean"}, "lengthscale", 2, "outputscale", 1,
%!                   "seed", 1, "threads", 1, "verbose", false);
%! l = strsplit (scalegp_summary (fl), "\n");
%! assert (l{3}, sprintf ("  lengthscale 2, outputscale 1, mean %.4g; learned: mean", fl.hyper.mean));

%!test
%! ## a mode not found, no evidence, no history; every number format of R's
%! ## data frame print: a rounding that widens (10.0), a 3-digit exponent,
%! ## NaN, Inf (the lines R prints for the same values)
%! g = f2;
%! g.converged = false;
%! g.stop_reason = "max_iter";
%! g.loglik = NaN;
%! g.history = struct ("step", [1; 2; 3; 4], "psi", [9.99996; -0.5; 123456; 0],
%!                     "mode_error", [1e-120; 2.5; NaN; 1], "damping", [0.5; 0.25; 1; 1],
%!                     "cg_steps", [1; 10; 100; 1000], "rel_residual", [-Inf; 1e-3; 0.0123; 1],
%!                     "seconds", [Inf; 1.5e5; 2; 3]);
%! l = strsplit (scalegp_summary (g)(1:end-1), "\n");
%! assert (l{2}(end-24:end), "(NOT converged: max_iter)");
%! assert (l(4:end), {"  log evidence not computed", ...
%!   " step      psi mode_error damping cg_steps rel_residual seconds", ...
%!   "    1     10.0   1.0e-120    0.50        1         -Inf     Inf", ...
%!   "    2     -0.5    2.5e+00    0.25       10       0.0010  150000", ...
%!   "    3 123456.0        NaN    1.00      100       0.0123       2", ...
%!   "    4      0.0    1.0e+00    1.00     1000       1.0000       3"});
%! g.history = structfun (@(c) c([]), g.history, "uniformoutput", false);
%! assert (numel (strsplit (scalegp_summary (g)(1:end-1), "\n")), 4);

%!error <scalegp_summary: 'fit.weights' has 2 values; need 120> scalegp_summary (setfield (f2, "weights", [1; 2]))

## plot data: the mode (or sd) at the grid points
%!test
%! v = scalegp_plot_data (f2);
%! assert (v.kind, "image");
%! b = f2.grid.bounds;
%! assert (v.x1, linspace (b(1, 1), b(1, 2), 12), 1e-14);
%! assert (v.x2, linspace (b(2, 1), b(2, 2), 10), 1e-14);
%! ## z(i, j) is the mode at (x1(j), x2(i)); the grid's first dimension is fastest
%! W = reshape (f2.weights, 12, 10);
%! assert (v.z(4, 7), W(7, 4));
%! assert (size (v.z), [10 12]);
%! assert ([v.colorbar, v.contours], [true, false]);
%! assert (v.title, "latent mode");
%! vs = scalegp_plot_data (fs, "what", "sd");
%! assert (vs.z, reshape (sqrt (max (fs.grid_var, 0)), 12, 10).');
%! assert (vs.title, "latent sd");

%!test
%! ## 1-D: the mode with 2 sds; the exact variances at the grid points
%! ## (scalegp_predict) where the fit has no grid_var
%! v = scalegp_plot_data (f1);
%! assert (v.kind, "band");
%! assert (v.mid, f1.weights);
%! p = scalegp_predict (f1, v.x);
%! assert (p.mean, v.mid, 1e-10 * max (abs (v.mid)));
%! assert (v.hi - v.mid, 2 * sqrt (p.var), 1e-12);
%! assert (v.ylim, [min(v.lo), max(v.hi)]);
%! g = f1;
%! g.grid_var = linspace (0.1, 0.2, 40)';
%! v = scalegp_plot_data (g);
%! assert (v.mid - v.lo, 2 * sqrt (g.grid_var), 1e-14);
%! v = scalegp_plot_data (g, "what", "sd");
%! assert (v.mid, sqrt (g.grid_var));
%! assert (isempty (v.lo) && isempty (v.hi));

%!error <scalegp_plot_data: what = "sd" needs a fit with variance = "stochastic"> scalegp_plot_data (f2, "what", "sd")
%!error <scalegp_plot_data: 'what' is unknown: "var"> scalegp_plot_data (fs, "what", "var")
%!error <scalegp_plot_data: 'n' does not apply to this fit \(its options: what\)> scalegp_plot_data (f2, "n", 10)
%!error <scalegp_plot_data: 'what' does not apply to this fit> scalegp_plot_data (setfield (f2, "class", "gp_laplace"), "what", "sd")
%!error <scalegp_plot_data: 'fit' has 3 dimensions; scalegp_plot shows 1 or 2> scalegp_plot_data (f3)
%!error <scalegp_plot_data: 'fit.weights'> scalegp_plot_data (setfield (f2, "weights", 1))

## drawing: a map with a colour key, the sd map, the 1-D curve and its band
%!testif ; ! isempty (available_graphics_toolkits ())
%! warning ("off", "Octave:gnuplot-graphics", "local");
%! tk = available_graphics_toolkits ();
%! graphics_toolkit (tk{1});
%! fig = figure ("visible", "off");
%! unwind_protect
%!   ax = scalegp_plot (fs);
%!   assert (get (get (ax, "title"), "string"), "latent mode");
%!   assert (! isempty (findobj (ax, "type", "image")));
%!   assert (isempty (findobj (ax, "type", "contour")));
%!   assert (! isempty (findobj (fig, "tag", "colorbar")));
%!   ax = scalegp_plot (fs, "what", "sd", "title", "sd map");
%!   assert (get (get (ax, "title"), "string"), "sd map");
%!   im = findobj (ax, "type", "image");
%!   assert (get (im, "cdata"), reshape (sqrt (max (fs.grid_var, 0)), 12, 10).');
%!   clf (fig);
%!   ax = scalegp_plot (f1);
%!   assert (get (get (ax, "ylabel"), "string"), "latent mode");
%!   assert (numel (findobj (ax, "type", "patch")), 1);
%!   assert (get (findobj (ax, "type", "line"), "ydata")(:), f1.weights);
%! unwind_protect_cleanup
%!   close (fig);
%! end_unwind_protect
