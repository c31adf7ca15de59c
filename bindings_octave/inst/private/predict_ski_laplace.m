## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{pred} =} predict_ski_laplace (@var{fit}, @var{xnew}, @var{fname}, @var{xname}, @var{name}, @var{value}, @dots{})
## Private: predictions of a @code{ski_laplace} fit struct (also after
## @code{save}/@code{load}) at @var{xnew}, for @code{scalegp_predict}; the
## core checks the fit (errors naming @code{fit.<field>}), @var{xnew} and the
## options, and predicts with the fit's own code: the same numbers as
## @code{fit.test} at the same points.
##
## Options (the core's table "ski_laplace_predict"): @qcode{"type"}:
## @qcode{"list"} (default; a struct of @code{mean}, @code{var},
## @code{response}, @code{response_var}), @qcode{"response"} or
## @qcode{"link"}; @qcode{"variance"}: @qcode{"exact"} (default) or
## @qcode{"none"}; @qcode{"offset"}: log exposures at @var{xnew} (counts).
## @end deftypefn

function pred = predict_ski_laplace (fit, xnew, fname, xname, varargin)
  xnew = check_input_matrix (xnew, fname, xname);
  r = __sgp_call__ ("ski_laplace_predict", fit, fname, "fit", xnew, xname, varargin{:});
  switch (r.type)
    case "link"
      pred = r.pred.mean;
    case "response"
      pred = r.pred.response;
    otherwise
      pred = r.pred;
  endswitch
endfunction
