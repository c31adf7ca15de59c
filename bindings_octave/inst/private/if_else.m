## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{r} =} if_else (@var{c}, @var{a}, @var{b})
## Private: @var{a} when @var{c} is true, else @var{b} (any types; unlike
## the built-in @code{merge}, @var{c} need not be logical).
## @end deftypefn

function r = if_else (c, a, b)
  if (c)
    r = a;
  else
    r = b;
  endif
endfunction
