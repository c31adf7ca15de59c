## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: what scalegp_plot draws for a ski_gsgp fit (as R's plot method).
## 1-D: the posterior mean with a band of 2 sds (latent variance, plus the
## noise with o.noise) over the grid range (one cell in for cubic
## interpolation, where it is valid); 2-D: an image of the mean.
function v = plot_data_ski_gsgp (fit, o, fname)
  fit = ski_check_fit (fit, fname);
  n = check_count (if_else (isempty (o.n), 200, o.n), fname, "n", 2, 2000);
  noise = check_flag (if_else (isempty (o.noise), false, o.noise), fname, "noise");
  b = fit.grid.bounds;
  d = rows (b);
  pad = zeros (d, 1);
  if (strcmp (fit.grid.interpolation, "cubic"))
    pad = (b(:, 2) - b(:, 1)) ./ max (1, fit.grid.size(:) - 1);
  endif
  axis_pts = @(j) linspace (b(j, 1) + pad(j), b(j, 2) - pad(j), n)';
  if (d == 1)
    t = axis_pts (1);
    p = predict_ski_gsgp (fit, t, fname, "fit", "variance",
                          if_else (strcmp (fit.variance, "none"), "exact", fit.variance));
    sd = sqrt (p.var + noise * fit.noise);
    v = struct ("kind", "band", "x", t, "mid", p.mean, "lo", p.mean - 2 * sd,
                "hi", p.mean + 2 * sd, "px", [], "py", [], "marker", ".", "ticks", [],
                "xlabel", "x", "ylabel", "f(x)", "title", "ski_gsgp",
                "ylim", [min(p.mean - 2 * sd), max(p.mean + 2 * sd)]);
  elseif (d == 2)
    [t1, t2] = deal (axis_pts (1).', axis_pts (2).');
    [G1, G2] = meshgrid (t1, t2);
    p = predict_ski_gsgp (fit, [G1(:), G2(:)], fname, "fit", "variance", "none");
    v = struct ("kind", "image", "x1", t1, "x2", t2, "z", reshape (p.mean, n, n), "px", [],
                "xlabel", "x1", "ylabel", "x2", "title", "ski_gsgp: posterior mean");
  else
    arg_error (fname, "fit", "has %d dimensions; scalegp_plot shows 1 or 2", d);
  endif
endfunction
