## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## scalegp_summary, scalegp_plot_data and scalegp_plot.  The
## summary's text equals R's line by line (test-parity-*.R); here its content
## is checked against the fit.  What a plot draws is checked as numbers
## (scalegp_plot_data) against scalegp_predict, the oracle of every line and
## band; the drawing itself runs when Octave has a graphics toolkit
## (octave-cli without a display has one only with gnuplot installed) and is
## skipped, as a run-time skip that run_all.m reports, otherwise.

%!shared x, y, yp, off, fl, fp, fs, fk, ski1, ski2, net, va
%! x = linspace (-2, 2, 40)';
%! y = sin (2 * x) + 0.1 * cos (7 * x);
%! off = log (repmat ([5; 20], 20, 1));
%! yp = round (exp (1 + sin (x) + off));
%! o = {"seed", 1, "threads", 1, "verbose", false};
%! fl = gp_laplace (x, double (y > 0), "max_iter", 40, "learn", {}, o{:});
%! fp = gp_laplace (x, yp, "likelihood", "poisson", "offset", off, "max_iter", 40, ...
%!                  "lengthscale", 0.7, "outputscale", 1, "mean", 1, o{:});
%! fs = gp_laplace (x, 1 + (y > 0) + (y > 0.5), "likelihood", "softmax", "max_iter", 40, ...
%!                  "learn", {}, o{:});
%! fk = gp_laplace ([x, x .^ 2], double (y > 0), "max_iter", 40, "learn", {}, o{:});
%! ski1 = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-8, "learn", {}, o{:});
%! ski2 = ski_gsgp ([x, cos(x)], y, "lengthscale", 0.5, "noise", 0.01, "grid_size", 15, ...
%!                  "learn", {}, o{:});
%! net = struct ("W", {{[1.2 -0.8 0.5 0.9], [0.7; -0.4; 0.6; 0.3]}},
%!               "b", {{[0.1 -0.2 0 0.3], 0.05}}, "activation", "tanh");
%! va = valla (net, x, y, "inducing", 5, "iterations", 30, o{:});

## summaries: printed when no output is asked for, the same text returned
%!test
%! t = scalegp_summary (fl);
%! assert (evalc ("scalegp_summary (fl)"), t);
%! assert (t(end), "\n");
%! assert (! isempty (strfind (t, "gp_laplace (IterNCGP) with bernoulli likelihood\n")));
%! assert (! isempty (strfind (t, "  data         n = 40, d = 1, C = 1\n")));
%! assert (! isempty (strfind (t, sprintf ("%d Newton steps, %d iterations", ...
%!                                         fl.newton_steps, fl.iterations))));
%! ## the training accuracy: the share of labels on the side of 0 the mode puts them
%! acc = mean ((fl.f > 0) == (y > 0));
%! assert (! isempty (strfind (t, sprintf ("train accuracy                    %.4f", acc))));
%! ## the log-likelihood at the mode, written out for the Bernoulli logit
%! ll = sum (log (1 ./ (1 + exp (-(2 * (y > 0) - 1) .* fl.f))));
%! assert (! isempty (strfind (t, sprintf ("train log-likelihood at the mode  %.4f", ll))));
%! ts = scalegp_summary (fs);
%! assert (! isempty (strfind (ts, "C = 3")));
%! assert (! isempty (regexp (ts, "mean 0 0 0; log evidence -?[0-9.]+; nothing learned")));

%!test
%! t = scalegp_summary (fp);
%! ## Poisson: sum of y eta - exp(eta) - log(y!) at eta = f + offset
%! eta = fp.f + off;
%! ll = sum (yp .* eta - exp (eta) - gammaln (yp + 1));
%! assert (! isempty (strfind (t, sprintf ("train log-likelihood at the mode  %.4f", ll))));
%! assert (isempty (strfind (t, "train accuracy")));
%! assert (! isempty (strfind (t, "learned: noise")) || ! isempty (strfind (t, "nothing learned")));

%!test
%! t = scalegp_summary (ski1);
%! assert (! isempty (strfind (t, "ski_gsgp fit (method \"gsgp\") on 40 points\n")));
%! b = ski1.grid.bounds;
%! assert (! isempty (strfind (t, sprintf ("  grid dim 1: %d points on [%.4g, %.4g]\n", ...
%!                                         ski1.grid.size, b(1), b(2)))));
%! assert (! isempty (strfind (t, sprintf ("  %d CG iterations, relative residual %.3g, converged", ...
%!                                         ski1.iterations, ski1.rel_residual))));
%! assert (! isempty (regexp (t, "variances: none; time preprocess [0-9.e+-]+s, solve")));
%! t2 = scalegp_summary (ski2);
%! assert (! isempty (strfind (t2, "  grid dim 2: 15 points on")));

%!test
%! t = scalegp_summary (va);
%! assert (! isempty (strfind (t, "valla fit (method \"valla\") with gaussian likelihood\n")));
%! ## 4 + 4 weights, 4 + 1 biases
%! assert (! isempty (strfind (t, "  network      13 parameters, tanh hidden units, C = 1 outputs\n")));
%! assert (! isempty (strfind (t, "  data         n = 40, d = 1; M = 5 inducing points\n")));
%! assert (! isempty (strfind (t, sprintf ("final objective %.5g", va.history.objective(end)))));

%!error <scalegp_summary: 'fit' must be a result of gp_laplace, ski_gsgp, ski_laplace or valla> scalegp_summary (1)
%!error <scalegp_summary: 'fit' has an unknown class "lm"> scalegp_summary (struct ("class", "lm"))
%!error <scalegp_summary: 'fit.x'> scalegp_summary (setfield (fl, "x", "a"))

## what the plots draw, against scalegp_predict
%!test
%! ## Poisson on the data's scale: count / exposure, and the rate exp(f) per
%! ## unit exposure (the predictions carry no offset) with the band's ends
%! v = scalegp_plot_data (fp, "n_grid", 30);
%! assert (v.kind, "band");
%! assert (v.py, yp ./ exp (off));
%! p = scalegp_predict (fp, v.x);
%! assert (v.mid, exp (p.mean), 1e-14 * max (exp (p.mean)));
%! assert (v.lo, exp (p.mean - 2 * sqrt (p.var)), 1e-14 * max (exp (p.mean)));
%! assert (all (v.lo < v.mid & v.mid < v.hi));
%! assert (v.ylabel, "rate (count / exposure)");
%! assert (v.ylim, [min([v.lo; v.py]), max([v.hi; v.py])]);

%!test
%! ## bernoulli: latent band, labels as ticks at the band's bottom (0) and top (1)
%! v = scalegp_plot_data (fl, "n_grid", 25);
%! p = scalegp_predict (fl, v.x);
%! assert (v.mid, p.mean, 0);
%! assert (v.hi - v.mid, 2 * sqrt (p.var), 1e-14);
%! assert (v.py(y > 0), repmat (max (v.hi), nnz (y > 0), 1));
%! assert (v.py(y <= 0), repmat (min (v.lo), nnz (y <= 0), 1));
%! v2 = scalegp_plot_data (fs, "class", 2, "n_grid", 25);
%! p2 = scalegp_predict (fs, v2.x);
%! assert (v2.mid, p2.mean(:, 2), 0);
%! assert (v2.ylabel, "latent f2");

%!test
%! ## 2-D: z(i, j) is the prediction at (x1(j), x2(i)); classification: P(class C)
%! v = scalegp_plot_data (fk, "n_grid", 7);
%! assert (v.kind, "image");
%! assert (size (v.z), [7 7]);
%! p = scalegp_predict (fk, [v.x1(3), v.x2(5)]);
%! assert (v.z(5, 3), p.prob, 1e-14);
%! assert (v.px, fk.x);
%! w = scalegp_plot_data (ski2, "n", 6);
%! q = scalegp_predict (ski2, [w.x1(2), w.x2(4)], "variance", "none");
%! assert (w.z(4, 2), q.mean, 1e-14);

%!test
%! ## ski 1-D: mean +- 2 sd (exact variances; with "noise", true the noise too)
%! ## on the grid range one cell in (cubic interpolation)
%! v = scalegp_plot_data (ski1, "n", 20);
%! b = ski1.grid.bounds;
%! h = (b(2) - b(1)) / (ski1.grid.size - 1);
%! assert (v.x([1 end])', b + [h, -h], 1e-14);
%! p = scalegp_predict (ski1, v.x, "variance", "exact");
%! assert (v.mid, p.mean, 1e-14);
%! assert (v.hi - v.mid, 2 * sqrt (p.var), 1e-12);
%! vn = scalegp_plot_data (ski1, "n", 20, "noise", true);
%! assert (vn.hi - vn.mid, 2 * sqrt (p.var + ski1.noise), 1e-12);

%!test
%! ## valla regression: the predictive band contains the latent band; data as given
%! v = scalegp_plot_data (va, "data", {x, y}, "n_grid", 50);
%! p = scalegp_predict (va, v.x);
%! assert (v.mid, p.mean, 0);
%! assert (v.hi - v.mid, 2 * sqrt (p.var), 1e-12);
%! assert (all (v.lo <= v.inner_lo & v.inner_hi <= v.hi));
%! assert ([v.px, v.py], [x, y]);
%! assert (v.ticks, va.inducing(:, 1));
%! assert (v.x([1 end])', [-2.4, 2.4], 1e-12);

%!error <scalegp_plot_data: 'n' does not apply to this fit> scalegp_plot_data (fl, "n", 10)
%!error <scalegp_plot_data: 'class' must be at most 3> scalegp_plot_data (fs, "class", 4)
## (without its scaling, whose centre and scale are one per column of the x it had)
%!error <scalegp_plot_data: 'fit' has d = 3 inputs> scalegp_plot_data (setfield (rmfield (fl, "scaling"), "x", [x, x, x]))
%!error <scalegp_plot_data: unknown option 'nope'> scalegp_plot_data (ski1, "nope", 1)
%!error <scalegp_plot_data: 'fit' needs 1-D inputs> scalegp_plot_data (setfield (va, "d", 2))

## drawing: the user's title, labels and axes settings replace the plot's own
%!testif ; ! isempty (available_graphics_toolkits ())
%! warning ("off", "Octave:gnuplot-graphics", "local");
%! tk = available_graphics_toolkits ();
%! graphics_toolkit (tk{1});
%! fig = figure ("visible", "off");
%! unwind_protect
%!   ax = scalegp_plot (fp);
%!   assert (get (get (ax, "title"), "string"), "gp_laplace (poisson)");
%!   assert (get (get (ax, "ylabel"), "string"), "rate (count / exposure)");
%!   ## the data points drawn are count / exposure
%!   pts = findobj (ax, "type", "line", "marker", ".");
%!   assert (get (pts, "ydata")(:), yp ./ exp (off));
%!   ax = scalegp_plot (fl, "title", "T", "xlabel", "X", "ylim", [-5 5]);
%!   assert (get (get (ax, "title"), "string"), "T");
%!   assert (get (get (ax, "xlabel"), "string"), "X");
%!   assert (get (ax, "ylim"), [-5 5]);
%!   ax = scalegp_plot (ski1, "ylabel", "f", "xlim", [-1 1]);
%!   assert (get (get (ax, "ylabel"), "string"), "f");
%!   assert (get (ax, "xlim"), [-1 1]);
%!   ax = scalegp_plot (ski2, "n", 10, "title", "two");
%!   assert (get (get (ax, "title"), "string"), "two");
%!   ax = scalegp_plot (fk, "n_grid", 10);
%!   assert (! isempty (findobj (ax, "type", "image")));
%!   ax = scalegp_plot (va, "data", {x, y}, "title", "V");
%!   assert (get (get (ax, "title"), "string"), "V");
%!   ax = scalegp_plot (fs, "class", 3);
%!   assert (get (get (ax, "ylabel"), "string"), "latent f3");
%!   fail ("scalegp_plot (fl, 'nonsense_property', 1)", "nonsense_property");
%! unwind_protect_cleanup
%!   close (fig);
%! end_unwind_protect
