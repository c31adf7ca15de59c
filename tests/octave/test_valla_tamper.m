## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## Damaged valla fits: scalegp_predict checks a fit's fields
## (presence, types, dimensions, finiteness, and the P1 / P2 / prior
## combination each method leaves) and stops naming the field, instead of
## predicting with what is left.

%!shared tr, cf, lla, ella, x
%! x = linspace (-2, 2, 60)';
%! net = mlp_fit (x, sin (2 * x), 8, "iterations", 300, "lr", 0.01, "seed", 1);
%! tr = valla (net, x, sin (2 * x), "inducing", 5, "iterations", 50, "lr", 0.01, "seed", 1);
%! cf = valla (net, x, sin (2 * x), "inducing", 5, "closed_form", true);
%! lla = valla (net, x, sin (2 * x), "method", "lla");
%! ella = valla (net, x, sin (2 * x), "method", "ella", "inducing", 10, "ella_rank", 5);

%!test
%! for f = {tr, cf, lla, ella}
%!   p = scalegp_predict (f{1}, x);
%!   assert (all (isfinite (p.var) & p.var > 0));
%! endfor

## fields missing or of the wrong type
%!error <'fit.P1' is missing> scalegp_predict (rmfield (tr, "P1"), x)
%!error <'fit.prior' is missing> scalegp_predict (rmfield (tr, "prior"), x)
%!error <'fit.closed_form' is missing> scalegp_predict (rmfield (tr, "closed_form"), x)
%!error <'fit.prior' must be TRUE or FALSE> scalegp_predict (setfield (tr, "prior", "yes"), x)
%!error <'fit.prior' must be TRUE or FALSE> scalegp_predict (setfield (tr, "prior", NaN), x)
%!error <'fit.model' must be a network as plain data> scalegp_predict (setfield (tr, "model", 1), x)
%!error <'fit.likelihood' must be one of> scalegp_predict (setfield (tr, "likelihood", 3), x)
%!error <'fit.likelihood' must be one of> scalegp_predict (setfield (tr, "likelihood", "poisson"), x)

## values and shapes (the core)
%!error <'P1' contains NaN or Inf> scalegp_predict (setfield (tr, "P1", NaN (5)), x)
%!error <'fit.P1' must be empty or a 5 x 5 numeric matrix> scalegp_predict (setfield (tr, "P1", tr.P1(2:end, :)), x)
%!error <'fit.prior_var' must be one positive finite number> scalegp_predict (setfield (tr, "prior_var", -1), x)

## P1 / P2 / prior that no method leaves
%!error <'P1' is missing although prior = true; the fit is damaged> scalegp_predict (setfield (tr, "P1", []), x)
%!error <'P2' a fit with prior = false has P2 and no P1> scalegp_predict (setfield (tr, "prior", false), x)
%!error <'closed_form' a valla fit with a trained A> scalegp_predict (setfield (tr, "P2", tr.P1), x)
%!error <'P2' is missing from a closed-form fit> scalegp_predict (setfield (cf, "P2", []), x)
%!error <'method' an exact LLA fit has P1, prior = true and no P2> scalegp_predict (setfield (lla, "P2", lla.P1), x)
%!error <'P1' is missing although prior = true> scalegp_predict (setfield (ella, "prior", true), x)
