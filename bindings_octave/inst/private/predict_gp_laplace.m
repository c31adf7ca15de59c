## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{pred} =} predict_gp_laplace (@var{fit}, @var{xnew}, @var{names}, @var{name}, @var{value}, @dots{})
## Private: predictions of a @code{gp_laplace} fit struct (also after
## @code{save}/@code{load}) at @var{xnew}, for @code{scalegp_predict} and
## @code{gp_laplace}'s @qcode{"xtest"}.  @var{names} = @{function, argument@}
## names the caller and its test inputs in errors, e.g.
## @{"scalegp_predict", "xnew"@}.
##
## Options: @qcode{"offset"} (Poisson log exposure at @var{xnew}, default 0),
## @qcode{"type"}: @qcode{"list"} (default; a struct with the latent
## @code{mean} and @code{var} (m-by-C) and @code{prob} for classification,
## @code{rate_mean}, @code{rate_var} for poisson, @code{y_var} for gaussian),
## @qcode{"response"} (probabilities, rates or means only), @qcode{"class"}
## (most probable class: 0/1, 1..C, or a cell array of the fit's level names)
## or @qcode{"link"} (the latent mean, m-by-C);
## @qcode{"threads"}.
## @end deftypefn

function pred = predict_gp_laplace (fit, xnew, names, varargin)
  [fname, xname] = deal (names{1:2});
  oname = "offset";
  if (numel (names) > 2)
    oname = names{3};
  endif
  ## the core checks the fit, xnew and the options (table "gp_laplace_predict")
  fit = laplace_check_fit (fit, fname);
  xnew = check_input_matrix (xnew, fname, xname, columns (fit.x));
  ## and writes the predictions (sgp_laplace_predict_plain: mean, var, and prob,
  ## rate_mean and rate_var, or y_var)
  r = __sgp_call__ ("laplace_predict", fit, fname, "fit", xnew, xname, oname, varargin{:});
  pred = take_pred_warning (r.pred, fname);
  switch (r.type)
    case "link"
      pred = pred.mean;
    case "response"
      if (isfield (pred, "prob"))
        pred = pred.prob;
      elseif (isfield (pred, "rate_mean"))
        pred = pred.rate_mean;
      else
        pred = pred.mean;
      endif
    case "class" # two classes: P(the second); more: a column each (the core's coding)
      [~, n_classes, first] = lik_label_coding (fit.likelihood);
      if (n_classes == 2)
        k = double (pred.prob > 0.5) + 1;
      else
        [~, k] = max (pred.prob, [], 2);
      endif
      if (! isempty (fit.levels))
        pred = fit.levels(k)(:);
      else
        pred = k - 1 + first;
      endif
  endswitch
endfunction
