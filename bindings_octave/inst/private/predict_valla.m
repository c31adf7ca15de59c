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
  m = fit.model;
  if (! (isfield (m, "W") && iscell (m.W) && ! isempty (m.W) && isnumeric (m.W{1})
         && ismatrix (m.W{1})))
    arg_error (fname, "fit.model", "is not a network struct (the fit is damaged; refit it)");
  endif
  D = rows (fit.model.W{1});
  if (isfield (fit.model, "transpose") && fit.model.transpose)
    D = columns (fit.model.W{1});
  endif
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
  ## the options go to the core's table "valla_predict" (type, full_cov, prob_method,
  ## mc_samples; seed and threads: the context), which checks them against the fit
  p = __sgp_call__ ("valla_predict", fit.model, fit, xnew,
                    "seed", if_else (isempty (seed), 0, seed), opts{:});
  cls = ! strcmp (fit.likelihood, "gaussian");
  type = p.type;

  pred = struct ("mean", p.mean, "var", p.var);
  if (strcmp (fit.likelihood, "bernoulli"))
    pred.prob = p.prob(:, 2);             # P(y = 1), as gp_laplace and R
  elseif (cls)
    pred.prob = p.prob;
  else
    pred.latent_var = p.latent_var;
  endif
  if (isfield (p, "cov"))
    pred.cov = p.cov;
  endif
  switch (type)
    case "response"
      if (cls)
        pred = pred.prob;
      else
        pred = pred.mean;
      endif
    case "class"
      if (strcmp (fit.likelihood, "bernoulli"))
        pred = double (pred.prob > 0.5);
      else
        [~, pred] = max (pred.prob, [], 2);
      endif
  endswitch
endfunction
