## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {} scalegp_summary (@var{fit})
## @deftypefnx {} {@var{txt} =} scalegp_summary (@var{fit})
## Summary of a fitted scalegp model: the same lines as R's
## @code{print(summary(fit))}.
##
## @var{fit} is the struct returned by @code{gp_laplace}, @code{ski_gsgp},
## @code{ski_laplace} or @code{valla} (also after @code{save}/@code{load}).  Without an output the
## summary is printed; with one it is returned as text (lines ending in a
## newline).
##
## gp_laplace: likelihood, kernel and hyperparameters (with the log evidence
## and what was learned), data size, solver budget, convergence, the training
## log-likelihood at the mode and, for classification, the training accuracy.
## ski_gsgp: the grid, the kernel, the conjugate-gradient solve, what was
## learned, the log marginal likelihood and the timings.  ski_laplace: the
## likelihood, layout, grid and kernel, the mode's Newton and CG steps and
## convergence, the hyperparameters and what was learned, the log evidence,
## then the Newton history (R's data frame print, 4 digits).  valla: the network,
## data, prior variance, noise, training and validation.
## @seealso{scalegp_plot, scalegp_predict, gp_laplace, ski_gsgp, ski_laplace, valla}
## @end deftypefn

function txt = scalegp_summary (fit)
  if (nargin != 1)
    print_usage ();
  endif
  fname = "scalegp_summary";
  switch (fit_class (fit, fname))
    case "gp_laplace"
      lines = summary_gp_laplace (fit, fname);
    case "ski_gsgp"
      lines = summary_ski_gsgp (fit, fname);
    case "ski_laplace"
      lines = summary_ski_laplace (fit, fname);
    case "valla"
      lines = summary_valla (fit, fname);
  endswitch
  t = sprintf ("%s\n", lines{:});
  if (nargout > 0)
    txt = t;
  else
    printf ("%s", t);
  endif
endfunction
