## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{y} =} ski_check_y (@var{y}, @var{n}, @var{fname})
## Private: responses, a real finite vector of length @var{n}.
## @end deftypefn

function y = ski_check_y (y, n, fname)
  if (! ((isnumeric (y) || islogical (y)) && ! iscomplex (y) && isvector (y)))
    arg_error (fname, "y", "must be a real numeric vector");
  endif
  if (numel (y) != n)
    arg_error (fname, "y", "has length %d but 'x' has %d rows", numel (y), n);
  endif
  bad = find (! isfinite (y), 1);
  if (! isempty (bad))
    arg_error (fname, "y", "contains NaN or Inf (first at %d)", bad);
  endif
  y = double (y(:));
endfunction
