## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {[@var{classes}, @var{n_classes}, @var{first}, @var{t}] =} lik_label_coding (@var{likelihood})
## How the core's likelihood codes class labels (__sgp_call__ ("info").likelihoods):
## whether its labels are classes, their number (0: the levels' count, given as
## n_class) and the code of the first; @var{t} the whole table. A name out of the
## table: numbers, not classes.
## @end deftypefn

function [classes, n_classes, first, t] = lik_label_coding (likelihood)
  info = __sgp_call__ ("info");
  t = info.likelihoods;
  k = find (strcmp (t.name, likelihood), 1);
  classes = ! isempty (k) && t.classes(k);
  n_classes = 0;
  first = 0;
  if (classes)
    n_classes = double (t.n_classes(k));
    first = double (t.first_class(k));
  endif
endfunction
