## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{fit} =} ski_laplace ([], @var{y}, @var{name}, @var{value}, @dots{})
## @deftypefnx {} {@var{fit} =} ski_laplace (@var{xy}, [], @var{name}, @var{value}, @dots{})
## @deftypefnx {} {@var{fit} =} ski_laplace (@var{x}, @var{y}, @var{name}, @var{value}, @dots{})
## Laplace inference for a latent Gaussian process on a regular grid with a
## non-Gaussian observation model per cell: Poisson counts with exposures, a
## point pattern as a log-Gaussian Cox process, Bernoulli or binomial labels.
## Newton's method runs in grid space: each step needs only products with the
## grid's kernel matrix (FFTs) and conjugate gradients.
##
## Layouts: cells, @code{ski_laplace ([], @var{y})} with one value per grid
## cell in @var{y} (an array of the grid's shape; NaN for a cell without data,
## an offset of -Inf for a cell without exposure; the cell centres are
## @code{1..size (@var{y})} unless @qcode{"grid_bounds"} says otherwise);
## points, @code{ski_laplace (@var{xy}, [])} with the point locations (the
## counts per cell are the points' linear interpolation weights, the exposure
## each cell's area); binned, @code{ski_laplace (@var{x}, @var{y})} with one
## observation per row of @var{x}, summed into the nearest cell; scattered,
## @code{ski_laplace (@var{x}, @var{y}, "layout", "scattered")}, one
## observation per row of @var{x} at its own location (the latent interpolated
## there, cubic by default: no binning).  A
## lengthscale, outputscale or mean not given is learned by the Laplace
## evidence (exact up to 512 observed cells, else estimated with probes and
## a standard error @code{fit.loglik_se}).  Name/value pairs:
##
## @table @asis
## @item @qcode{"offset"}
## Log exposure per cell (cells, points) or per observation (binned,
## scattered); -Inf
## marks a cell without exposure.
## @item @qcode{"trials"}
## Binomial trials (one value, or one per cell or observation).
## @item @qcode{"stats"}
## Points layout: @code{ski_stats} (or @code{ski_stats_merge}) of the point
## locations, made with @qcode{"interpolation"}, @qcode{"linear"} (any y, e.g.
## 1), in the place of @var{xy} (give @code{[]}): their @code{Wt1} are the
## counts and their grid is the fit's, so the points may come from files and
## workers.
## @item @qcode{"xtest"}
## Locations at which to predict: @code{fit.test.mean}, @code{fit.test.var}
## (the latent field), @code{fit.test.response}, @code{fit.test.response_var}.
## @c options: generated from the core's table by tools/option_docs.R
## @item @qcode{"likelihood"}
## the observation model per cell (softmax is not supported) (default @qcode{"poisson"}).
## @item @qcode{"layout"}
## "cells": y has one value per grid cell, no x; "points": x is a point pattern, no y (a log-Gaussian Cox process); "binned": x, y summed into the nearest cells; "scattered": x, y per observation at its own location (the latent interpolated there, no binning); "auto" picks cells, points or binned from the arguments (default @qcode{"auto"}).
## @item @qcode{"grid_size"}
## grid points per dimension (cells: dim(y); else 64 per dimension) (default @code{[]}).
## @item @qcode{"grid_bounds"}
## d x 2 range of the cell centres (cells: 1..dim(y); else the data's range plus grid_pad) (default @code{[]}).
## @item @qcode{"grid_pad"}
## cells added beyond the data's range on each side (points, binned) (default @code{1}).
## @item @qcode{"interpolation"}
## weights of a location on the grid: "cubic", "linear" or "auto" (cubic for the scattered layout, else linear; the points layout takes linear: its counts stay >= 0) (default @qcode{"auto"}).
## @item @qcode{"bounds_policy"}
## scattered: rows of x outside the grid's valid range: "error", "clamp" (to the nearest valid position) or "drop" (the observation; a warning counts them) (default @qcode{"error"}).
## @item @qcode{"kernel"}
## "rbf": s exp(-r^2/2); "matern12": s exp(-r); "matern32": s (1 + sqrt(3) r) exp(-sqrt(3) r); "matern52": s (1 + sqrt(5) r + 5 r^2/3) exp(-sqrt(5) r); "rq": s (1 + r^2/(2 alpha))^(-alpha); r = |x - x'| / lengthscale (default @qcode{"rbf"}).
## @item @qcode{"lengthscale"}
## one lengthscale, or one per column of x (ARD) (learned when not given) (default @code{[]}).
## @item @qcode{"outputscale"}
## kernel variance (learned when not given) (default @code{[]}).
## @item @qcode{"alpha"}
## shape parameter of the kernels whose formula has alpha (the others ignore it) (default @code{1}).
## @item @qcode{"mean"}
## constant prior mean of the latent field (learned when not given) (default @code{[]}).
## @item @qcode{"noise"}
## gaussian likelihood: the noise variance (fixed) (default @code{1}).
## @item @qcode{"dispersion"}
## negbin likelihood: r of the variance mu + mu^2 / r (fixed) (default @code{1}).
## @item @qcode{"learn"}
## hyperparameters learned by the Laplace evidence ("auto": those not given) (default @qcode{"auto"}).
## @item @qcode{"optim_max_iter"}
## evidence evaluations of the learning at most (default @code{100}).
## @item @qcode{"restarts"}
## extra seeded starts of the learning (default @code{0}).
## @item @qcode{"max_newton"}
## Newton steps at most (default @code{20}).
## @item @qcode{"tol"}
## converged when the bound on the mode's error |u - u^| is at most tol (default @code{1e-06}).
## @item @qcode{"damping"}
## halve Newton steps until the objective does not fall (default @code{true}).
## @item @qcode{"inner_rtol"}
## relative residual of the solves near the mode (default @code{1e-08}).
## @item @qcode{"max_iter"}
## conjugate-gradient steps per solve at most (default @code{1000}).
## @item @qcode{"loglik"}
## compute the Laplace evidence (default: when learning, or on the exact path) (default @code{[]}).
## @item @qcode{"loglik_method"}
## "exact": dense on the observed cells; "slq": stochastic Lanczos quadrature with probes; "eigen": preconditioned slq in a separable kernel's eigenbasis (at most 1024 points per dimension; cells, points and binned layouts); "auto": exact up to 512 observed cells (or observations), else eigen where it applies, else slq (default @qcode{"auto"}).
## @item @qcode{"probes"}
## slq and eigen: Rademacher probes of the log-determinant, traces and variances (default 10 on the eigen path, whose preconditioned probes vary less, 60 on slq) (default @code{[]}).
## @item @qcode{"slq_max_iter"}
## slq: Lanczos steps per probe at most (default @code{100}).
## @item @qcode{"variance"}
## latent variances: "exact" one solve per xtest point, and per observed cell (var) up to 512 of them; "stochastic" at every grid point from the probes (grid_var, grid_var_se, and var; no solve per point) (default @qcode{"exact"}).
## @item @qcode{"time_limit"}
## seconds for the whole call (learning included) (default @code{Inf}).
## @item @qcode{"backend"}, @qcode{"seed"}, @qcode{"verbose"}, @qcode{"threads"}
## compute backend: "auto", "cpu" or "cuda" (default @qcode{"auto"}); whole number for reproducible random choices; [] draws one with rand (default @code{[]}); print progress (default @code{false}); OpenMP threads (0: the OpenMP default) (default @code{0}).
## @c end of the generated options
## @end table
##
## @var{fit} has the fields of R's @code{ski_laplace} result: @code{weights}
## (the latent mode at the grid points, first dimension fastest), @code{f} and
## @code{var} at the observed cells (exact, one solve per cell, up to 512
## observed cells; from the probes with @qcode{"variance"},
## @qcode{"stochastic"}; [] otherwise), @code{observed} (their grid
## indices; scattered: [], and @code{x}, the observations' locations),
## @code{hyper}, @code{loglik}, @code{converged}, @code{optim}, ...
## A fit whose mode was not found has @code{converged} false and a warning.
##
## Example: counts with exposures on a 24 x 20 grid,
##
## @example
## [i, j] = ndgrid (1:24, 1:20);  e = 1 + 2 * rand (24, 20);
## y = randp (e .* exp (1 + sin (i / 4) + cos (j / 3)));
## fit = ski_laplace ([], y, "offset", log (e), "seed", 1);
## imagesc (reshape (exp (fit.weights), 24, 20)');  axis xy
## @end example
## @seealso{gp_laplace, ski_gsgp}
## @end deftypefn
function fit = ski_laplace (varargin)
  fname = "ski_laplace";
  if (nargin < 2)
    print_usage ();
  endif
  x = varargin{1};
  y = varargin{2};
  [front, opts] = split_options (fname, {"offset", "trials", "xtest", "stats"}, varargin{3:end});
  stats = front.stats;
  if (isstruct (x))  # ski_stats in the place of the points
    stats = x;
    x = [];
  endif
  if (! isempty (stats))
    stats = ski_check_stats (stats, fname, "stats");
  endif
  ydim = [];
  if (! isempty (x))
    x = check_input_matrix (x, fname, "x");
  endif
  if (! isempty (y))
    if (! (isnumeric (y) || islogical (y)))
      arg_error (fname, "y", "must be numeric");
    endif
    if (isempty (x))
      ydim = size (y);
      if (numel (ydim) == 2 && ydim(2) == 1)
        ydim = ydim(1);
      endif
    endif
    y = double (y(:));
  endif
  xtest = front.xtest;
  if (! isempty (xtest))
    xtest = check_input_matrix (xtest, fname, "xtest");
  endif
  if (isempty (option_value (fname, opts, "seed")))
    opts = set_option (opts, "seed", floor (rand () * 2147483647));
  endif
  r = __sgp_call__ ("ski_laplace", x, y, ydim, double (front.offset(:)),
                    double (front.trials(:)), xtest, stats, opts{:});
  sel = r.selection;
  fit = rmfield (r, {"selection", "warnings"});
  fit.hyper = sel.hyper;
  fit.loglik_grad = sel.loglik_grad;
  fit.learned = sel.learned;
  fit.optim = sel.optim;
  fit.class = "ski_laplace";
  w = r.warnings;
  if (ischar (w))
    w = {w};
  endif
  for i = 1:numel (w)
    warning ("scalegp:ski_laplace", "%s", w{i});
  endfor
endfunction

%!test
%! y = [0 1 2; 3 1 0; 0 0 5; 1 2 1];
%! fit = ski_laplace ([], y, "lengthscale", 1.5, "outputscale", 1, "mean", 0, "verbose", false);
%! assert (fit.converged);
%! assert (numel (fit.weights), 12);
%! assert (fit.used.layout, "cells");
%!error <ski_laplace: 'y' .*element 2> ski_laplace ([], [1 2.5 3], "verbose", false)
