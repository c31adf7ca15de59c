## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{v} =} check_count_or_inf (@var{v}, @var{fname}, @var{arg})
## Private: a whole number >= 0, or Inf (no limit), as a double.
## @end deftypefn

function v = check_count_or_inf (v, fname, arg)
  if (isnumeric (v) && isscalar (v) && isreal (v) && v == Inf)
    v = Inf;
  else
    v = check_count (v, fname, arg, 0);
  endif
endfunction
