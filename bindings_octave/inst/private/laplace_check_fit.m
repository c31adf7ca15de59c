## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {[@var{fit}, @var{train}] =} laplace_check_fit (@var{fit}, @var{fname})
## Private: a gp_laplace result given back as plain data (from a file, another
## program or a user's edits) is checked by the core, as in R
## (@code{__sgp_call__ ("laplace_predict")}: every field that predict, summary and plot
## read; errors name the field, "'fit.root' ...").  Here the numeric fields only
## become full double matrices.  @var{train}: what summary and plot read, from
## the core (sgp_laplace_train_plain: loglik, accuracy, plot_scale, plot_y).
## @end deftypefn

function [fit, train] = laplace_check_fit (fit, fname)
  train = __sgp_call__ ("laplace_predict", fit, fname, "fit");
  for name = {"x", "f", "var", "weights", "root"}
    fit.(name{1}) = full (double (fit.(name{1})));
  endfor
endfunction
