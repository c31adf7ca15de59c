## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{x} =} check_input_matrix (@var{x}, @var{fname}, @var{arg})
## @deftypefnx {} {@var{x} =} check_input_matrix (@var{x}, @var{fname}, @var{arg}, @var{d})
## Private: an n-by-d full double matrix of inputs.  Accepts real numeric or
## logical arrays; a row vector is taken as a column (n points in one
## dimension, as in R), except that with @var{d} > 1 given a row of @var{d}
## values is one point.  Rejects complex, N-d, empty and non-finite inputs,
## naming @var{arg}.
## @end deftypefn

function x = check_input_matrix (x, fname, arg, d)
  if (! (isnumeric (x) || islogical (x)) || iscomplex (x))
    arg_error (fname, arg, "must be a real numeric matrix or vector, not %s",
               if_else (iscomplex (x), "complex", class (x)));
  endif
  if (ndims (x) != 2)
    arg_error (fname, arg, "must be a matrix (2 dimensions), not %d-D", ndims (x));
  endif
  one_point = nargin > 3 && d > 1 && rows (x) == 1 && columns (x) == d;
  if (rows (x) == 1 && ! one_point)
    x = x(:);
  endif
  if (isempty (x))
    arg_error (fname, arg, "is empty (%d x %d)", rows (x), columns (x));
  endif
  bad = find (! isfinite (x), 1);
  if (! isempty (bad))
    [i, j] = ind2sub (size (x), bad);
    arg_error (fname, arg, "contains NaN or Inf (first at row %d, column %d)", i, j);
  endif
  x = full (double (x));
endfunction

