## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{value} =} check_flag (@var{value}, @var{fname}, @var{arg})
## Private: a logical or numeric scalar 0/1, returned as a logical.
## @end deftypefn

function value = check_flag (value, fname, arg)
  if (! ((islogical (value) || isnumeric (value)) && isscalar (value)
         && (value == 0 || value == 1)))
    arg_error (fname, arg, "must be true or false");
  endif
  value = logical (value);
endfunction
