## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{names} =} ski_bounds_policies ()
## Private: the bounds policies in the order of their core codes
## (sgp_ski_bounds_policy: 0 error, 1 truncate, 2 clamp, 3 drop).
## @end deftypefn

function names = ski_bounds_policies ()
  names = {"error", "truncate", "clamp", "drop"};
endfunction
