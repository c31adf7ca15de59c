## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private (valla): the likelihood, needed before the call to code the labels:
## empty gives gaussian for one network output and softmax for more (as in R);
## a given one is checked by the core (its choices and message) and against
## the network's outputs.
function likelihood = valla_likelihood (likelihood, C, fname)
  if (isempty (likelihood))
    likelihood = if_else (C == 1, "gaussian", "softmax");
    return;
  endif
  __sgp_call__ ("option_check", fname, "likelihood", likelihood);
  if (strcmp (likelihood, "softmax") && C < 2)
    arg_error (fname, "likelihood", "\"softmax\" needs a network with C >= 2 outputs (it has %d)", C);
  elseif (! strcmp (likelihood, "softmax") && C != 1)
    arg_error (fname, "likelihood", "\"%s\" needs a network with one output (it has %d); use \"softmax\"",
               likelihood, C);
  endif
endfunction
