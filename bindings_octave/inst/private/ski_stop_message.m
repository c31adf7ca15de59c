## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{msg} =} ski_stop_message (@var{what}, @var{stop}, @var{iterations}, @var{rel_residual}, @var{tol})
## Private: the warning of a solve that did not converge, in words that say
## why (@var{stop} from ski_stop_reason); the same words as R's.
## @end deftypefn

function msg = ski_stop_message (what, stop, iterations, rel_residual, tol)
  if (strcmp (stop, "max_iter"))
    msg = sprintf ("%s did not converge in %d iterations (relative residual %.3g > tol %.3g)",
                   what, iterations, rel_residual, tol);
  else
    msg = sprintf ("%s stopped after %d iterations at relative residual %.3g > tol %.3g: %s",
                   what, iterations, rel_residual, tol, ski_stop_words (stop));
  endif
endfunction
