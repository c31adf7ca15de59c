## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{v} =} check_count (@var{v}, @var{fname}, @var{arg}, @var{min}, @var{max})
## Private: a whole number >= @var{min} (default 0) and <= @var{max} (default
## 2^53, the largest whole number a double holds exactly), as a double.
## @end deftypefn

function v = check_count (v, fname, arg, min_value, max_value)
  if (nargin < 4)
    min_value = 0;
  endif
  if (nargin < 5)
    max_value = flintmax ();
  endif
  if (! (isnumeric (v) || islogical (v)) || iscomplex (v) || ! isscalar (v)
      || ! isfinite (v) || v != fix (v) || v < min_value)
    arg_error (fname, arg, "must be a whole number >= %d", min_value);
  endif
  v = double (v);
  if (v > max_value)
    arg_error (fname, arg, "must be at most %d (got %d)", max_value, v);
  endif
endfunction
