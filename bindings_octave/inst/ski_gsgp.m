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
## values.  Options, as name/value pairs with the same names as in R (every
## option's name, default, range and check are defined once in the compiled
## core; @qcode{"precond_rank"}: P = noise I + W V L V' W' with the top
## eigenpairs of K_G; @qcode{"tol"}, @code{fit.rel_residual} and
## @code{fit.history} still measure the unpreconditioned residual; variances
## are those of the latent function, add @code{fit.noise} for a new
## observation):
##
## @table @asis
## @item @qcode{"xtest"}
## Test inputs; predictions are then in @code{fit.test.mean},
## @code{fit.test.var}.
## @item @qcode{"stats"}
## Statistics from @code{ski_stats}/@code{ski_stats_merge} instead of @var{x},
## @var{y} (both is an error but for method @qcode{"ski"}, which needs the data
## the statistics came from; their grid is used; for @qcode{"loglik"} they need
## probe sketches).
## @c options: generated from the core's table by tools/option_docs.R
## @item @qcode{"grid_size"}
## grid points per dimension, one value or d (NULL: from the lengthscale and the data range) (default @code{[]}).
## @item @qcode{"grid_bounds"}
## d-by-2 matrix of grid bounds, both grid points (NULL: the data range plus grid_pad cells) (default @code{[]}).
## @item @qcode{"grid_pad"}
## cells of padding of the default bounds (NULL: 2 cubic, 1 linear) (default @code{[]}).
## @item @qcode{"kernel"}
## "rbf": s exp(-r^2/2); "matern12": s exp(-r); "matern32": s (1 + sqrt(3) r) exp(-sqrt(3) r); "matern52": s (1 + sqrt(5) r + 5 r^2/3) exp(-sqrt(5) r); "rq": s (1 + r^2/(2 alpha))^(-alpha); r = |x - x'| / lengthscale (default @qcode{"rbf"}).
## @item @qcode{"lengthscale"}
## one lengthscale, or one per column of x (ARD); not given: learned (or 1 when learn leaves it out) (default @code{[]}).
## @item @qcode{"outputscale"}
## kernel variance; not given: learned (or 1 when learn leaves it out) (default @code{[]}).
## @item @qcode{"alpha"}
## shape parameter of the kernels whose formula has alpha (the others ignore it) (default @code{1}).
## @item @qcode{"noise"}
## Gaussian noise variance; not given: learned (or 1 when learn leaves it out) (default @code{[]}).
## @item @qcode{"mean"}
## constant prior mean; not given: learned (its GLS estimate when nothing else is; 0 when learn leaves it out) (default @code{[]}).
## @item @qcode{"learn"}
## maximize the log marginal likelihood over these of "lengthscale", "outputscale", "noise", "mean" ("auto": those not given; none (R character(0), Octave @{@}): all fixed, the ones not given at 1, the mean at 0) (default @qcode{"auto"}).
## @item @qcode{"optim_max_iter"}
## log-likelihood evaluations of the optimizer at most (default @code{100}).
## @item @qcode{"restarts"}
## extra optimizer starts from seeded random values (default @code{0}).
## @item @qcode{"interpolation"}
## "cubic" (4 taps per dimension) or "linear" (2); with stats: theirs (default @qcode{"cubic"}).
## @item @qcode{"method"}
## "gsgp" (grid work per iteration) or "ski" (classic SKI on the n data; needs x, y) (default @qcode{"gsgp"}).
## @item @qcode{"tol"}
## relative residual of the solves (default @code{0.01}).
## @item @qcode{"max_iter"}
## solver iterations at most (default @code{1000}).
## @item @qcode{"variance"}
## latent variances at xtest: "none", "lanczos" (LOVE) or "exact" (default @qcode{"none"}).
## @item @qcode{"rank"}
## Lanczos rank of variance "lanczos" (NULL: min(m, 256)) (default @code{[]}).
## @item @qcode{"loglik"}
## estimate the log marginal likelihood (stochastic Lanczos quadrature) (default @code{false}).
## @item @qcode{"probes"}
## random probes of the log-determinant estimate (NULL: 30, or 10 for the learning's "eigen" log-likelihood, whose preconditioned probes vary far less: on 3-D data 10 of them gave a standard error of 0.06 where 30 plain ones gave 17) (default @code{[]}).
## @item @qcode{"bounds_policy"}
## points outside the grid: "error", "truncate", "clamp" or "drop" (also at xtest) (default @qcode{"error"}).
## @item @qcode{"slq_max_iter"}
## Lanczos steps per probe of the log-determinant (default @code{100}).
## @item @qcode{"loglik_method"}
## log-likelihood and its gradient: "exact" (dense m-by-m, O(m^3), no probes), "slq" (stochastic, the statistics' probe sketches), "eigen" (stochastic, preconditioned in the kernel's eigenbasis; learning with rbf, or on a 1-D grid, with at most 512 points per dimension) or "auto" (exact for at most 2048 grid points, else eigen where it applies, else slq) (default @qcode{"auto"}).
## @item @qcode{"precond_rank"}
## method "gsgp": rank of the K_G preconditioner of the mean solve (0: none) (default @code{0}).
## @item @qcode{"backend"}, @qcode{"seed"}, @qcode{"verbose"}, @qcode{"threads"}
## compute backend: "auto", "cpu" or "cuda" (default @qcode{"auto"}); whole number for reproducible random choices; [] draws one with rand (default @code{[]}); print progress (default @code{false}); OpenMP threads (0: the OpenMP default) (default @code{0}).
## @c end of the generated options
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
## @code{love} (with @qcode{"lanczos"}: @code{Ft}, @code{c0} and @code{error},
## the bound on its variances' relative error at 8 grid nodes of the most
## data; above 1e-4 predictions warn: raise @qcode{"rank"}), @code{loglik},
## @code{logdet}, @code{logdet_se}, @code{datafit} (with @qcode{"loglik"}),
## @code{timings}, @code{test} (with @qcode{"xtest"}: mean, var, converged,
## var_error and clamped, as from @code{scalegp_predict}; exact variances
## run until a bound on their relative error from the solve's residual is at
## most 1e-4, and those not resolved make @code{converged} false with a
## warning; variance estimates below 0 are set to 0, counted in
## @code{clamped} and warned of), @code{interp_error} (the estimated
## interpolation error of the posterior mean; a warning when above a tenth of
## the noise sd), and the model selection: @code{hyper} (with the constant
## prior @code{mean}: not given, its GLS estimate, or learned with the others
## and ending at its GLS estimate; the solves run on y - mean, predictions add
## it), @code{learned}, @code{loglik} with @code{loglik_se} and @code{loglik_grad}
## (a struct by coordinate, with respect to the logarithms but for the mean) when anything was
## learned or with @qcode{"loglik"}, and @code{optim} (a struct of columns per
## evaluation).  A lengthscale, outputscale or noise not given is learned from
## the statistics and the probe sketches alone (L-BFGS on the SLQ log marginal
## likelihood; a learned lengthscale stays at least 3 grid cells); a value given
## is fixed unless @qcode{"learn"} names it; @code{"learn", @{@}} fixes all
## (those not given at 1).  An optimizer that did not converge warns with the
## identifier @code{scalegp:model-selection}.  A fit that did not reach
## @qcode{"tol"} has @code{converged = false} and gives a warning that says
## why; a solve that overflows (extreme outputscale, noise or y) is an error.  Predict at
## new inputs with @code{scalegp_predict (fit, xnew)}.
##
## @example
## @group
## x = 4 * rand (500, 1);  y = sin (2 * x) + 0.2 * randn (500, 1);
## fit = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.04,
##                 "variance", "lanczos", "xtest", (0:0.5:4)', "learn", @{@});
## [fit.test.mean, sin(2 * (0:0.5:4)')]
## @end group
## @end example
## @seealso{ski_stats, ski_stats_merge, ski_grid, scalegp_predict}
## @end deftypefn

function fit = ski_gsgp (varargin)
  fname = "ski_gsgp";
  if (nargin < 1)
    print_usage ();
  endif
  x = [];
  y = [];
  args = varargin;
  if (! ischar (args{1}))
    x = args{1};
    args(1) = [];
    if (isempty (args) || ischar (args{1}))
      arg_error (fname, "y", "is missing (x was given)");
    endif
    y = args{1};
    args(1) = [];
  endif
  [front, opts] = split_options (fname, {"xtest", "stats"}, args{:});
  if (! (isempty (x) && isempty (y)))
    x = check_input_matrix (x, fname, "x");
    y = ski_check_y (y, rows (x), fname);
  endif
  stats = front.stats;
  if (! isempty (stats))
    stats = ski_check_stats (stats, fname, "stats");
    stats.class = "ski_stats";
  endif
  if (isempty (option_value (fname, opts, "seed")))
    opts = set_option (opts, "seed", floor(rand () * 2147483647));
  endif

  ## the core checks the options (and against the data), makes the statistics, fits
  r = __sgp_call__ ("ski_gsgp", x, y, stats, opts{:});

  if (! isempty (r.stats))
    stats = r.stats;
  endif
  fit = ski_gsgp_result (r, stats);
  if (! isempty (r.used.warning))
    warning ("scalegp:not-converged", "%s", r.used.warning);
  endif
  if (! isempty (r.used.loglik_warning))
    warning ("scalegp:not-converged", "%s", r.used.loglik_warning);
  endif
  if (! isempty (r.used.selection_warning))
    warning ("scalegp:model-selection", "%s", r.used.selection_warning);
  endif
  if (! isempty (r.used.grid_warning))
    warning ("scalegp:grid", "%s", r.used.grid_warning);
  endif
  if (! isempty (front.xtest))
    t0 = tic ();
    fit.test = predict_ski_gsgp (fit, front.xtest, fname, "xtest", "threads",
                                 option_value (fname, opts, "threads"), "backend", fit.backend);
    fit.timings.predict = toc (t0);
    ## the fit's results include its variances: not resolved, not converged
    fit.converged = fit.converged && fit.test.converged;
  endif
  if (r.used.verbose)
    printf ("ski_gsgp: %s, %d points, %s grid, %d iterations, relative residual %.3g\n",
            fit.method, stats.n, strjoin (arrayfun (@num2str, fit.grid.size, "uniformoutput", false), " x "),
            fit.iterations, fit.rel_residual);
    printf ("  lengthscale %s, outputscale %.4g, noise %.4g; %s\n", num2str (fit.lengthscale(:)', 4),
            fit.outputscale, fit.noise, ifelse_learned (fit.learned));
    if (isfield (fit, "loglik"))
      if (fit.logdet_se > 0)
        printf ("  log marginal likelihood %.6g +- %.2g\n", fit.loglik, fit.logdet_se / 2);
      else  # the exact one (small grids)
        printf ("  log marginal likelihood %.6g (exact)\n", fit.loglik);
      endif
    endif
  endif
endfunction

function s = ifelse_learned (learned)
  if (isempty (learned))
    s = "nothing learned";
  else
    s = ["learned: " strjoin(learned, ", ")];
  endif
endfunction

%!demo
%! ## 20000 noisy readings of a 1-D signal on a 400-point grid; lengthscale,
%! ## outputscale, noise and prior mean learned from the statistics.
%! rand ("state", 1);  randn ("state", 1);
%! truth = @(x) sin (2 * x) + 0.5 * cos (5 * x);
%! x = 10 * rand (20000, 1);
%! y = truth (x) + 0.5 * randn (20000, 1);
%! fit = ski_gsgp (x, y, "grid_size", 400, "seed", 1);
%! scalegp_summary (fit);
%! xs = (1:2:9)';
%! p = scalegp_predict (fit, xs, "variance", "exact");
%! disp ([xs, p.mean, sqrt(p.var), truth(xs)]);   # x, mean, sd, truth
%! scalegp_plot (fit, "noise", true, "title", "posterior mean, 2 sd band for new readings");

%!demo
%! ## The same model from two chunks' statistics on one grid, merged: the
%! ## data need not be in memory together (ski_stats also reads files).
%! rand ("state", 1);  randn ("state", 1);
%! x = 10 * rand (20000, 1);
%! y = sin (2 * x) + 0.5 * cos (5 * x) + 0.5 * randn (20000, 1);
%! g = ski_grid ([], "range", [0 10], "grid_size", 400);
%! s = ski_stats_merge (ski_stats (x(1:10000), y(1:10000), g),
%!                      ski_stats (x(10001:end), y(10001:end), g, "first_row", 10000));
%! fit = ski_gsgp ("stats", s, "seed", 1);
%! scalegp_summary (fit);

%!shared x, y
%! x = linspace (0, 3, 60)';
%! y = sin (2 * x);

%!test
%! fit = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-10, "xtest", [1; 2],
%!                 "variance", "exact", "seed", 1, "learn", {});
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
%! f1 = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-11, "learn", {});
%! f2 = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-11, "method", "ski", "learn", {});
%! f3 = ski_gsgp ("stats", f1.stats, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-11, "learn", {});
%! assert (f2.weights, f1.weights, 1e-7 * max (abs (f1.weights)));
%! assert (f3.weights, f1.weights, 0);

%!test
%! ## non-convergence: converged = false, residual in the result, a warning
%! warning ("off", "scalegp:not-converged", "local");
%! fit = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-12, "max_iter", 2, "learn", {});
%! assert (fit.converged, false);
%! assert (fit.iterations, 2);
%! assert (fit.rel_residual > 1e-12);
%!warning <did not converge in 2 iterations> ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-12, "max_iter", 2, "learn", {});

%!test
%! ## LOVE variances are never negative and at most the prior
%! fit = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "variance", "lanczos",
%!                 "rank", 3, "xtest", linspace (0.1, 2.9, 9)', "learn", {});
%! assert (fit.rank, 3);
%! assert (all (fit.test.var >= 0));
%! assert (all (fit.test.var <= 1 + 1e-12));

%!test
%! ## points outside the grid: "clamp" moves them inside, "drop" ignores them
%! c = ski_gsgp (x, y, "grid_bounds", [0.5 2], "grid_size", 20, "bounds_policy", "clamp", "learn", {});
%! assert (c.stats.n, 60);
%! assert (sum (c.stats.Wt1), 60, 1e-10);
%! d = ski_gsgp (x, y, "grid_bounds", [0.5 2], "grid_size", 20, "bounds_policy", "drop",
%!               "xtest", [0; 1; 1.9; 2.5], "variance", "exact", "learn", {});
%! assert (sum (d.stats.Wt1) < 60);
%! assert (d.converged);
%! ## dropped points are no data: n, yty count the kept ones (cubic valid range)
%! keep = x > 0.5 + 1.5 / 19 & x < 2 - 1.5 / 19;
%! assert (d.stats.n, sum (keep));
%! assert (d.stats.yty, sum (y(keep) .^ 2), 1e-14 * sum (y(keep) .^ 2));
%! s = ski_gsgp (x, y, "grid_bounds", [0.5 2], "grid_size", 20, "bounds_policy", "drop",
%!               "method", "ski", "tol", 1e-10, "learn", {});
%! assert (s.converged);
%! ## cubic valid range on this grid: [0.5 + h, 2 - h], h = 1.5 / 19
%! assert (isnan (d.test.mean), [true; false; false; true]);
%! assert (isnan (d.test.var), [true; false; false; true]);
%! assert (all (d.test.var(2:3) > 0));
%! assert (c.stats.n, 60);
%! p = scalegp_predict (c, [0; 1; 2.5]);
%! assert (all (isfinite (p.mean)));

%!test
%! ## honest convergence: why a solve stopped, the true residual.
%! ## A tol below the attainable accuracy on noisy data, as test-ski-reliability.R
%! ## (on the noise-free shared y the ill-conditioned solve, cond ~ 1e8, ran to
%! ## max_iter instead once the stencil product rounded with fused multiply-adds:
%! ## which honest stop comes first there is a matter of rounding)
%! warning ("off", "scalegp:not-converged", "local");
%! rand ("state", 3); randn ("state", 3);
%! x2 = 3 * rand (200, 1); y2 = sin (2 * x2) + 0.1 * randn (200, 1);
%! f = ski_gsgp (x2, y2, "grid_size", 30, "noise", 1e-6, "tol", 1e-15, "max_iter", 5000, "learn", {});
%! assert (f.converged, false);
%! assert (f.stop, "accuracy");
%! assert (f.iterations < 5000);
%! assert (f.rel_residual > 1e-15);
%! f = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-12, "max_iter", 2, "learn", {});
%! assert (f.stop, "max_iter");
%! f = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-8, "learn", {});
%! assert (f.stop, "tol");
%! assert (f.rel_residual <= 1e-8);
%!test
%! ## (at this noise the grid also warns about its interpolation error: that warning comes last)
%! warning ("off", "scalegp:grid", "local");
%! lastwarn ("");
%! rand ("state", 3); randn ("state", 3);
%! x2 = 3 * rand (200, 1); y2 = sin (2 * x2) + 0.1 * randn (200, 1);
%! ski_gsgp (x2, y2, "grid_size", 30, "noise", 1e-6, "tol", 1e-15, "max_iter", 5000, "learn", {});
%! assert (! isempty (regexp (lastwarn (), "attainable accuracy; raise tol$", "once")));
%!error <ski_gsgp: 'outputscale' the mean solve met a non-finite value> ski_gsgp (x, y, "grid_size", 30, "outputscale", 1e307, "learn", {});

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
%! ## damaged fits: scalegp_predict names the field instead of
%! ## answering (a NaN in the LOVE factor gave variance 0)
%! fit = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "variance", "lanczos", "learn", {});
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
%! expect_error_like (@() scalegp_predict (f, [1; 2]), "'fit.variance' must be one of");
%! p = scalegp_predict (fit, [1; 2]);
%! assert (all (p.var > 0));

%!error <'y' is missing> ski_gsgp (x, "learn", {})
%!error <'y' has length 59> ski_gsgp (x, y(2:end), "learn", {})
%!error <'x' contains NaN> ski_gsgp ([x; NaN], [y; 1], "learn", {})
%!error <'lengthscale' must be positive> ski_gsgp (x, y, "lengthscale", 0, "learn", {})
%!error <'noise' must be positive> ski_gsgp (x, y, "noise", -1, "learn", {})
%!error <'outputscale' must be positive> ski_gsgp (x, y, "outputscale", NaN, "learn", {})
%!error <grid_size> ski_gsgp (x, y, "grid_size", 3, "learn", {})
%!error <ski_gsgp: 'x' row 1, column 1 .* outside> ski_gsgp (x, y, "grid_bounds", [0.5 2], "grid_size", 20, "learn", {})
%!error <ski_gsgp: 'method' must be one of> ski_gsgp (x, y, "method", "exact", "learn", {})
%!error <ski_gsgp: 'variance' must be one of> ski_gsgp (x, y, "variance", "full", "learn", {})
%!error <ski_gsgp: 'backend' must be one of> ski_gsgp (x, y, "backend", "gpu", "learn", {})
%!test
%! ## backend reaches the core context: "cpu" and "auto" give the same fit;
%! ## "cuda" is an error naming backend where it is not available
%! a = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "backend", "cpu", "learn", {});
%! b = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "backend", "auto", "learn", {});
%! assert (a.weights, b.weights, 0);
%! assert (a.backend, "cpu");
%! if (scalegp_info ().cuda_devices == 0)
%!   try
%!     ski_gsgp (x, y, "backend", "cuda", "learn", {});
%!     error ("no error");
%!   catch err
%!     assert (! isempty (strfind (err.message, "ski_gsgp: 'backend' \"cuda\" is not available")));
%!   end_try_catch
%! else
%!   ## accepted; the SKI solvers still run on the CPU, so the fit is the same
%!   c = ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "backend", "cuda", "learn", {});
%!   assert (c.weights, a.weights, 0);
%! endif
%!test
%! ## verbose: a summary line (progress lines appear on runs longer than 1 s)
%! out = evalc ('ski_gsgp (x, y, "lengthscale", 0.5, "noise", 0.01, "verbose", true, "learn", {});');
%! assert (! isempty (strfind (out, "ski_gsgp: gsgp, 60 points")));
%!error <'x' contains NaN> ski_gsgp ([x; Inf], [y; 1], "learn", {})
%!error <'y' contains NaN> ski_gsgp (x, [y(1:end-1); Inf], "learn", {})
%!error <'rank' must be a whole number> ski_gsgp (x, y, "variance", "lanczos", "rank", -1, "learn", {})
%!error <'probes' must be a whole number> ski_gsgp (x, y, "loglik", true, "probes", 0, "learn", {})
%!error <'lengthscale' must be> ski_gsgp (x, y, "lengthscale", [1 2], "learn", {})
%!error <ski_gsgp: 'interpolation' must be one of> ski_gsgp (x, y, "interpolation", "quintic", "learn", {})
%!error <'tol' must be positive> ski_gsgp (x, y, "tol", 0, "learn", {})
%!error <'max_iter' must be a whole number> ski_gsgp (x, y, "max_iter", 0, "learn", {})
%!error <xtest> ski_gsgp (x, y, "xtest", 10, "learn", {})
%!error <'x' and 'y' are needed> ski_gsgp ("noise", 1, "learn", {})
%!error <ski_gsgp: unknown option 'foo'> ski_gsgp (x, y, "foo", 1, "learn", {})
