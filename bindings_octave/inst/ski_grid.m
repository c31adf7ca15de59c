## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{grid} =} ski_grid (@var{x})
## @deftypefnx {} {@var{grid} =} ski_grid (@var{x}, @var{name}, @var{value}, @dots{})
## @deftypefnx {} {@var{grid} =} ski_grid ([], "range", @var{range}, @dots{})
## Regular grid of a structured kernel interpolation (SKI) model.
##
## The grid has @code{size(j)} equally spaced points in dimension j that
## include both bounds, @code{lo + (0:(m-1)) * (hi - lo) / (m - 1)}.  It is the
## grid of @code{ski_stats} and @code{ski_gsgp}; chunks whose statistics are
## merged must share one grid, so make it once (e.g. from the known data
## range) and pass it to every @code{ski_stats} call.
##
## @var{x} is an n-by-d data matrix (only its range and row count are used)
## or @code{[]} with the option @qcode{"range"} (the d-by-2 data range, min and
## max, instead of @var{x}) or with both @qcode{"grid_size"} and
## @qcode{"grid_bounds"}.  Options, as name/value pairs with the same names as
## in R (every option's name, default, range and check are defined once in the
## compiled core):
##
## @table @asis
## @item @qcode{"range"}
## The d-by-2 data range (min, max) instead of @var{x}.
## @c options: generated from the core's table by tools/option_docs.R
## @item @qcode{"grid_size"}
## grid points per dimension, one value or d (NULL: from the lengthscale or n and the range) (default @code{[]}).
## @item @qcode{"grid_bounds"}
## d-by-2 matrix of grid bounds, both grid points (NULL: the range plus grid_pad cells) (default @code{[]}).
## @item @qcode{"interpolation"}
## "cubic" (4 taps per dimension) or "linear" (2) (default @qcode{"cubic"}).
## @item @qcode{"lengthscale"}
## kernel lengthscale(s), one or d, for the default size (a third of it per cell) (default @code{[]}).
## @item @qcode{"n"}
## data points, for the default size without lengthscale (NULL: nrow(x)) (default @code{[]}).
## @item @qcode{"grid_pad"}
## cells of padding of the default bounds (NULL: 2 cubic, 1 linear) (default @code{[]}).
## @c end of the generated options
## @end table
##
## Returns a struct with fields @code{size} (1-by-d), @code{bounds} (d-by-2)
## and @code{interpolation}.
##
## @example
## @group
## g = ski_grid ([], "range", [0 1; -2 2], "grid_size", [20 40]);
## g.size
##   @result{} 20   40
## @end group
## @end example
## @seealso{ski_stats, ski_gsgp}
## @end deftypefn

function grid = ski_grid (x, varargin)
  if (nargin < 1)
    print_usage ();
  endif
  fname = "ski_grid";
  [front, opts] = split_options (fname, {"range"}, varargin{:});
  if (! isempty (x))
    x = check_input_matrix (x, fname, "x");
  endif
  ## the core checks the options and makes the grid (of x, range or grid_bounds)
  grid = __sgp_call__ ("ski_grid", x, front.range, opts{:});
endfunction

%!test
%! g = ski_grid ([], "grid_size", 11, "grid_bounds", [0 1]);
%! assert (g.size, 11);
%! assert (g.bounds, [0 1]);
%! assert (g.interpolation, "cubic");
%!test
%! g = ski_grid ([], "range", [0 1; -2 2], "grid_size", [20 40], "interpolation", "linear");
%! assert (g.size, [20 40]);
%! h = [1/17, 4/37];   # one cell of padding for linear
%! assert (g.bounds, [-h(1), 1 + h(1); -2 - h(2), 2 + h(2)], 1e-12);
%!test
%! g = ski_grid ((0:0.1:3)', "lengthscale", 0.3);
%! assert (diff (g.bounds) / (g.size - 1) <= 0.1 + 1e-12);
%!error <'x' is needed> ski_grid ([])
%!error <grid_size> ski_grid ([], "range", [0 1], "grid_size", 3)
%!error <ski_grid: 'grid_size' must be 1 to 8 whole numbers> ski_grid ([], "range", [0 1], "grid_size", 2.5)
%!error <ski_grid: 'interpolation' must be one of> ski_grid ([], "range", [0 1], "interpolation", "spline")
%!error <ski_grid: 'range' must have min <= max> ski_grid ([], "range", [1 0])
%!## oversized grids: beyond the int32 sizes of R, and statistics that
%!## cannot fit in memory ((343 + 2) x 1e14 doubles), name grid_size
%!error <'grid_size' must be at most 2147483647> ski_grid ([], "range", [0 1], "grid_size", 1e10)
%!error <'grid_size' must be at most> ski_grid ([], "range", [0 1], "grid_size", 3e9)
%!error <ski_grid: 'grid_size' .*GB for its statistics> ski_grid ([], "range", [0 1; 0 1; 0 1], "grid_size", [1e5 1e5 1e4])
%!error <ski_grid: 'grid_size' .*2\^50> ski_grid ([], "range", [0 1; 0 1; 0 1], "grid_size", [2e9 2e9 2e9])
