## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{fit} =} ski_check_fit (@var{fit}, @var{fname})
## Private: checks the fields of a ski_gsgp fit that prediction uses
## (presence, types, dimensions, finite values), so that a damaged fit gives
## an error naming the field ("'fit.love.Ft' has NaN or Inf (the fit is
## damaged; refit it)") instead of a wrong answer: a NaN in the LOVE factor
## gave variance 0.  The same checks as R's ski_check_fit.
## @end deftypefn

function fit = ski_check_fit (fit, fname)
  need = {"grid", "weights", "iterations", "converged", "rel_residual", "stats", "kernel", ...
          "lengthscale", "outputscale", "noise", "method", "variance", "tol", "max_iter", ...
          "bounds_policy"};
  miss = need(! isfield (fit, need));
  if (! isempty (miss))
    bad (fname, miss{1}, "is missing");
  endif
  grid = ski_check_grid (fit.grid, fname, "fit.grid");
  stats = ski_check_stats (fit.stats, fname, "fit.stats");
  if (! (isequal (stats.grid.size, grid.size) && isequal (stats.grid.bounds, grid.bounds)
         && strcmp (stats.grid.interpolation, grid.interpolation)))
    bad (fname, "grid", "differs from the grid of its statistics");
  endif
  m = prod (grid.size);
  d = numel (grid.size);
  check_model (fit, d, fname);
  if (! (isnumeric (fit.weights) && isreal (fit.weights) && numel (fit.weights) == m
         && all (isfinite (fit.weights(:)))))
    bad (fname, "weights", "must be %d finite numbers (one per grid point)", m);
  endif
  check_love (fit, m, fname);
  check_results (fit, fname);
  fit.grid = grid;
  fit.stats = stats;
endfunction

function bad (fname, field, template, varargin)
  arg_error (fname, ["fit." field], [template " (the fit is damaged; refit it)"], varargin{:});
endfunction

function check_model (fit, d, fname)
  if (! (ischar (fit.kernel) && any (strcmp (fit.kernel, {"rbf", "matern12", "matern32", "matern52"}))))
    bad (fname, "kernel", "must be one of \"rbf\", \"matern12\", \"matern32\", \"matern52\"");
  endif
  ell = fit.lengthscale;
  if (! (isnumeric (ell) && isreal (ell) && any (numel (ell) == [1, d]) && all (isfinite (ell(:)))
         && all (ell(:) > 0)))
    bad (fname, "lengthscale", "must be 1 or %d positive finite numbers", d);
  endif
  for name = {"outputscale", "noise", "tol"}
    v = fit.(name{1});
    if (! (isnumeric (v) && isreal (v) && isscalar (v) && isfinite (v) && v > 0))
      bad (fname, name{1}, "must be one positive finite number");
    endif
  endfor
  mi = fit.max_iter;
  if (! (isnumeric (mi) && isscalar (mi) && isfinite (mi) && mi >= 1 && mi == fix (mi)))
    bad (fname, "max_iter", "must be a whole number >= 1");
  endif
  check_choice (fit.method, {"gsgp", "ski"}, fname, "fit.method");
  check_choice (fit.variance, {"none", "lanczos", "exact"}, fname, "fit.variance");
  check_choice (fit.bounds_policy, ski_bounds_policies (), fname, "fit.bounds_policy");
  if (isfield (fit, "backend"))
    check_choice (fit.backend, {"auto", "cpu", "cuda"}, fname, "fit.backend");
  endif
endfunction

## The LOVE cache: struct (Ft rank-by-m, c0 m values), finite; needed by
## variance "lanczos".
## What is shown to the user: iterations, converged, rel_residual, the
## optional log-likelihood figures and timings.
function check_results (fit, fname)
  it = fit.iterations;
  if (! (isnumeric (it) && isreal (it) && isscalar (it) && isfinite (it) && it >= 0
         && it == fix (it)))
    bad (fname, "iterations", "must be a whole number >= 0");
  endif
  cv = fit.converged;
  if (! ((islogical (cv) || isnumeric (cv)) && isscalar (cv) && any (cv == [0, 1])))
    bad (fname, "converged", "must be true or false");
  endif
  for name = {"rel_residual", "loglik", "logdet", "logdet_se", "datafit"}
    if (! strcmp (name{1}, "rel_residual") && ! isfield (fit, name{1}))
      continue;
    endif
    v = fit.(name{1});
    if (! (isnumeric (v) && isreal (v) && isscalar (v) && isfinite (v)))
      bad (fname, name{1}, "must be one finite number");
    endif
    if (any (strcmp (name{1}, {"rel_residual", "logdet_se"})) && v < 0)
      bad (fname, name{1}, "must be >= 0");
    endif
  endfor
  if (isfield (fit, "timings"))
    tm = fit.timings;
    ok = isstruct (tm) && isscalar (tm) && all (isfield (tm, {"preprocess", "solve"}));
    if (ok)
      v = struct2cell (tm);
      fin = @(t) isnumeric (t) && isreal (t) && isscalar (t) && isfinite (t) && t >= 0;
      ok = all (cellfun (fin, v));
    endif
    if (! ok)
      bad (fname, "timings", "must be a struct of finite seconds >= 0 (preprocess, solve, ...)");
    endif
  endif
endfunction

function check_love (fit, m, fname)
  if (! isfield (fit, "love") || isempty (fit.love))
    if (strcmp (fit.variance, "lanczos"))
      bad (fname, "love", "is missing (the fit was made with \"variance\", \"lanczos\")");
    endif
    return;
  endif
  love = fit.love;
  if (! (isstruct (love) && isscalar (love) && all (isfield (love, {"Ft", "c0"}))))
    bad (fname, "love", "must be a struct with Ft and c0");
  endif
  if (! (isnumeric (love.Ft) && isreal (love.Ft) && ismatrix (love.Ft) && columns (love.Ft) == m))
    bad (fname, "love.Ft", "must be a numeric rank-by-%d matrix", m);
  endif
  if (! all (isfinite (love.Ft(:))))
    bad (fname, "love.Ft", "has NaN or Inf");
  endif
  if (! (isnumeric (love.c0) && isreal (love.c0) && numel (love.c0) == m
         && all (isfinite (love.c0(:)))))
    bad (fname, "love.c0", "must be %d finite numbers", m);
  endif
endfunction
