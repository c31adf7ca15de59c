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
## or @code{[]} with the option @qcode{"range"}.  Options:
##
## @table @asis
## @item @qcode{"grid_size"}
## Points per dimension (one value or d).  Default: a spacing of at most a third
## of @qcode{"lengthscale"} when that is given, else about n^(1/d) points per
## dimension, plus the padding.
##
## @item @qcode{"grid_bounds"}
## d-by-2 lower and upper bounds (both are grid points).  Default: the data
## range plus @qcode{"grid_pad"} cells on each side.
##
## @item @qcode{"interpolation"}
## @qcode{"cubic"} (default) or @qcode{"linear"}.
##
## @item @qcode{"lengthscale"}, @qcode{"range"}, @qcode{"n"}, @qcode{"grid_pad"}
## Kernel lengthscale(s) for the default size; the d-by-2 data range (min,
## max) instead of @var{x}; the number of points (default rows of @var{x});
## the padding in cells (default 2 cubic, 1 linear).
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
  opts = parse_options (fname, struct ("grid_size", [], "grid_bounds", [],
                                       "interpolation", "cubic", "lengthscale", [],
                                       "range", [], "n", [], "grid_pad", []), varargin{:});
  if (! isempty (x))
    x = check_input_matrix (x, fname, "x");
    range = [min(x, [], 1).', max(x, [], 1).'];
    n = rows (x);
  elseif (! isempty (opts.range))
    range = opts.range;
    if (isvector (range) && numel (range) == 2)
      range = range(:).';
    endif
    if (! (isnumeric (range) && columns (range) == 2 && all (isfinite (range(:)))
           && all (range(:, 2) >= range(:, 1))))
      arg_error (fname, "range", "must be a finite d-by-2 matrix of (min, max) per dimension");
    endif
    n = 0;
  elseif (! isempty (opts.grid_bounds) && ! isempty (opts.grid_size))
    range = opts.grid_bounds;
    if (isvector (range) && numel (range) == 2)
      range = range(:).';
    endif
    if (! (isnumeric (range) && columns (range) == 2))
      arg_error (fname, "grid_bounds", "must be a d-by-2 matrix");
    endif
    n = 0;
  else
    arg_error (fname, "x", "is needed (or \"range\", or both \"grid_size\" and \"grid_bounds\")");
  endif
  if (! isempty (opts.n))
    n = check_count (opts.n, fname, "n", 0);
  endif
  grid = ski_make_grid (range, n, opts.grid_size, opts.grid_bounds, opts.interpolation,
                        opts.lengthscale, opts.grid_pad, fname);
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
%!error <'grid_size' must be whole> ski_grid ([], "range", [0 1], "grid_size", 2.5)
%!error <'interpolation' is unknown> ski_grid ([], "range", [0 1], "interpolation", "spline")
%!error <'range' must be> ski_grid ([], "range", [1 0])
%!## oversized grids (issue 11): beyond the int32 sizes of R, and statistics that
%!## cannot fit in memory ((343 + 2) x 1e14 doubles), name grid_size
%!error <'grid_size' must be at most 2147483647> ski_grid ([], "range", [0 1], "grid_size", 1e10)
%!error <'grid_size' must be at most> ski_grid ([], "range", [0 1], "grid_size", 3e9)
%!error <grid_size: .*GB for its statistics> ski_grid ([], "range", [0 1; 0 1; 0 1], "grid_size", [1e5 1e5 1e4])
%!error <grid_size: .*2\^50> ski_grid ([], "range", [0 1; 0 1; 0 1], "grid_size", [2e9 2e9 2e9])
