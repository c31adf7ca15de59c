## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {} scalegp_summary (@var{fit})
## @deftypefnx {} {@var{txt} =} scalegp_summary (@var{fit})
## Summary of a fitted scalegp model: the same lines as R's
## @code{print(summary(fit))}.
##
## @var{fit} is the struct returned by @code{gp_laplace}, @code{ski_gsgp} or
## @code{valla} (also after @code{save}/@code{load}).  Without an output the
## summary is printed; with one it is returned as text (lines ending in a
## newline).
##
## gp_laplace: likelihood, kernel and hyperparameters (with the log evidence
## and what was learned), data size, solver budget, convergence, the training
## log-likelihood at the mode and, for classification, the training accuracy.
## ski_gsgp: the grid, the kernel, the conjugate-gradient solve, what was
## learned, the log marginal likelihood and the timings.  valla: the network,
## data, prior variance, noise, training and validation.
## @seealso{scalegp_plot, scalegp_predict, gp_laplace, ski_gsgp, valla}
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
      arg_error (fname, "fit", ["is a ski_laplace fit, which " fname " does not take yet; ", ...
                                 "use scalegp_predict or its fields (weights on grid)"]);
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
