## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {} scalegp_plot (@var{fit})
## @deftypefnx {} {} scalegp_plot (@var{fit}, @var{name}, @var{value}, @dots{})
## @deftypefnx {} {@var{ax} =} scalegp_plot (@dots{})
## Plot a fitted scalegp model in the current axes.
##
## 1-D inputs: the fit's line with a band of 2 standard deviations and the
## data; 2-D inputs (gp_laplace, ski_gsgp): an image with contours; a 2-D
## ski_laplace fit: the map of its latent mode (or, with @qcode{"what"},
## @qcode{"sd"}, its sd) with a colour key.  What is drawn, and the options
## @qcode{"class"}, @qcode{"n_grid"}, @qcode{"n"}, @qcode{"noise"},
## @qcode{"data"} and @qcode{"what"}, are described in @code{scalegp_plot_data}.
##
## Every other name/value pair is a graphics setting that replaces the plot's
## own: @qcode{"title"}, @qcode{"xlabel"} and @qcode{"ylabel"} set those
## texts, any other name is an axes property (@qcode{"ylim"}, @qcode{"xlim"},
## @qcode{"fontsize"}, @dots{}).  Returns the axes handle.
##
## @example
## @group
## x = rand (200, 1);
## fit = ski_gsgp (x, sin (6 * x) + 0.1 * randn (200, 1), "lengthscale", 0.2,
##                 "noise", 0.01);
## scalegp_plot (fit, "title", "SKI fit", "ylim", [-2 2]);
## @end group
## @end example
## @seealso{scalegp_plot_data, scalegp_summary, scalegp_predict}
## @end deftypefn

function ax = scalegp_plot (fit, varargin)
  if (nargin < 1)
    print_usage ();
  endif
  names = {"class", "n_grid", "n", "noise", "data", "what"};
  [front, gpairs] = split_options ("scalegp_plot", names, varargin{:});
  args = {};
  for i = 1:numel (names)
    if (! isempty (front.(names{i})))
      args(end+1:end+2) = {names{i}, front.(names{i})};
    endif
  endfor
  v = scalegp_plot_data (fit, args{:});
  h = newplot ();
  if (strcmp (v.kind, "band"))
    draw_band (h, v);
  else
    draw_image (h, v);
  endif
  title (h, v.title);
  xlabel (h, v.xlabel);
  ylabel (h, v.ylabel);
  for i = 1:2:numel (gpairs)  # the user's settings win
    switch (gpairs{i})
      case "title"
        title (h, gpairs{i+1});
      case "xlabel"
        xlabel (h, gpairs{i+1});
      case "ylabel"
        ylabel (h, gpairs{i+1});
      otherwise
        set (h, gpairs{i}, gpairs{i+1});
    endswitch
  endfor
  if (nargout > 0)
    ax = h;
  endif
endfunction

function draw_band (h, v)
  hold (h, "on");
  if (! isempty (v.lo))   # ski_laplace's sd: a curve without a band
    fill (h, [v.x; flipud(v.x)], [v.lo; flipud(v.hi)], [0.78 0.86 0.93], "edgecolor", "none");
  endif
  if (isfield (v, "inner_lo"))
    fill (h, [v.x; flipud(v.x)], [v.inner_lo; flipud(v.inner_hi)], [0.6 0.74 0.86],
          "edgecolor", "none");
  endif
  plot (h, v.x, v.mid, "color", [0.21 0.39 0.55], "linewidth", 2);
  if (! isempty (v.py))
    plot (h, v.px, v.py, v.marker, "color", [0.2 0.2 0.2]);
  endif
  if (! isempty (v.ticks))
    plot (h, v.ticks, repmat (v.ylim(1), size (v.ticks)), "^", "color", [1 0.55 0]);
  endif
  hold (h, "off");
  if (v.ylim(2) > v.ylim(1))
    set (h, "ylim", v.ylim);
  endif
endfunction

function draw_image (h, v)
  imagesc (h, v.x1, v.x2, v.z);
  set (h, "ydir", "normal");
  hold (h, "on");
  if (! isfield (v, "contours") || v.contours)
    contour (h, v.x1, v.x2, v.z, 8, "k");
  endif
  if (! isempty (v.px))
    plot (h, v.px(:, 1), v.px(:, 2), "o", "color", "k", "markersize", 4);
  endif
  hold (h, "off");
  if (isfield (v, "colorbar") && v.colorbar)
    colormap (h, viridis (64));
    colorbar (h);
  endif
endfunction
