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
## @qcode{"response"} (probabilities, rates or means only) or @qcode{"class"}
## (most probable class: 0/1, 1..C, or a cell array of the fit's level names);
## @qcode{"threads"}.
## @end deftypefn

function pred = predict_gp_laplace (fit, xnew, names, varargin)
  [fname, xname] = deal (names{1:2});
  oname = "offset";
  if (numel (names) > 2)
    oname = names{3};
  endif
  opts = parse_options (fname, struct ("offset", [], "type", "list", "threads", 0),
                        varargin{:});
  fit = laplace_check_fit (fit, fname);
  xnew = check_input_matrix (xnew, fname, xname, columns (fit.x));
  if (columns (xnew) != columns (fit.x))
    arg_error (fname, xname, "has %d columns but the fit has %d", columns (xnew),
               columns (fit.x));
  endif
  offset = opts.offset;
  if (! isempty (offset))
    if (! strcmp (fit.likelihood, "poisson"))
      arg_error (fname, oname, "is only used with likelihood = \"poisson\"");
    endif
    if (! isnumeric (offset) || numel (offset) != rows (xnew) || any (! isfinite (offset(:))))
      arg_error (fname, oname, "must be %d finite numbers", rows (xnew));
    endif
    offset = double (offset(:));
  endif
  type = check_choice (opts.type, {"list", "response", "class"}, fname, "type");
  threads = check_threads (opts.threads, fname);
  if (strcmp (type, "class") && ! any (strcmp (fit.likelihood, {"bernoulli", "softmax"})))
    arg_error (fname, "type", "\"class\" needs a bernoulli or softmax fit");
  endif
  noise = 0;
  if (! isempty (fit.noise))
    noise = fit.noise(1);
  endif

  prior_mean = [];  # the constant prior mean (absent from fits saved before it existed)
  if (isfield (fit, "hyper") && isstruct (fit.hyper) && isfield (fit.hyper, "mean"))
    prior_mean = fit.hyper.mean;
  endif
  p = __sgp_laplace_predict__ (fit.x, fit.weights, fit.root, fit.likelihood,
                               fit.kernel.kernel, fit.kernel.lengthscale,
                               fit.kernel.outputscale, noise, xnew, offset, threads,
                               fname, xname, prior_mean);

  pred = struct ("mean", p.mean, "var", p.var);
  switch (fit.likelihood)
    case {"bernoulli", "softmax"}
      pred.prob = p.resp_mean;
    case "poisson"
      pred.rate_mean = p.resp_mean;
      pred.rate_var = p.resp_var;
    case "gaussian"
      pred.y_var = p.resp_var;
  endswitch
  switch (type)
    case "response"
      if (isfield (pred, "prob"))
        pred = pred.prob;
      elseif (isfield (pred, "rate_mean"))
        pred = pred.rate_mean;
      else
        pred = pred.mean;
      endif
    case "class"
      if (strcmp (fit.likelihood, "bernoulli"))
        k = double (pred.prob > 0.5) + 1;
      else
        [~, k] = max (pred.prob, [], 2);
      endif
      if (! isempty (fit.levels))
        pred = fit.levels(k)(:);
      elseif (strcmp (fit.likelihood, "bernoulli"))
        pred = k - 1;
      else
        pred = k;
      endif
  endswitch
endfunction
