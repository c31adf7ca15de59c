## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{words} =} ski_stop_words (@var{stop})
## Private: what a stop reason of ski_gsgp's solves means (as R's
## ski_stop_words).
## @end deftypefn

function words = ski_stop_words (stop)
  switch (stop)
    case "tol"
      words = "converged";
    case "max_iter"
      words = "max_iter reached";
    case "accuracy"
      words = "rounding errors keep the residual from getting smaller: the attainable accuracy; raise tol";
    otherwise
      words = "the system is not numerically positive definite";
  endswitch
endfunction
