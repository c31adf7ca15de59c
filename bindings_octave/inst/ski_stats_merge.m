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
  parts = [{a}, varargin];
  labels = [{"a", "b"}, arrayfun(@(i) sprintf ("...%d", i), 1:numel (parts) - 2,
                                 "uniformoutput", false)](1:numel (parts));
  ## the core reads and checks each part, that grids and probe sketches agree, adds,
  ## and names the argument
  s = __sgp_call__ ("ski_stats_merge", parts, labels, fname);   # the first one's grid
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
%!error <'b' must be ski_stats \(from ski_stats or ski_stats_merge\)> ski_stats_merge (a, 1)
%!error <'b' has other probe sketches> ski_stats_merge (a, ski_stats ([0; 1; 2], [1; 2; 3], g, "probes", 2))
%!## the core's merge checks and messages, the same texts as R's
%!error <ski_stats_merge: '...1' has other probe sketches than 'a' \(probes and seed must agree\)> ski_stats_merge (a, a, ski_stats ([0; 1; 2], [1; 2; 3], g, "probes", 2))
%!error <ski_stats_merge: 'b' makes the merged 'yty' overflow \(not finite\); rescale y> ski_stats_merge (setfield (a, "yty", 1.5e308), setfield (a, "yty", 1.5e308))
%!test
%! s = ski_stats_merge (a);
%! assert (s, a);
%! assert (fieldnames (ski_stats_merge (a, a)), fieldnames (a));
