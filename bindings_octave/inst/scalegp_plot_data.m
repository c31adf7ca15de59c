## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{v} =} scalegp_plot_data (@var{fit})
## @deftypefnx {} {@var{v} =} scalegp_plot_data (@var{fit}, @var{name}, @var{value}, @dots{})
## What @code{scalegp_plot} draws for a fitted scalegp model, as numbers (to
## draw with other tools, or to check a plot without a display).
##
## Returns a struct with @code{kind}:
## @table @asis
## @item @qcode{"band"} (1-D inputs)
## @code{x} (the grid), @code{mid} (the line), @code{lo}, @code{hi} (the band;
## valla regression also @code{inner_lo}, @code{inner_hi}: the latent band),
## @code{px}, @code{py} (data points), @code{marker}, @code{ticks} (valla:
## the inducing points), @code{ylim};
## @item @qcode{"image"} (2-D inputs)
## @code{x1}, @code{x2} (grid axes), @code{z} (@code{numel (x2)}-by-@code{numel (x1)}),
## @code{px} (the data, n-by-2); ski_laplace also @code{colorbar} (true: draw
## a colour key) and @code{contours} (false: none);
## @end table
## and @code{xlabel}, @code{ylabel}, @code{title}.
##
## gp_laplace: 1-D: latent mean of class @qcode{"class"} (default 1) with 2
## latent standard deviations (including the computational uncertainty) and
## the data; poisson on the data's scale: the rate @code{exp (f)} per unit
## exposure (band ends transformed likewise) and each count divided by its
## exposure @code{exp (offset)}; classification: labels as ticks at the bottom
## and top.  2-D: the latent mean, or for classification the probability of
## class @qcode{"class"} (default C).  Option @qcode{"n_grid"} (100, at most 2000).
##
## ski_gsgp: 1-D: posterior mean with 2 standard deviations (the latent
## variance, plus the noise with @qcode{"noise"}, true); 2-D: the mean.
## Option @qcode{"n"} (200 points per dimension, at most 2000).
##
## ski_laplace (as R's plot method): option @qcode{"what"}: @qcode{"mean"}
## (default), the latent mode at the grid points, or @qcode{"sd"}, its standard
## deviation from the fit's @code{grid_var} (a fit with @code{variance =
## "stochastic"}; an error otherwise).  1-D: the curve, the mode with a band of
## 2 sds (@code{grid_var} where the fit has it, else the exact variances at the
## grid points; no band for the sd); 2-D: the map with a colour key.
##
## valla (1-D inputs): regression: output with 2 predictive (outer) and latent
## (inner) standard deviations; classification: the probability of class
## @qcode{"class"} (default 1) with its 2-sd latent band.  Options
## @qcode{"data"}, @code{@{x, y@}} drawn as points, and @qcode{"n_grid"} (200, at most 2000).
## @seealso{scalegp_plot, scalegp_predict}
## @end deftypefn

function v = scalegp_plot_data (fit, varargin)
  if (nargin < 1)
    print_usage ();
  endif
  fname = "scalegp_plot_data";
  o = struct ("class", [], "n_grid", [], "n", [], "noise", [], "data", [], "what", []);
  o = parse_options (fname, o, varargin{:});
  switch (fit_class (fit, fname))
    case "gp_laplace"
      v = plot_data_gp_laplace (fit, only (o, {"class", "n_grid"}, fname), fname);
    case "ski_gsgp"
      v = plot_data_ski_gsgp (fit, only (o, {"n", "noise"}, fname), fname);
    case "ski_laplace"
      v = plot_data_ski_laplace (fit, only (o, {"what"}, fname), fname);
    case "valla"
      v = plot_data_valla (fit, only (o, {"class", "n_grid", "data"}, fname), fname);
  endswitch
endfunction

## The options of one method; another method's option is an error naming it.
function o = only (o, names, fname)
  for f = setdiff (fieldnames (o)', names)
    if (! isempty (o.(f{1})))
      arg_error (fname, f{1}, "does not apply to this fit (its options: %s)",
                 strjoin (names, ", "));
    endif
  endfor
endfunction
