## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## Fits given back, options and predictions that must not go wrong silently,
## as in R (tests/testthat/test-reliability-fits.R): a fit without its prior
## mean, options given twice or in another letter case, variances that rounding
## does not resolve, subnormal inputs.

%!shared x, y, fit
%! rand ("seed", 11);
%! x = rand (40, 1);
%! y = double (rand (40, 1) < 1 ./ (1 + exp (-3 * sin (6 * x))));
%! fit = gp_laplace (x, y, "lengthscale", 0.3, "outputscale", 1, "mean", 0, ...
%!                   "learn", {}, "verbose", false);

%!error <scalegp_predict: 'fit.hyper' is missing>
%! f = rmfield (fit, "hyper");
%! scalegp_predict (f, x);
%!error <'fit.hyper.mean' contains NaN, NA or Inf>
%! f = fit;
%! f.hyper.mean = NaN;
%! scalegp_predict (f, x);
%!error <'fit.hyper.mean' is missing>
%! f = fit;
%! f.hyper = rmfield (f.hyper, "mean");
%! scalegp_predict (f, x);
%!error <gp_laplace: 'tol' is given twice>
%! gp_laplace (x, y, "tol", 1e-3, "tol", 1e-4);
%!error <gp_laplace: 'seed' is given twice>
%! gp_laplace (x, y, "seed", 1, "seed", 2);
%!error <gp_laplace: 'xtest' is given twice>
%! gp_laplace (x, y, "xtest", x, "xtest", x);
%!error <gp_laplace: unknown option 'Tol'; option names are lower case: 'tol'>
%! gp_laplace (x, y, "Tol", 1e-3);
%!error <option names are lower case: 'kernel'>
%! gp_kernel (x, "lengthscale", 1, "Kernel", "rbf");

%!test
%! lastwarn ("");
%! p0 = scalegp_predict (fit, x);
%! assert (isempty (lastwarn ()));
%! assert (! isfield (p0, "warning"));
%! f = fit;
%! f.root = 10 * f.root;  # explains more than the prior variance: s - |K* Q|^2 < 0
%! p = scalegp_predict (f, x);
%! [msg, id] = lastwarn ();
%! assert (id, "scalegp:variance-unresolved");
%! assert (! isempty (strfind (msg, "40 of 40 latent variances are below the rounding error")));
%! assert (all (p.var == 0));
%! assert (! isfield (p, "warning"));

%!error <gp_laplace: 'x' has .* at row 1, column 1, a subnormal number>
%! gp_laplace (x * 1e-310, y, "verbose", false);

## a fit that diverged before a posterior predicts with the prior's variance;
## a fit's own variances below what rounding resolves are a warning
%!test
%! x = (1:30).' / 30;
%! y = mod (1:30, 2).';
%! warning ("off", "all", "local");
%! f = gp_laplace (x, y, "outputscale", 1e300, "lengthscale", 0.3, "mean", 0, "learn", {},
%!                 "verbose", false);
%! if (strcmp (f.stop_reason, "diverged"))
%!   p = scalegp_predict (f, x(1:3));
%!   assert (p.var, 1e300 * ones (3, 1));
%! endif
%!test
%! x = (1:30).' / 30;
%! y = mod (1:30, 2).';
%! warning ("error", "scalegp:variance-unresolved", "local");  # caught below
%! try
%!   gp_laplace (x, y, "outputscale", 1e30, "lengthscale", 0.3, "mean", 0, "learn", {},
%!               "policy", "cholesky", "max_iter", 30, "verbose", false);
%!   msg = "";
%! catch err
%!   msg = err.message;
%! end_try_catch
%! assert (! isempty (strfind (msg, "latent variances are below the rounding error")), msg);

%!function assert_error_text (f, text)
%!  try
%!    f ();
%!  catch err
%!    assert (! isempty (strfind (err.message, text)), err.message);
%!    return;
%!  end_try_catch
%!  error ("no error; expected: %s", text);
%!endfunction

## model-selection fields that disagree with the fit are refused, as in R
%!test
%! rand ("state", 3);
%! x = rand (40, 1);
%! y = double (rand (40, 1) < 0.5);
%! warning ("off", "all", "local");
%! fit = gp_laplace (x, y, "verbose", false, "seed", 1);
%! assert (fit.learned, {"lengthscale", "outputscale", "mean"});
%! f = fit; f.learned = f.learned(2:end);
%! assert_error_text (@() scalegp_summary (f), ...
%!   "'fit.learned' lacks lengthscale, which the optimizer's trace (optim) moves");
%! f = fit; f.loglik = NaN;
%! assert_error_text (@() scalegp_summary (f), ...
%!   "'fit.loglik' must be one finite number (loglik_grad is given)");
%! f = fit; f.loglik_se = [];
%! assert_error_text (@() scalegp_summary (f), ...
%!   "'fit.loglik_se' must be one finite number >= 0 (loglik_grad is given)");
%! f = fit; f.hyper.outputscale = 2 * f.hyper.outputscale;
%! assert_error_text (@() scalegp_summary (f), "'fit.hyper' must hold the lengthscale");
%! f = fit; f.optim.seconds(2) = -1;
%! assert_error_text (@() scalegp_summary (f), "'fit.optim' row 2 is not an evaluation");
%! s = scalegp_summary (fit);  # the untouched fit passes
