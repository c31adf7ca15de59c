## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{reason} =} ski_stop_reason (@var{code})
## Private: the name of an sgp_ski_stop code (why a solve of ski_gsgp
## stopped): "tol" (converged), "max_iter", "accuracy", "breakdown".
## @end deftypefn

function reason = ski_stop_reason (code)
  names = {"tol", "max_iter", "accuracy", "breakdown"};
  reason = names{code + 1};
endfunction
