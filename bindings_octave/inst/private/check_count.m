## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{v} =} check_count (@var{v}, @var{fname}, @var{arg}, @var{min})
## Private: a whole number >= @var{min} (default 0), as a double.
## @end deftypefn

function v = check_count (v, fname, arg, min_value)
  if (nargin < 4)
    min_value = 0;
  endif
  if (! (isnumeric (v) || islogical (v)) || iscomplex (v) || ! isscalar (v)
      || ! isfinite (v) || v != fix (v) || v < min_value)
    arg_error (fname, arg, "must be a whole number >= %d", min_value);
  endif
  v = double (v);
endfunction
