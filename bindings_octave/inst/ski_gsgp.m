## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{fit} =} ski_gsgp (@var{x}, @var{y})
## @deftypefnx {} {@var{fit} =} ski_gsgp (@var{x}, @var{y}, @var{name}, @var{value}, @dots{})
## @deftypefnx {} {@var{fit} =} ski_gsgp ("stats", @var{s}, @var{name}, @var{value}, @dots{})
## Structured kernel interpolation as a grid-structured GP (GSGP).
##
## Gaussian-process regression whose kernel is interpolated from a regular
## grid, k(x, x') ~ w(x)' K_G w(x'), with sparse cubic (or linear)
## interpolation weights w and the kernel matrix K_G of the grid points: the
## exact GP with covariance W K_G W' + noise I.  With method @qcode{"gsgp"}
## each solver iteration costs only grid-size work, O(m log m): the data enter
## once through their sufficient statistics (@code{ski_stats}), so data larger
## than memory or spread over machines are fitted from merged statistics
## (@code{ski_stats_merge}).  Method @qcode{"ski"} runs classic SKI conjugate
## gradients on the n data for comparison; both give the same posterior.
##
## @var{x} is n-by-d (d <= 8; a vector is one dimension), @var{y} has n
## values.  Options (name/value, case-insensitive):
##
## @table @asis
## @item @qcode{"grid_size"}, @qcode{"grid_bounds"}, @qcode{"grid_pad"}
## Grid points per dimension (default: a spacing of at most a third of the
## lengthscale), d-by-2 bounds (both are grid points; default the data range
## plus 2 cells cubic / 1 linear) and that padding.
## @item @qcode{"kernel"}, @qcode{"lengthscale"}, @qcode{"outputscale"}, @qcode{"noise"}
## Kernel (@qcode{"rbf"} default, @qcode{"matern12"}, @qcode{"matern32"},
## @qcode{"matern52"}), one or d lengthscales (1), signal variance (1),
## Gaussian noise variance (1).
## @item @qcode{"interpolation"}
## @qcode{"cubic"} (default) or @qcode{"linear"}.
## @item @qcode{"method"}
## @qcode{"gsgp"} (default) or @qcode{"ski"} (needs @var{x}, @var{y}).
## @item @qcode{"tol"}, @qcode{"max_iter"}
## Relative residual of the solves (0.01) and most iterations (1000).
## @item @qcode{"variance"}, @qcode{"rank"}
## @qcode{"none"} (default), @qcode{"lanczos"} (a LOVE cache of rank
## @qcode{"rank"}, default min(m, 256); never negative, at most the prior) or
## @qcode{"exact"} (one grid-size solve per test point).  Variances are those
## of the latent function (add @code{fit.noise} for a new observation).
## @item @qcode{"loglik"}, @qcode{"probes"}, @qcode{"slq_max_iter"}
## Estimate the log marginal likelihood by stochastic Lanczos quadrature with
## that many probes (30) and Lanczos steps per probe (100).
## @item @qcode{"precond_rank"}
## Rank q of an optional preconditioner for the posterior-mean solve of
## method @qcode{"gsgp"} (0 = none, the default; a whole number below the
## number of grid points m): P = noise I + W V L V' W' with the top q
## eigenpairs of K_G (subspace iteration from a fixed-seed random start),
## applied in grid-size form.  It cuts iterations when there are many points
## per grid cell and little noise; @qcode{"tol"}, @code{fit.rel_residual} and
## @code{fit.history} still measure the unpreconditioned residual.  Variances
## and the log-likelihood are not preconditioned.
## @item @qcode{"xtest"}
## Test inputs; predictions are then in @code{fit.test.mean},
## @code{fit.test.var}.
## @item @qcode{"stats"}
## Statistics from @code{ski_stats}/@code{ski_stats_merge} instead of @var{x},
## @var{y} (their grid is used; for @qcode{"loglik"} they need probe sketches).
## @item @qcode{"bounds_policy"}
## Points outside the grid (data and @qcode{"xtest"}): @qcode{"error"}
## (default), @qcode{"clamp"}, @qcode{"drop"}, @qcode{"truncate"}; dropped
## test points get NaN mean and variance.
## @item @qcode{"backend"}, @qcode{"seed"}, @qcode{"verbose"}, @qcode{"threads"}
## @qcode{"auto"}, @qcode{"cpu"} or @qcode{"cuda"} (the core's backend;
## @qcode{"cuda"} is an error where no GPU build or device is available; the
## SKI solvers still run on the CPU); seed of the probes; progress output;
## OpenMP threads.
## @end table
##
## The result is a struct with @code{class = "ski_gsgp"} and the fields of the
## R result: @code{grid}, @code{weights} (m grid weights, first dimension
## fastest), @code{iterations}, @code{converged}, @code{rel_residual} (the
## true relative residual of the returned solution, recomputed),
## @code{stop} (why the solve stopped: @qcode{"tol"} (converged),
## @qcode{"max_iter"}, @qcode{"accuracy"} (rounding errors keep the residual
## above tol: raise it) or @qcode{"breakdown"}),
## @code{history} (iteration, rel_residual), @code{stats}, the model options,
## @code{love} (with @qcode{"lanczos"}), @code{loglik}, @code{logdet},
## @code{logdet_se}, @code{datafit} (with @qcode{"loglik"}), @code{timings},
## and @code{test} (with @qcode{"xtest"}).  A fit that did not reach
## @qcode{"tol"} has @code{converged = false} and gives a warning that says
## why; a solve that overflows (extreme outputscale, noise or y) is an error.  Predict at
## new inputs with @code{scalegp_predict (fit, xnew)}.
##
## @example
## @group
## x = 4 * rand (500, 1);  y = sin (2 * x) + 0.2 * randn (500, 1);
## fit = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.04,
##                 "variance", "lanczos", "xtest", (0:0.5:4)');
## [fit.test.mean, sin(2 * (0:0.5:4)')]
## @end group
## @end example
## @seealso{ski_stats, ski_stats_merge, ski_grid, scalegp_predict}
## @end deftypefn

function fit = ski_gsgp (varargin)
  fname = "ski_gsgp";
  x = [];
  y = [];
  args = varargin;
  if (numel (args) >= 1 && ! ischar (args{1}))
    x = args{1};
    args(1) = [];
    if (isempty (args) || ischar (args{1}))
      arg_error (fname, "y", "is missing (x was given)");
    endif
    y = args{1};
    args(1) = [];
  endif
  if (nargin < 1)
    print_usage ();
  endif
  defaults = struct ("grid_size", [], "grid_bounds", [], "grid_pad", [], "kernel", "rbf",
                     "lengthscale", 1, "outputscale", 1, "noise", 1,
                     "interpolation", "cubic", "method", "gsgp", "tol", 0.01,
                     "max_iter", 1000, "variance", "none", "rank", [], "loglik", false,
                     "probes", 30, "slq_max_iter", 100, "precond_rank", 0, "xtest", [], "stats", [],
                     "bounds_policy", "error", "backend", "auto", "seed", [],
                     "verbose", false, "threads", []);
  [opts, given] = parse_options (fname, defaults, args{:});
  o = ski_gsgp_options (opts, fname);
  has_data = ! (isempty (x) && isempty (y));
  if (has_data)
    x = check_input_matrix (x, fname, "x");
    y = ski_check_y (y, rows (x), fname);
  endif

  t0 = tic ();
  [stats, o.lengthscale] = ski_gsgp_stats (x, y, has_data, opts, given, o, fname);
  t1 = toc (t0);
  if (strcmp (o.method, "ski"))
    r = __sgp_ski_fit__ (stats, ski_gsgp_core_opts (o), x, y, o.verbose, o.threads);
  else
    r = __sgp_ski_fit__ (stats, ski_gsgp_core_opts (o), [], [], o.verbose, o.threads);
  endif
  t2 = toc (t0);

  fit = ski_gsgp_result (r, stats, o);
  fit.timings = struct ("preprocess", t1, "solve", t2 - t1);
  if (! fit.converged)
    warning ("scalegp:not-converged", "%s",
             ski_stop_message ("ski_gsgp: the mean solve", fit.stop, fit.iterations,
                               fit.rel_residual, o.tol));
  endif
  if (o.loglik && ! r.loglik_converged)
    warning ("scalegp:not-converged",
             "ski_gsgp: a log-likelihood solve did not reach tol (or probes were discarded); the estimate is rough");
  endif
  if (! isempty (opts.xtest))
    fit.test = predict_ski_gsgp (fit, opts.xtest, fname, "xtest", "threads", o.threads,
                                "backend", o.backend);
    fit.timings.predict = toc (t0) - t2;
  endif
  if (o.verbose)
    printf ("ski_gsgp: %s, %d points, %s grid, %d iterations, relative residual %.3g\n",
            o.method, stats.n, strjoin (arrayfun (@num2str, fit.grid.size, "uniformoutput", false), " x "),
            fit.iterations, fit.rel_residual);
  endif
endfunction


%!shared x, y
%! x = linspace (0, 3, 60)';
%! y = sin (2 * x);

%!test
%! fit = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-10, "xtest", [1; 2],
%!                 "variance", "exact", "seed", 1);
%! assert (fit.class, "ski_gsgp");
%! assert (fit.converged);
%! assert (fit.test.mean, sin (2 * [1; 2]), 0.05);
%! assert (all (fit.test.var >= 0));
%! assert (fit.history.rel_residual(1), 1);
%! p = scalegp_predict (fit, [1; 2]);
%! assert (p.mean, fit.test.mean, 1e-14);
%! assert (p.var, fit.test.var, 1e-14);

%!test
%! ## gsgp and ski agree; a fit from the statistics equals the one from the data
%! f1 = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-11);
%! f2 = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-11, "method", "ski");
%! f3 = ski_gsgp ("stats", f1.stats, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-11);
%! assert (f2.weights, f1.weights, 1e-7 * max (abs (f1.weights)));
%! assert (f3.weights, f1.weights, 0);

%!test
%! ## non-convergence: converged = false, residual in the result, a warning
%! warning ("off", "scalegp:not-converged", "local");
%! fit = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-12, "max_iter", 2);
%! assert (fit.converged, false);
%! assert (fit.iterations, 2);
%! assert (fit.rel_residual > 1e-12);
%!warning <did not converge in 2 iterations> ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-12, "max_iter", 2);

%!test
%! ## LOVE variances are never negative and at most the prior
%! fit = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "variance", "lanczos",
%!                 "rank", 3, "xtest", linspace (0.1, 2.9, 9)');
%! assert (fit.rank, 3);
%! assert (all (fit.test.var >= 0));
%! assert (all (fit.test.var <= 1 + 1e-12));

%!test
%! ## points outside the grid: "clamp" moves them inside, "drop" ignores them
%! c = ski_gsgp (x, y, "grid_bounds", [0.5 2], "grid_size", 20, "bounds_policy", "clamp");
%! assert (c.stats.n, 60);
%! assert (sum (c.stats.Wt1), 60, 1e-10);
%! d = ski_gsgp (x, y, "grid_bounds", [0.5 2], "grid_size", 20, "bounds_policy", "drop",
%!               "xtest", [0; 1; 1.9; 2.5], "variance", "exact");
%! assert (sum (d.stats.Wt1) < 60);
%! assert (d.converged);
%! ## dropped points are no data: n, yty count the kept ones (cubic valid range)
%! keep = x > 0.5 + 1.5 / 19 & x < 2 - 1.5 / 19;
%! assert (d.stats.n, sum (keep));
%! assert (d.stats.yty, sum (y(keep) .^ 2), 1e-14 * sum (y(keep) .^ 2));
%! s = ski_gsgp (x, y, "grid_bounds", [0.5 2], "grid_size", 20, "bounds_policy", "drop",
%!               "method", "ski", "tol", 1e-10);
%! assert (s.converged);
%! ## cubic valid range on this grid: [0.5 + h, 2 - h], h = 1.5 / 19
%! assert (isnan (d.test.mean), [true; false; false; true]);
%! assert (isnan (d.test.var), [true; false; false; true]);
%! assert (all (d.test.var(2:3) > 0));
%! assert (c.stats.n, 60);
%! p = scalegp_predict (c, [0; 1; 2.5]);
%! assert (all (isfinite (p.mean)));

%!test
%! ## honest convergence (issue 11): why a solve stopped, the true residual
%! warning ("off", "scalegp:not-converged", "local");
%! f = ski_gsgp (x, y, "grid_size", 30, "noise", 1e-6, "tol", 1e-15, "max_iter", 5000);
%! assert (f.converged, false);
%! assert (f.stop, "accuracy");
%! assert (f.iterations < 5000);
%! assert (f.rel_residual > 1e-15);
%! f = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-12, "max_iter", 2);
%! assert (f.stop, "max_iter");
%! f = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-8);
%! assert (f.stop, "tol");
%! assert (f.rel_residual <= 1e-8);
%!warning <attainable accuracy; raise tol> ski_gsgp (x, y, "grid_size", 30, "noise", 1e-6, "tol", 1e-15, "max_iter", 5000);
%!error <outputscale: the mean solve met a non-finite value> ski_gsgp (x, y, "grid_size", 30, "outputscale", 1e307);

%!function expect_error_like (f, pattern)
%!  try
%!    f ();
%!  catch err
%!    if (isempty (regexp (err.message, pattern, "once")))
%!      error ("expected an error matching <%s>, got <%s>", pattern, err.message);
%!    endif
%!    return;
%!  end_try_catch
%!  error ("expected an error matching <%s>, got none", pattern);
%!endfunction

%!test
%! ## damaged fits (issue 11): scalegp_predict names the field instead of
%! ## answering (a NaN in the LOVE factor gave variance 0)
%! fit = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "variance", "lanczos");
%! f = fit; f.love.Ft(2, 3) = NaN;
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.love.Ft' has NaN or Inf \\(the fit is damaged");
%! f = fit; f.love = [];
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.love' is missing");
%! f = fit; f.weights(4) = Inf;
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.weights' must be .* finite numbers");
%! f = fit; f.weights = f.weights(1:5);
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.weights'");
%! f = fit; f.kernel = "gauss";
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.kernel' must be one of");
%! f = fit; f.lengthscale = -1;
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.lengthscale'");
%! f = fit; f.noise = "a";
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.noise' must be one positive");
%! f = fit; f.max_iter = 0;
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.max_iter'");
%! f = fit; f.grid.size = f.grid.size + 1;
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.grid' differs");
%! f = rmfield (fit, "stats");
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.stats' is missing");
%! f = fit; f.variance = "exactly";
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.variance' is unknown");
%! p = scalegp_predict (fit, [1; 2]);
%! assert (all (p.var > 0));

%!error <'y' is missing> ski_gsgp (x)
%!error <'y' has length 59> ski_gsgp (x, y(2:end))
%!error <'x' contains NaN> ski_gsgp ([x; NaN], [y; 1])
%!error <'lengthscale' must be positive> ski_gsgp (x, y, "lengthscale", 0)
%!error <'noise' must be positive> ski_gsgp (x, y, "noise", -1)
%!error <'outputscale' must be positive> ski_gsgp (x, y, "outputscale", NaN)
%!error <grid_size> ski_gsgp (x, y, "grid_size", 3)
%!error <x: row 1, column 1 .* outside> ski_gsgp (x, y, "grid_bounds", [0.5 2], "grid_size", 20)
%!error <'method' is unknown> ski_gsgp (x, y, "method", "exact")
%!error <'variance' is unknown> ski_gsgp (x, y, "variance", "full")
%!error <'backend' is unknown> ski_gsgp (x, y, "backend", "gpu")
%!test
%! ## backend reaches the core context: "cpu" and "auto" give the same fit;
%! ## "cuda" is an error naming backend where it is not available
%! a = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "backend", "cpu");
%! b = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "backend", "auto");
%! assert (a.weights, b.weights, 0);
%! assert (a.backend, "cpu");
%! if (scalegp_info ().cuda_devices == 0)
%!   try
%!     ski_gsgp (x, y, "backend", "cuda");
%!     error ("no error");
%!   catch err
%!     assert (! isempty (strfind (err.message, "ski_gsgp: backend: \"cuda\" is not available")));
%!   end_try_catch
%! else
%!   ## accepted; the SKI solvers still run on the CPU, so the fit is the same
%!   c = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "backend", "cuda");
%!   assert (c.weights, a.weights, 0);
%! endif
%!test
%! ## verbose: a summary line (progress lines appear on runs longer than 1 s)
%! out = evalc ('ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "verbose", true);');
%! assert (! isempty (strfind (out, "ski_gsgp: gsgp, 60 points")));
%!error <'x' contains NaN> ski_gsgp ([x; Inf], [y; 1])
%!error <'y' contains NaN> ski_gsgp (x, [y(1:end-1); Inf])
%!error <'rank' must be a whole number> ski_gsgp (x, y, "variance", "lanczos", "rank", -1)
%!error <'probes' must be a whole number> ski_gsgp (x, y, "loglik", true, "probes", 0)
%!error <'lengthscale' must be> ski_gsgp (x, y, "lengthscale", [1 2])
%!error <'interpolation' is unknown> ski_gsgp (x, y, "interpolation", "quintic")
%!error <'tol' must be positive> ski_gsgp (x, y, "tol", 0)
%!error <'max_iter' must be a whole number> ski_gsgp (x, y, "max_iter", 0)
%!error <xtest> ski_gsgp (x, y, "xtest", 10)
%!error <'x' and 'y' are needed> ski_gsgp ("noise", 1)
%!error <unknown option 'foo'> ski_gsgp (x, y, "foo", 1)
