## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} ski_check_stats (@var{s}, @var{fname}, @var{arg})
## Private: a ski_stats struct is read and checked by the core, as in R
## (@code{__sgp_call__ ("ski_stats_merge")} without an output: the grid, every field's shape
## against its stencil, finite values; errors name @var{arg}); here its fields
## only take the shapes the fronts index.
## @end deftypefn

function s = ski_check_stats (s, fname, arg)
  __sgp_call__ ("ski_stats_merge", {s}, {arg}, fname);
  s.grid = __sgp_call__ ("ski_grid_check", s.grid, fname, [arg ".grid"]);
  m = numel (s.Wty);
  s.Wty = double (s.Wty(:));
  s.Wt1 = double (s.Wt1(:));
  s.WtW = double (s.WtW);
  s.Wtz = reshape (double (s.Wtz), m, s.probes);
endfunction
