## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{g} =} ski_check_grid (@var{g}, @var{fname}, @var{arg})
## Private: a grid struct (size, bounds, interpolation), also taken from a
## ski_stats or ski_gsgp struct; errors name @var{arg}.
## @end deftypefn

function g = ski_check_grid (g, fname, arg)
  if (isstruct (g) && isscalar (g) && isfield (g, "grid") && isstruct (g.grid))
    g = g.grid;
  endif
  if (! (isstruct (g) && isscalar (g) && all (isfield (g, {"size", "bounds", "interpolation"}))))
    arg_error (fname, arg, "must be a grid from ski_grid (or a ski_stats / ski_gsgp struct)");
  endif
  d = numel (g.size);
  if (d < 1 || d > 8 || ! isnumeric (g.size) || any (g.size != fix (g.size)) || any (g.size < 1))
    arg_error (fname, arg, "must have 1 to 8 whole grid sizes");
  endif
  if (! (isnumeric (g.bounds) && isequal (size (g.bounds), [d, 2]) && all (isfinite (g.bounds(:)))))
    arg_error (fname, arg, "must have finite %d-by-2 bounds", d);
  endif
  g = struct ("size", double (g.size(:).'), "bounds", double (g.bounds),
              "interpolation", check_choice (g.interpolation, {"cubic", "linear"}, fname,
                                             "interpolation"));
endfunction
