## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{likelihood} =} valla_lik_of (@var{role})
## The name of the likelihood valla offers in a role (lik_role): valla's
## default is named by role.
## @end deftypefn

function likelihood = valla_lik_of (role)
  info = __sgp_call__ ("info");
  t = info.likelihoods;
  likelihood = "";
  for k = 1:numel (t.name)
    if (t.valla(k) && strcmp (lik_role (t.name{k}), role))
      likelihood = t.name{k};
      return;
    endif
  endfor
endfunction
