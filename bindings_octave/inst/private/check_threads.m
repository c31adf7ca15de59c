## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{n} =} check_threads (@var{threads}, @var{fname})
## Private: the OpenMP thread count; empty or 0 means the OpenMP default
## (all cores, or OMP_NUM_THREADS).
## @end deftypefn

function n = check_threads (threads, fname)
  if (isempty (threads))
    n = 0;
  else
    n = check_count (threads, fname, "threads", 0);
  endif
endfunction
