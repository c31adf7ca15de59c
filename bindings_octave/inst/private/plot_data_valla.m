## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: what scalegp_plot draws for a valla fit with 1-D inputs (as R's
## plot method): regression: the network output with a band of 2 predictive
## sds and an inner band of 2 latent sds; classification: the probability of
## class o.class (bernoulli: of 1) with the 2-sd latent band turned into
## probabilities.  The inducing points are ticks; o.data = @{x, y@} is drawn
## as points (labels as 0/1 for the class shown).
function v = plot_data_valla (fit, o, fname)
  if (! isfield (fit, "d") || ! isfield (fit, "x_range"))
    arg_error (fname, "fit", "has no field 'd' or 'x_range' (not a valla result?)");
  endif
  n_grid = check_count (if_else (isempty (o.n_grid), 200, o.n_grid), fname, "n_grid", 2, 2000);
  [dx, dy] = data_arg (o.data, fname);
  if (fit.d != 1)
    arg_error (fname, "fit", "needs 1-D inputs to plot (d = %d)", fit.d);
  endif
  r = [min([fit.x_range(:); dx]), max([fit.x_range(:); dx])];
  r += [-0.1, 0.1] * diff (r);
  g = linspace (r(1), r(2), n_grid)';
  p = predict_valla (fit, g);
  v = struct ("kind", "band", "x", g, "px", dx, "py", [], "marker", ".",
              "ticks", fit.inducing(:, 1), "xlabel", "x", "title", sprintf ("valla (%s)", fit.method));
  role = lik_role (fit.likelihood);
  if (strcmp (role, "noise"))
    sd = sqrt (p.var);
    lsd = sqrt (p.latent_var);
    [v.mid, v.lo, v.hi] = deal (p.mean, p.mean - 2 * sd, p.mean + 2 * sd);
    [v.inner_lo, v.inner_hi] = deal (p.mean - 2 * lsd, p.mean + 2 * lsd);
    v.py = dy;
    v.ylabel = "y";
    v.ylim = [min([v.lo; dy]), max([v.hi; dy])];
  else
    bern = strcmp (role, "two");
    k = if_else (bern, 1, check_count (if_else (isempty (o.class), 1, o.class), fname, "class",
                                       1, fit.C));
    f = p.mean;
    s = sqrt (p.var(:, k));
    v.mid = p.prob(:, k);
    v.lo = class_prob (f, k, f(:, k) - 2 * s, bern);
    v.hi = class_prob (f, k, f(:, k) + 2 * s, bern);
    if (! isempty (dy))
      v.py = double (dy == if_else (bern, max (dy), k));
    endif
    v.ylabel = sprintf ("P(class %d)", k);
    v.ylim = [0, 1];
  endif
endfunction

## The probability of class k when its latent value is z (the others at f).
function pr = class_prob (f, k, z, bern)
  if (bern)
    pr = 1 ./ (1 + exp (-z));
  else
    mx = max (f, [], 2);
    e = exp (f - mx);
    e(:, k) = exp (z - mx);
    pr = e(:, k) ./ sum (e, 2);
  endif
endfunction

function [dx, dy] = data_arg (data, fname)
  [dx, dy] = deal ([]);
  if (isempty (data))
    return;
  endif
  if (! (iscell (data) && numel (data) == 2 && isnumeric (data{1}) && numel (data{1}) == numel (data{2})))
    arg_error (fname, "data", "must be {x, y} with as many x as y values");
  endif
  dx = double (data{1}(:));
  dy = double (data{2}(:));
endfunction
