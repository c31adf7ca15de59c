## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{seed} =} check_seed (@var{seed}, @var{fname})
## Private: the @qcode{"seed"} option as a whole number >= 0; empty draws one
## from @code{rand}, so a run is reproducible from the seed stored in the
## result.
## @end deftypefn

function seed = check_seed (seed, fname)
  if (isempty (seed))
    seed = floor (rand () * 2147483647);
  else
    seed = check_count (seed, fname, "seed", 0);
  endif
endfunction
