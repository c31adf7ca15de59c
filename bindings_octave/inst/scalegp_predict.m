## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{pred} =} scalegp_predict (@var{fit}, @var{xnew})
## @deftypefnx {} {@var{pred} =} scalegp_predict (@var{fit}, @var{xnew}, @var{name}, @var{value}, @dots{})
## Predictions of a fitted scalegp model at new inputs.
##
## @var{fit} is the struct returned by @code{gp_laplace}, @code{ski_gsgp},
## @code{ski_laplace} or @code{valla} (also after @code{save}/@code{load}); @var{xnew} is an
## n-by-d matrix.  Returns a struct with fields @code{mean}, @code{var} and,
## for classification, @code{prob} (@code{ski_laplace}: @code{mean}, @code{var},
## @code{response}, @code{response_var}; options @qcode{"type"},
## @qcode{"variance"}, @qcode{"offset"}).  Further name/value options are passed to
## the method's own prediction (see the help of the fitting function).
## @seealso{gp_laplace, ski_gsgp, ski_laplace, valla}
## @end deftypefn

function pred = scalegp_predict (fit, xnew, varargin)
  if (nargin < 2)
    print_usage ();
  endif
  switch (fit_class (fit, "scalegp_predict"))
    case "gp_laplace"
      pred = predict_gp_laplace (fit, xnew, {"scalegp_predict", "xnew"}, varargin{:});
    case "ski_gsgp"
      pred = predict_ski_gsgp (fit, xnew, "scalegp_predict", "xnew", varargin{:});
    case "ski_laplace"
      pred = predict_ski_laplace (fit, xnew, "scalegp_predict", "xnew", varargin{:});
    case "valla"
      pred = predict_valla (fit, xnew, varargin{:});
  endswitch
endfunction
