## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} ski_stats_merge (@var{a}, @var{b}, @dots{})
## Add the SKI sufficient statistics of several chunks.
##
## The statistics of @code{ski_stats} are sums over data points, so those of
## the union of chunks are their sum.  All arguments must be built on the same
## grid (sizes, bounds, interpolation) and with the same @qcode{"probes"} and
## @qcode{"seed"}; otherwise the error names the argument (@qcode{'b'},
## @qcode{'...1'}, @dots{}).
## @seealso{ski_stats, ski_gsgp}
## @end deftypefn

function s = ski_stats_merge (a, varargin)
  if (nargin < 1)
    print_usage ();
  endif
  fname = "ski_stats_merge";
  s = ski_check_stats (a, fname, "a");
  fields = {"n", "yty", "ysum", "Wty", "Wt1", "WtW", "rhoz", "Wtz"};
  for i = 1:numel (varargin)
    if (i == 1)
      arg = "b";
    else
      arg = sprintf ("...%d", i - 1);
    endif
    t = ski_check_stats (varargin{i}, fname, arg);
    if (! (isequal (t.grid.size, s.grid.size) && isequal (t.grid.bounds, s.grid.bounds)
           && strcmp (t.grid.interpolation, s.grid.interpolation)))
      arg_error (fname, arg, ["was built on another grid than 'a' (sizes, bounds and ", ...
                              "interpolation must be identical; make the grid once with ski_grid)"]);
    endif
    if (t.probes != s.probes || (t.probes > 0 && t.probe_seed != s.probe_seed))
      arg_error (fname, arg, "has other probe sketches than 'a' (probes and seed must agree)");
    endif
    for f = fields
      s.(f{1}) = s.(f{1}) + t.(f{1});
    endfor
    for f = fields
      if (any (! isfinite (s.(f{1})(:))))
        arg_error (fname, arg, "makes the merged '%s' overflow (not finite); rescale y", f{1});
      endif
    endfor
  endfor
  s.class = "ski_stats";
endfunction

%!shared g, a
%! g = ski_grid ([], "grid_size", 20, "grid_bounds", [-1 4]);
%! a = ski_stats ([0; 1; 2], [1; 2; 3], g);
%!test
%! s = ski_stats_merge (a, a, a);
%! assert (s.n, 9);
%! assert (s.WtW, 3 * a.WtW, 1e-14);
%!error <'b' was built on another grid> ski_stats_merge (a, ski_stats (1, 1, ski_grid ([], "grid_size", 21, "grid_bounds", [-1 4])))
%!error <'...1' was built on another grid> ski_stats_merge (a, a, ski_stats (1, 1, ski_grid ([], "grid_size", 20, "grid_bounds", [-1 4], "interpolation", "linear")))
%!error <'b' must be a ski_stats struct> ski_stats_merge (a, 1)
%!error <'b' has other probe sketches> ski_stats_merge (a, ski_stats ([0; 1; 2], [1; 2; 3], g, "probes", 2))
