## -*- texinfo -*-
## @deftypefn  {} {@var{fit} =} ski_laplace (@var{x}, @var{y}, @var{name}, @var{value}, @dots{})
## Laplace inference for a latent Gaussian process on a regular grid with a
## non-Gaussian observation model per cell: Poisson counts with exposures, a
## point pattern as a log-Gaussian Cox process, Bernoulli or binomial labels.
##
## Layouts: cells, @code{ski_laplace ([], @var{y})} with one value per grid
## cell in @var{y} (an array of the grid's shape; NaN for a cell without data,
## an offset of -Inf for a cell without exposure); points,
## @code{ski_laplace (@var{xy}, [])} with the point locations; binned,
## @code{ski_laplace (@var{x}, @var{y})} with one observation per row of
## @var{x}, summed into the nearest cell.  The name/value pairs
## @qcode{"offset"}, @qcode{"trials"} and @qcode{"xtest"} give the log
## exposures, the binomial trials and the prediction points; the others are the
## options below.  A lengthscale, outputscale or mean not given is learned by
## the Laplace evidence (exact up to 512 observed cells, else estimated with
## probes).  @var{fit} has the fields of R's @code{ski_laplace} result.
##
## @c options: ski_laplace
## @c end options
## @seealso{gp_laplace, ski_gsgp}
## @end deftypefn
function fit = ski_laplace (varargin)
  fname = "ski_laplace";
  if (nargin < 2)
    print_usage ();
  endif
  x = varargin{1};
  y = varargin{2};
  [front, opts] = split_options (fname, {"offset", "trials", "xtest"}, varargin{3:end});
  ydim = [];
  if (! isempty (x))
    x = check_input_matrix (x, fname, "x");
  endif
  if (! isempty (y))
    if (! (isnumeric (y) || islogical (y)))
      arg_error (fname, "y", "must be numeric");
    endif
    if (isempty (x))
      ydim = size (y);
      if (numel (ydim) == 2 && ydim(2) == 1)
        ydim = ydim(1);
      endif
    endif
    y = double (y(:));
  endif
  xtest = front.xtest;
  if (! isempty (xtest))
    xtest = check_input_matrix (xtest, fname, "xtest");
  endif
  if (isempty (option_value (fname, opts, "seed")))
    opts = set_option (opts, "seed", floor (rand () * 2147483647));
  endif
  r = __sgp_call__ ("ski_laplace", x, y, ydim, double (front.offset(:)),
                    double (front.trials(:)), xtest, opts{:});
  sel = r.selection;
  fit = rmfield (r, {"selection", "warnings"});
  fit.hyper = sel.hyper;
  fit.loglik_grad = sel.loglik_grad;
  fit.learned = sel.learned;
  fit.optim = sel.optim;
  fit.class = "ski_laplace";
  w = r.warnings;
  if (ischar (w))
    w = {w};
  endif
  for i = 1:numel (w)
    warning ("scalegp:ski_laplace", "%s", w{i});
  endfor
endfunction

%!test
%! y = [0 1 2; 3 1 0; 0 0 5; 1 2 1];
%! fit = ski_laplace ([], y, "lengthscale", 1.5, "outputscale", 1, "mean", 0, "verbose", false);
%! assert (fit.converged);
%! assert (numel (fit.weights), 12);
%! assert (fit.used.layout, "cells");
%!error <ski_laplace: 'y' .*element 2> ski_laplace ([], [1 2.5 3], "verbose", false)
