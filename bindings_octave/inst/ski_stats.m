## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{s} =} ski_stats (@var{x}, @var{y}, @var{grid})
## @deftypefnx {} {@var{s} =} ski_stats (@dots{}, @var{name}, @var{value}, @dots{})
## Sufficient statistics of SKI for one chunk of data.
##
## One pass over the rows of @var{x} (n-by-d) and @var{y} (n values) gives all
## that @code{ski_gsgp} needs from the data: @code{WtW} (the stencil of W'W,
## m-by-S), @code{Wty} (W'y), @code{Wt1} (W'1), @code{yty} (y'y),
## @code{ysum} and @code{n}, where W holds the interpolation weights of the
## data on @var{grid} (from @code{ski_grid}, or the @code{grid} of a
## @code{ski_stats} / @code{ski_gsgp} struct).  Memory does not grow with n.
## With many points per grid point (n >= 4m, 16m, 24m for d = 1, 2, 3, m grid
## points; any @qcode{"bounds_policy"} but @qcode{"truncate"}) a faster pass
## over per-cell moments of the points is used; it gives the same statistics
## up to rounding.
## Statistics of chunks on the same grid are added by @code{ski_stats_merge}
## and fitted by @code{ski_gsgp ("stats", @var{s}, @dots{})}.  The struct holds
## only numbers and strings, so it survives @code{save}/@code{load}.
##
## @code{WtW(g, s)} is B(g, g + o_s) for the stencil offset o_s (offsets in
## @{-R..R@}^d, first dimension fastest, R = 3 cubic, 1 linear).
##
## Options:
## @table @asis
## @item @qcode{"first_row"}
## Global index (0-based) of the chunk's first row; keys the random probes of
## the log-likelihood, so give every chunk its own (default 0).
## @item @qcode{"bounds_policy"}
## Points outside the grid: @qcode{"error"} (default), @qcode{"clamp"},
## @qcode{"drop"}, @qcode{"truncate"}.
## @item @qcode{"probes"}, @qcode{"seed"}
## Probe sketches for @code{ski_gsgp (@dots{}, "loglik", true)} (default 0:
## none) and their seed (default 1; the same for all chunks).
## @item @qcode{"verbose"}
## Report progress of the pass (shown on passes longer than a second; default
## false).
## @item @qcode{"threads"}
## OpenMP threads (default: all).
## @end table
##
## @example
## @group
## g = ski_grid ([], "range", [0 1], "grid_size", 30);
## x = rand (200, 1);  y = sin (6 * x);
## s = ski_stats_merge (ski_stats (x(1:100), y(1:100), g),
##                      ski_stats (x(101:end), y(101:end), g, "first_row", 100));
## s.n
##   @result{} 200
## @end group
## @end example
## @seealso{ski_grid, ski_stats_merge, ski_gsgp}
## @end deftypefn

function s = ski_stats (x, y, grid, varargin)
  if (nargin < 3)
    print_usage ();
  endif
  fname = "ski_stats";
  opts = parse_options (fname, struct ("first_row", 0, "bounds_policy", "error",
                                       "probes", 0, "seed", 1, "verbose", false,
                                       "threads", []), varargin{:});
  s = ski_stats_chunk (x, y, grid, opts, fname);
endfunction

%!shared g, x, y
%! g = ski_grid ([], "grid_size", 12, "grid_bounds", [-0.5 1.5]);
%! x = (0:0.05:1)';
%! y = x .^ 2;

%!error <grid_size: .*memory> ski_stats (rand (5, 3), rand (5, 1), struct ("size", [1e5 1e5 1e4], "bounds", [0 1; 0 1; 0 1], "interpolation", "cubic"))

%!test
%! s = ski_stats (x, y, g);
%! assert (s.class, "ski_stats");
%! assert (s.n, 21);
%! assert (s.yty, sum (y .^ 2), 1e-13);
%! assert (s.ysum, sum (y), 1e-13);
%! assert (sum (s.Wt1), 21, 1e-12);   # cubic weights sum to 1
%! assert (size (s.WtW), [12 7]);
%! assert (s.grid, g);

%!test
%! ## chunks merge to one pass; thread count does not matter
%! a = ski_stats (x(1:8), y(1:8), g);
%! b = ski_stats (x(9:end), y(9:end), g, "first_row", 8, "threads", 1);
%! s = ski_stats (x, y, g);
%! m = ski_stats_merge (a, b);
%! assert (m.WtW, s.WtW, 1e-13);
%! assert (m.Wty, s.Wty, 1e-13);
%! assert (m.n, s.n);

%!error <'y' has length 3> ski_stats (x, [1 2 3], g)
%!error <'x' contains NaN> ski_stats ([x; NaN], [y; 1], g)
%!error <'grid' must be a grid> ski_stats (x, y, 3)
%!error <'x' has 2 columns but the grid has 1> ski_stats ([x x], y, g)
%!error <outside> ski_stats (x + 1, y, g)
%!error <'bounds_policy' is unknown> ski_stats (x, y, g, "bounds_policy", "wrap")
%!error <'verbose' must be> ski_stats (x, y, g, "verbose", "yes")
