## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{role} =} lik_role (@var{likelihood})
## A likelihood's role in valla's and mlp_fit's fronts, from the core's facts
## (__sgp_call__ ("info").likelihoods): @qcode{"noise"} (real targets, a noise
## variance), @qcode{"two"} (two classes, one latent: valla's P(y = 1)),
## @qcode{"multi"} (classes as many as the network's outputs or the labels'
## largest), else @qcode{"numbers"} (a name out of the table included).
## @end deftypefn

function role = lik_role (likelihood)
  [classes, n_classes, ~, t] = lik_label_coding (likelihood);
  k = find (strcmp (t.name, likelihood), 1);
  if (! isempty (k) && t.noise(k))
    role = "noise";
  elseif (! classes)
    role = "numbers";
  elseif (n_classes == 2)
    role = "two";
  else
    role = "multi";
  endif
endfunction
