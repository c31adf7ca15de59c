## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## scalegp_predict of a gp_laplace fit with type "link": the latent mean, as
## R's predict(type = "link"); an unknown type names the core's choices.

%!test
%! rand ("state", 5);
%! x = rand (40, 1);
%! y = double (rand (40, 1) < 0.5);
%! fit = gp_laplace (x, y, "lengthscale", 0.3, "outputscale", 1, "mean", 0, "learn", {},
%!                   "verbose", false);
%! p = scalegp_predict (fit, x);
%! assert (scalegp_predict (fit, x, "type", "link"), p.mean);

%!error <'type' must be one of "list", "response", "class", "link">
%! x = (1:10).' / 10;
%! fit = gp_laplace (x, mod (1:10, 2).', "learn", {}, "verbose", false);
%! scalegp_predict (fit, x, "type", "nonsense");
