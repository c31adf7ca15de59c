## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private (valla): the likelihood, needed before the call to code the labels:
## empty gives the noise one (lik_role) for one network output and the
## multi-class one for more (as in R); a given one is checked by the core (its
## choices and message) and against the network's outputs.
function likelihood = valla_likelihood (likelihood, C, fname)
  if (isempty (likelihood))
    likelihood = valla_lik_of (if_else (C == 1, "noise", "multi"));
    return;
  endif
  __sgp_call__ ("option_check", fname, "likelihood", likelihood);
  multi = strcmp (lik_role (likelihood), "multi");
  if (multi && C < 2)
    arg_error (fname, "likelihood", "\"%s\" needs a network with C >= 2 outputs (it has %d)",
               likelihood, C);
  elseif (! multi && C != 1)
    arg_error (fname, "likelihood", "\"%s\" needs a network with one output (it has %d); use \"%s\"",
               likelihood, C, valla_lik_of ("multi"));
  endif
endfunction
