## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{fit} =} ski_check_fit (@var{fit}, @var{fname})
## Private: a ski_gsgp result given back as plain data (from a file or a user's
## edits) is checked by the core, as in R (@code{__sgp_call__ ("ski_predict")}: every
## field that predict, summary and plot read; errors name the field, "'fit.weights'
## ... (the fit is damaged; refit it)"); here its grid and statistics only take
## the shapes the fronts index.
## @end deftypefn

function fit = ski_check_fit (fit, fname)
  __sgp_call__ ("ski_predict", fit, fname, "fit");
  fit.grid = __sgp_call__ ("ski_grid_check", fit.grid, fname, "fit.grid");
  fit.stats = ski_check_stats (fit.stats, fname, "fit.stats");
endfunction
