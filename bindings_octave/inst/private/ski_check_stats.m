## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} ski_check_stats (@var{s}, @var{fname}, @var{arg})
## Private: checks the structure of a ski_stats struct (fields, sizes, finite
## values) with errors naming @var{arg}; the core checks the values again.
## @end deftypefn

function s = ski_check_stats (s, fname, arg)
  need = {"grid", "n", "yty", "ysum", "Wty", "Wt1", "WtW", "probes", "probe_seed", ...
          "rhoz", "Wtz"};
  if (! (isstruct (s) && isscalar (s) && all (isfield (s, need))))
    arg_error (fname, arg, "must be a ski_stats struct (from ski_stats or ski_stats_merge)");
  endif
  s.grid = ski_check_grid (s.grid, fname, arg);
  [m, S] = __sgp_ski_shape__ (s.grid.size, s.grid.bounds, s.grid.interpolation, fname);
  if (! (isnumeric (s.WtW) && isequal (size (s.WtW), [m, S])))
    arg_error (fname, arg, "has a 'WtW' that is not the %d-by-%d stencil of its grid", m, S);
  endif
  if (! (isreal (s.WtW) && all (isfinite (s.WtW(:)))))
    arg_error (fname, arg, "has a 'WtW' with NaN or Inf");
  endif
  if (! (isnumeric (s.Wty) && numel (s.Wty) == m && all (isfinite (s.Wty(:)))
         && isnumeric (s.Wt1) && numel (s.Wt1) == m && all (isfinite (s.Wt1(:)))))
    arg_error (fname, arg, "must have finite 'Wty' and 'Wt1' of length %d (the grid points)", m);
  endif
  sc = {s.n, s.yty, s.ysum, s.probes, s.probe_seed, s.rhoz};
  if (! all (cellfun (@(v) isnumeric (v) && isscalar (v) && isfinite (v), sc)))
    arg_error (fname, arg, "must have finite scalars n, yty, ysum, probes, probe_seed, rhoz");
  endif
  if (! (isnumeric (s.Wtz) && numel (s.Wtz) == m * s.probes))
    arg_error (fname, arg, "has a 'Wtz' that is not %d-by-probes", m);
  endif
  if (! (isreal (s.Wtz) && all (isfinite (s.Wtz(:)))))
    arg_error (fname, arg, "has a 'Wtz' with NaN or Inf");
  endif
  s.Wty = double (s.Wty(:));
  s.Wt1 = double (s.Wt1(:));
  s.WtW = double (s.WtW);
  s.Wtz = reshape (double (s.Wtz), m, s.probes);
endfunction

