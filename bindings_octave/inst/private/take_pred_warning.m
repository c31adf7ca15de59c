## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{pred} =} take_pred_warning (@var{pred}, @var{fname})
## Private: the core's warning of predictions (latent variances that rounding
## does not resolve; sgp_laplace_predict_plain, sgp_valla_predict_plain) given
## as @var{fname}'s warning and taken off the predictions, as R does.
## @end deftypefn

function pred = take_pred_warning (pred, fname)
  if (! isempty (pred.warning))
    warning ("scalegp:variance-unresolved", "%s: %s", fname, pred.warning);
  endif
  pred = rmfield (pred, "warning");
endfunction
