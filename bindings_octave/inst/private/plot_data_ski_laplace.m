## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: what scalegp_plot draws for a ski_laplace fit (as R's plot
## method): the latent mode (o.what "mean") or its sd (o.what "sd": the
## fit's grid_var, from variance = "stochastic") at the grid points.  1-D: a
## curve, the mode with a band of 2 sds (grid_var where the fit has it, else
## the exact variances at the grid points); 2-D: a map with a colour key.
function v = plot_data_ski_laplace (fit, o, fname)
  __sgp_call__ ("ski_laplace_predict", fit, fname, "fit");  # the core's check of the fit
  what = check_choice (if_else (isempty (o.what), "mean", o.what), {"mean", "sd"}, fname, "what");
  g = fit.grid;
  sz = g.size(:).';
  d = numel (sz);
  if (d > 2)
    arg_error (fname, "fit", "has %d dimensions; scalegp_plot shows 1 or 2", d);
  endif
  gv = [];
  if (isfield (fit, "grid_var"))
    gv = fit.grid_var(:);
  endif
  if (strcmp (what, "sd") && isempty (gv))
    error ("scalegp:invalid-argument",
           "%s: what = \"sd\" needs a fit with variance = \"stochastic\"", fname);
  endif
  z = fit.weights(:);
  lab = "latent mode";
  if (strcmp (what, "sd"))
    z = sqrt (max (gv, 0));
    lab = "latent sd";
  endif
  pts = arrayfun (@(j) linspace (g.bounds(j, 1), g.bounds(j, 2), sz(j))', 1:d,
                   "uniformoutput", false);
  if (d == 1)
    [lo, hi] = deal ([]);
    if (strcmp (what, "mean"))
      if (isempty (gv))
        gv = scalegp_predict (fit, pts{1}, "type", "list").var;
      endif
      sd = sqrt (max (gv, 0));
      [lo, hi] = deal (z - 2 * sd, z + 2 * sd);
    endif
    yl = [min([z; lo]), max([z; hi])];
    v = struct ("kind", "band", "x", pts{1}, "mid", z, "lo", lo, "hi", hi, "px", [], "py", [],
                "marker", ".", "ticks", [], "xlabel", "x", "ylabel", lab, "title", "ski_laplace",
                "ylim", yl);
  else
    v = struct ("kind", "image", "x1", pts{1}', "x2", pts{2}', "z", reshape (z, sz).', "px", [],
                "xlabel", "x1", "ylabel", "x2", "title", lab, "colorbar", true,
                "contours", false);
  endif
endfunction
