## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{pred} =} predict_valla (@var{fit}, @var{xnew}, @var{name}, @var{value}, @dots{})
## Private: predictions of a @code{valla} fit struct (also after
## @code{save}/@code{load}) at @var{xnew}, for @code{scalegp_predict} and
## @code{valla}'s @qcode{"xtest"}.
##
## Options: @qcode{"full_cov"} (false; true adds @code{cov}, the C-by-C-by-m
## latent covariances), @qcode{"prob_method"} (@qcode{"probit"} or
## @qcode{"mc"}), @qcode{"mc_samples"} (2048), @qcode{"seed"} (Monte Carlo;
## default the fit's seed), @qcode{"type"}: @qcode{"list"} (default; a struct
## with @code{mean} (the network output), @code{var} (predictive variance,
## m-by-C), @code{prob} for classification (bernoulli: P(y = 1)),
## @code{latent_var} for gaussian),
## @qcode{"response"} (probabilities or means only) or @qcode{"class"} (the
## most probable class: 1..C, or 0/1 for bernoulli); @qcode{"threads"}.
## @end deftypefn

function pred = predict_valla (fit, xnew, varargin)
  fname = "scalegp_predict";
  [front, opts] = split_options (fname, {"seed"}, varargin{:});
  __sgp_call__ ("valla_fit_check", fit, fname, "fit");  # the core checks the fit's fields
  D = fit.d;
  xnew = check_input_matrix (xnew, fname, "xnew", D);
  if (columns (xnew) != D)
    arg_error (fname, "xnew", "has %d columns but the network expects %d inputs",
               columns (xnew), D);
  endif
  [r, c] = find (abs (xnew) > 1e100, 1);   # the core's bound, named as here
  if (! isempty (r))
    arg_error (fname, "xnew", "%g at row %d, column %d is too large (at most 1e+100 in magnitude: larger values overflow; rescale them)",
               xnew(r, c), r, c);
  endif
  seed = front.seed;  # by default the fit's (Octave's habit; R draws one from its RNG)
  if (isempty (seed) && isfield (fit, "seed"))
    seed = fit.seed;
  endif
  ## the core reads the fit and writes the predictions (sgp_valla_predict_plain);
  ## the options go to its table "valla_predict" (type, full_cov, prob_method,
  ## mc_samples; seed and threads: the context), which checks them against the fit
  r = __sgp_call__ ("valla_predict", fit, xnew, "seed", if_else (isempty (seed), 0, seed),
                    opts{:});
  pred = take_pred_warning (r.pred, fname);
  switch (r.type)
    case "response"
      if (strcmp (lik_role (fit.likelihood), "noise"))
        pred = pred.mean;
      else
        pred = pred.prob;
      endif
    case "class"
      if (strcmp (lik_role (fit.likelihood), "two"))
        pred = double (pred.prob > 0.5);
      else
        [~, pred] = max (pred.prob, [], 2);
      endif
  endswitch
endfunction
