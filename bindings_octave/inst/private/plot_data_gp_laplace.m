## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: what scalegp_plot draws for a gp_laplace fit (as R's plot method).
## 1-D: the latent mean of class o.class with a band of 2 latent sds over a
## grid of the inputs' range and the data, on the core's plot_scale: "rate"
## (log link): the rate exp(f) per unit exposure (band ends transformed
## likewise) and each count / exp(offset); "probability" (binomial): the
## inverse logit and y / trials; "classes": labels as ticks at the bottom (0 /
## other classes) and top (1 / the class shown).  2-D: an image of the latent
## mean (classification: the probability of class o.class, default C).
function v = plot_data_gp_laplace (fit, o, fname)
  [fit, train] = laplace_check_fit (fit, fname);
  n_grid = check_count (if_else (isempty (o.n_grid), 100, o.n_grid), fname, "n_grid", 2, 2000);
  C = fit.n_class;
  d = columns (fit.x);
  pred = @(xs) predict_gp_laplace (fit, xs, {fname, "fit"});
  classify = strcmp (train.plot_scale, "classes");
  if (d == 1)
    c1 = check_count (if_else (isempty (o.class), 1, o.class), fname, "class", 1, C);
    g = linspace (min (fit.x), max (fit.x), n_grid)';
    p = pred (g);
    m = p.mean(:, c1);
    s = sqrt (p.var(:, c1));
    v = struct ("kind", "band", "x", g, "mid", m, "lo", m - 2 * s, "hi", m + 2 * s,
                "px", fit.x, "py", [], "marker", ".", "ticks", [],
                "xlabel", "x", "ylabel", sprintf ("latent f%s", if_else (C > 1, num2str (c1), "")),
                "title", sprintf ("gp_laplace (%s)", fit.likelihood));
    switch (train.plot_scale)  # the core's, with the data on that scale
      case "rate"
        v.mid = exp (v.mid);
        v.lo = exp (v.lo);
        v.hi = exp (v.hi);
        v.py = train.plot_y(:);
        v.ylabel = "rate (count / exposure)";
      case "probability"
        [v.mid, v.lo, v.hi] = deal (1 ./ (1 + exp (-v.mid)), 1 ./ (1 + exp (-v.lo)),
                                    1 ./ (1 + exp (-v.hi)));
        v.py = train.plot_y(:);
        v.ylabel = "probability (y / trials)";
      case "latent"
        v.py = train.plot_y(:);
      otherwise
        hit = fit.y(:) == if_else (C == 1, 1, c1);
        yl = [min(v.lo), max(v.hi)];
        v.py = yl(1 + hit)(:);
        v.marker = "+";
    endswitch
    v.ylim = [min([v.lo; v.py]), max([v.hi; v.py])];
  elseif (d == 2)
    c1 = check_count (if_else (isempty (o.class), C, o.class), fname, "class", 1, C);
    g1 = linspace (min (fit.x(:, 1)), max (fit.x(:, 1)), n_grid);
    g2 = linspace (min (fit.x(:, 2)), max (fit.x(:, 2)), n_grid);
    [G1, G2] = meshgrid (g1, g2);
    p = pred ([G1(:), G2(:)]);
    if (classify)
      z = p.prob(:, min (c1, columns (p.prob)));
      what = "probability";
    else
      z = p.mean(:, c1);
      what = "latent mean";
    endif
    v = struct ("kind", "image", "x1", g1, "x2", g2, "z", reshape (z, n_grid, n_grid),
                "px", fit.x, "xlabel", "x1", "ylabel", "x2",
                "title", sprintf ("gp_laplace (%s): %s", fit.likelihood, what));
  else
    arg_error (fname, "fit", "has d = %d inputs; scalegp_plot shows d = 1 or 2", d);
  endif
endfunction
