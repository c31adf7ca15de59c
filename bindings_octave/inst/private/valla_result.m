## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private (valla): the fit struct from the core's result, with the same fields
## as R's valla list (levels is [] here: Octave labels have no level names).
function fit = valla_result (res, x, used, C, layers)
  fit = res;
  fit.likelihood = used.likelihood;
  fit.method = used.method;
  fit.n_class = if_else (strcmp (used.likelihood, "bernoulli"), 2, C);
  fit.levels = [];
  fit.layers = layers;
  fit.n = rows (x);
  fit.d = columns (x);
  fit.C = C;
  fit.x_range = [min(x, [], 1); max(x, [], 1)];
  fit.seed = used.seed;
  fit.class = "valla";
endfunction
