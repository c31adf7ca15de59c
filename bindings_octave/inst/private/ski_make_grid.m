## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{g} =} ski_make_grid (@var{range}, @var{n}, @var{grid_size}, @var{grid_bounds}, @var{interpolation}, @var{lengthscale}, @var{grid_pad}, @var{fname})
## Private: checks the grid options and asks the core for the grid (shared
## by ski_grid and ski_gsgp).  @var{range} is d-by-2.
## @end deftypefn

function g = ski_make_grid (range, n, grid_size, grid_bounds, interpolation, lengthscale,
                            grid_pad, fname)
  d = rows (range);
  if (d > 8)
    arg_error (fname, "x", "has %d columns; the grid supports at most 8", d);
  endif
  if (isempty (grid_size))
    grid_size = zeros (1, d);
  else
    if (! (isnumeric (grid_size) && isreal (grid_size) && any (numel (grid_size) == [1, d])
           && all (isfinite (grid_size)) && all (grid_size == fix (grid_size))
           && all (grid_size >= 1)))
      arg_error (fname, "grid_size", "must be whole numbers >= 1, one or d = %d of them", d);
    endif
    ## (as in R, where sizes are integers; the core refuses grids whose
    ## statistics cannot fit in memory long before)
    if (any (grid_size > intmax ("int32")))
      arg_error (fname, "grid_size", "must be at most %d points per dimension (got %.15g)",
                 intmax ("int32"), max (grid_size));
    endif
    grid_size = double (grid_size(:).') .* ones (1, d);
  endif
  if (! isempty (grid_bounds))
    if (isvector (grid_bounds) && numel (grid_bounds) == 2)
      grid_bounds = grid_bounds(:).';
    endif
    if (! (isnumeric (grid_bounds) && isreal (grid_bounds) && isequal (size (grid_bounds), [d, 2])))
      arg_error (fname, "grid_bounds", "must be a %d-by-2 matrix", d);
    endif
    if (any (! isfinite (grid_bounds(:))))
      arg_error (fname, "grid_bounds", "must be finite");
    endif
    grid_bounds = double (grid_bounds);
  endif
  interpolation = check_choice (interpolation, {"cubic", "linear"}, fname, "interpolation");
  if (! isempty (lengthscale))
    lengthscale = check_positive (lengthscale, fname, "lengthscale", [1, d]);
  endif
  if (isempty (grid_pad))
    grid_pad = -1;
  else
    grid_pad = check_count (grid_pad, fname, "grid_pad", 0);
  endif
  [sz, b] = __sgp_ski_grid__ (double (range), double (n), grid_size, grid_bounds,
                              interpolation, grid_pad, double (lengthscale), fname);
  if (! isempty (grid_bounds))
    b = grid_bounds;   # kept exactly, so grids from the same bounds compare equal
  endif
  g = struct ("size", sz, "bounds", b, "interpolation", interpolation);
endfunction
