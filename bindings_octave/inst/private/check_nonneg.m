## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{v} =} check_nonneg (@var{v}, @var{fname}, @var{arg})
## Private: one non-negative finite real number, as a double.
## @end deftypefn

function v = check_nonneg (v, fname, arg)
  if (! (isnumeric (v) && isreal (v) && isscalar (v) && isfinite (v) && v >= 0))
    arg_error (fname, arg, "must be one non-negative finite number");
  endif
  v = double (v);
endfunction
