## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{s} =} ski_stats (@var{x}, @var{y}, @var{grid})
## @deftypefnx {} {@var{s} =} ski_stats (@dots{}, @var{name}, @var{value}, @dots{})
## @deftypefnx {} {@var{s} =} ski_stats (@var{sources}, @var{grid}, "x", @var{xcols}, "y", @var{ycol}, @dots{})
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
## @strong{Chunk sources} (data in many files, or larger than memory):
## @var{sources} is a file name, a cellstr of file names, or a cell of file
## names and function handles that return @code{struct ("x", @dots{}, "y",
## @dots{})}.  CSV files are read in blocks of @qcode{"block_rows"} rows
## (default: a block's numbers about as many as the statistics', at least
## 10000; @qcode{"x"} and @qcode{"y"} are column names or indices; a blank
## line is skipped, any other line that is not the header's count of numbers
## is an error naming the file, the line and the data row); HDF5 files
## (@file{.h5}, @file{.hdf5}) are read in the same row blocks, each a hyperslab
## of the datasets named by @qcode{"x"} (n-by-d as R and Octave write a
## matrix, or n values) and @qcode{"y"} (n values; a variable saved by
## @code{save -hdf5} is read from its @code{value} dataset), so a chunk is
## never held whole.  The chunks are cut into as many groups of consecutive
## chunks as there are workers: @qcode{"workers"} @command{octave-cli}
## processes started for the call (no package needed; Ctrl-C kills them and
## leaves the session usable), or @code{netcellfun} over @qcode{"connections"}
## (from @code{pconnect}) of the parallel package, else one group in this
## process.  A group's blocks are added in order to one running accumulator,
## so a chunk costs what its rows cost, and the core merges the groups in
## order.  In one group the statistics are those of all rows in memory, to
## the bit (when the first block's rows choose the same pass as all rows: the
## moment pass from 4, 16, 24 points per grid point for d = 1, 2, 3); with
## workers, those of each group's rows merged: the same numbers bitwise on
## any engine with that many workers.  A group with a failing chunk, or whose
## worker died, is redone once in this process, then the error names the
## chunk.  The result also has @code{chunks} (@code{source},
## @code{rows}, @code{used}, @code{dropped} per chunk) and @code{dropped} (per
## chunk, the rows @qcode{"bounds_policy"} @qcode{"drop"} left out).
##
## Options, as name/value pairs with the same names as in R (every option's
## name, default, range and check are defined once in the compiled core; give
## every chunk its own @qcode{"first_row"} and the same @qcode{"seed"}):
## @table @asis
## @c options: generated from the core's table by tools/option_docs.R
## @item @qcode{"first_row"}
## global index (0-based) of x's first row: keys the probes of the chunk (default @code{0}).
## @item @qcode{"bounds_policy"}
## points outside the grid: "error", "truncate", "clamp" or "drop" (default @qcode{"error"}).
## @item @qcode{"probes"}
## probe sketches for ski_gsgp(loglik = TRUE) (0: none) (default @code{0}).
## @item @qcode{"seed"}
## seed of the probes; the same for every chunk (default @code{1}).
## @item @qcode{"backend"}, @qcode{"verbose"}, @qcode{"threads"}
## compute backend: "auto", "cpu" or "cuda" (default @qcode{"auto"}); print progress (default @code{false}); OpenMP threads (0: the OpenMP default) (default @code{0}).
## @c end of the generated options
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
  if (nargin >= 2 && (iscell (x) || ischar (x)) && isstruct (y))
    ## chunk sources: ski_stats (files, grid, "x", cols, "y", col, ...)
    opts = varargin;
    if (nargin >= 3)
      opts = [{grid}, varargin];
    endif
    s = ski_stats_sources (x, y, opts);
    return;
  endif
  if (nargin < 3)
    print_usage ();
  endif
  fname = "ski_stats";
  x = check_input_matrix (x, fname, "x");
  y = ski_check_y (y, rows (x), fname);
  ## the core reads and checks the grid (a ski_grid, ski_stats or ski_gsgp struct, or a
  ## struct of size, bounds, interpolation) and the options (name/value pairs), and
  ## computes the statistics
  s = __sgp_call__ ("ski_stats", x, y, grid, varargin{:});
endfunction

%!shared g, x, y
%! g = ski_grid ([], "grid_size", 12, "grid_bounds", [-0.5 1.5]);
%! x = (0:0.05:1)';
%! y = x .^ 2;

%!error <ski_stats: 'grid_size' .*memory> ski_stats (rand (5, 3), rand (5, 1), struct ("size", [1e5 1e5 1e4], "bounds", [0 1; 0 1; 0 1], "interpolation", "cubic"))

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
%!error <ski_stats: 'bounds_policy' must be one of> ski_stats (x, y, g, "bounds_policy", "wrap")
%!error <'verbose' must be> ski_stats (x, y, g, "verbose", "yes")
