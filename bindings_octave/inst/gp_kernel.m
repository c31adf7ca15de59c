## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{K} =} gp_kernel (@var{x})
## @deftypefnx {} {@var{K} =} gp_kernel (@var{x}, @var{x2})
## @deftypefnx {} {@var{K} =} gp_kernel (@dots{}, @var{name}, @var{value}, @dots{})
## Covariance (kernel) matrix between the rows of two input matrices.
##
## Evaluates a stationary covariance function in cache-sized tiles on all
## threads with the C core of scalegp.  It is the kernel every scalegp method
## uses, so it is a quick way to inspect a prior.
##
## @var{x} is an n1-by-d real matrix whose rows are points; a vector is taken
## as n1 points in one dimension (d = 1).  @var{x2} (n2-by-d, default @var{x})
## gives the second set of points; an empty @code{[]} also means @var{x}.  The
## result @var{K} is the n1-by-n2 matrix with
## @code{@var{K}(i,j) = k (@var{x}(i,:), @var{x2}(j,:))}.
##
## The kernels are functions of the scaled distance
## @tex
## $r = \| (x - x') / \ell \|$
## @end tex
## @ifnottex
## @code{r = norm ((x - x') ./ lengthscale)}
## @end ifnottex
## times the outputscale @code{s}; each one's formula is under the option
## @qcode{"kernel"} below, written from the core's kernel table.
##
## Options, as name/value pairs with the same names as in R (every option's
## name, default, range and check are defined once in the compiled core):
##
## @table @asis
## @c options: generated from the core's table by tools/option_docs.R
## @item @qcode{"kernel"}
## "rbf": s exp(-r^2/2); "matern12": s exp(-r); "matern32": s (1 + sqrt(3) r) exp(-sqrt(3) r); "matern52": s (1 + sqrt(5) r + 5 r^2/3) exp(-sqrt(5) r); "rq": s (1 + r^2/(2 alpha))^(-alpha); r = |x - x'| / lengthscale (default @qcode{"rbf"}).
## @item @qcode{"lengthscale"}
## one lengthscale, or one per column of x (ARD) (default @code{1}).
## @item @qcode{"outputscale"}
## kernel variance (default @code{1}).
## @item @qcode{"alpha"}
## shape parameter of the kernels whose formula has alpha (the others ignore it) (default @code{1}).
## @item @qcode{"backend"}, @qcode{"seed"}, @qcode{"verbose"}, @qcode{"threads"}
## compute backend: "auto", "cpu" or "cuda" (default @qcode{"auto"}); whole number for reproducible random choices; [] draws one with rand (default @code{[]}); print progress (default @code{false}); OpenMP threads (0: the OpenMP default) (default @code{0}).
## @c end of the generated options
## @end table
##
## Every argument is checked before the computation starts; error messages
## begin with @qcode{"gp_kernel: "} and name the offending argument.  Ctrl-C
## interrupts a long computation.
##
## Example:
##
## @example
## @group
## x = linspace (0, 1, 5)';
## K = gp_kernel (x, "kernel", "matern32", "lengthscale", 0.5);
## ## ARD lengthscales in two dimensions, between two sets of points
## z = rand (4, 2);  zs = rand (3, 2);
## Ks = gp_kernel (z, zs, "lengthscale", [0.2, 2], "outputscale", 3);
## size (Ks)
##   @result{} 4   3
## @end group
## @end example
##
## @seealso{scalegp_info}
## @end deftypefn

function K = gp_kernel (x, varargin)

  if (nargin < 1)
    print_usage ();
  endif
  fname = "gp_kernel";

  ## Optional second positional argument: anything that is not an option name.
  has_x2 = ! isempty (varargin) && ! ischar (varargin{1});
  if (has_x2)
    x2 = varargin{1};
    varargin(1) = [];
    has_x2 = ! (isnumeric (x2) && isequal (size (x2), [0, 0]));
  endif

  [~, opts] = split_options (fname, {}, varargin{:});
  x = check_input_matrix (x, fname, "x");
  if (has_x2)
    x2 = check_input_matrix (x2, fname, "x2", columns (x));
    if (columns (x2) != columns (x))
      arg_error (fname, "x2", "has %d columns but 'x' has %d (a vector is one column)",
                 columns (x2), columns (x));
    endif
  else
    x2 = x;
  endif

  try
    K = __sgp_call__ ("kernel_matrix", x, x2, opts{:});
  catch err
    if (isempty (strfind (err.message, "out of memory")))
      rethrow (err);
    endif
    arg_error (fname, "x2", "and 'x' give a %d x %d kernel matrix: %s", rows (x), rows (x2),
               err.message);
  end_try_catch

endfunction


%!shared x, x2, r2
%! x = [0 0; 1 0; 0.5 2; -1 -1];
%! x2 = [0 0; 2 1; 0.25 -0.5];
%! r2 = sum ((permute (x, [1 3 2]) - permute (x2, [3 1 2])) .^ 2, 3);

%!test
%! K = gp_kernel (x, x2);
%! assert (size (K), [4, 3]);
%! assert (K, exp (-r2 / 2), 1e-14);

%!test
%! K = gp_kernel (x, x2, "kernel", "matern12", "lengthscale", 0.7, "outputscale", 1.7);
%! assert (K, 1.7 * exp (-sqrt (r2) / 0.7), 1e-14);

%!test
%! r = sqrt (r2) / 0.7;
%! K = gp_kernel (x, x2, "kernel", "MATERN32", "lengthscale", 0.7);
%! assert (K, (1 + sqrt (3) * r) .* exp (-sqrt (3) * r), 1e-14);
%! K = gp_kernel (x, x2, "kernel", "matern52", "lengthscale", 0.7, "outputscale", 2);
%! assert (K, 2 * (1 + sqrt (5) * r + 5 * r .^ 2 / 3) .* exp (-sqrt (5) * r), 1e-14);

%!test
%! ## ARD: per-column lengthscales equal rescaled inputs
%! ell = [0.5, 2];
%! K = gp_kernel (x, x2, "lengthscale", ell);
%! assert (K, gp_kernel (x ./ ell, x2 ./ ell), 1e-14);
%! assert (gp_kernel (x, x2, "lengthscale", ell'), K);

%!test
%! ## d > 4 takes the core's dgemm path for distances; compare with plain arithmetic
%! a = [eye(6); 0.1 * (1:6); -0.3 * ones(1, 6)];
%! b = [0.5 * ones(1, 6); a(3, :); (1:6) / 7];
%! ell = [0.5 1 1.5 2 2.5 3];
%! d2 = sum (((permute (a, [1 3 2]) - permute (b, [3 1 2])) ./ permute (ell, [1 3 2])) .^ 2, 3);
%! r = sqrt (d2);
%! K = gp_kernel (a, b, "kernel", "matern32", "lengthscale", ell, "outputscale", 0.8);
%! assert (K, 0.8 * (1 + sqrt (3) * r) .* exp (-sqrt (3) * r), 1e-12);
%! assert (K(3, 2), 0.8);

%!test
%! ## x2 defaults to x; [] means the same; symmetric with the outputscale on the diagonal
%! K = gp_kernel (x, "outputscale", 3);
%! assert (K, gp_kernel (x, x, "outputscale", 3));
%! assert (K, gp_kernel (x, [], "outputscale", 3));
%! assert (K, K', 1e-15);
%! assert (diag (K), 3 * ones (4, 1));

%!test
%! ## a vector is n points in one dimension, row or column
%! t = [0, 0.5, 1];
%! assert (gp_kernel (t), gp_kernel (t'));
%! assert (size (gp_kernel (t, [0.1; 0.2])), [3, 2]);
%! assert (gp_kernel (0, 1), exp (-0.5), 1e-15);

%!test
%! ## integer, logical and single inputs are converted; threads do not change the result
%! assert (gp_kernel (int32 ([1; 2])), gp_kernel ([1; 2]));
%! assert (gp_kernel (single ([1; 2])), gp_kernel ([1; 2]));
%! z = randn (300, 3);
%! assert (gp_kernel (z, "threads", 1), gp_kernel (z, "threads", 2), 1e-15);
%! assert (gp_kernel (z, "threads", []), gp_kernel (z), 1e-15);

%!error <Invalid call> gp_kernel ()
%!error <gp_kernel: 'lengthscale' must be positive> gp_kernel (1, "lengthscale", -1)
%!error <'lengthscale' must be positive> gp_kernel (1, "lengthscale", 0)
%!error <'lengthscale' must be positive> gp_kernel (1, "lengthscale", NaN)
%!error <'lengthscale' has 3 values; need 1 or ncol\(x\) = 2> gp_kernel ([1 2; 3 4], "lengthscale", [1 2 3])
%!error <'lengthscale'> gp_kernel (1, "lengthscale", "a")
%!error <'outputscale' must be positive> gp_kernel (1, "outputscale", 0)
%!error <'outputscale' must be positive> gp_kernel (1, "outputscale", -2)
%!error <'outputscale' must be positive and finite \(got 2 values\)> gp_kernel (1, "outputscale", [1 2])
%!error <'x' contains NaN or Inf \(first at row 2, column 1\)> gp_kernel ([1; NaN])
%!error <'x' contains NaN or Inf> gp_kernel ([1 Inf])
%!error <'x2' contains NaN or Inf> gp_kernel (1, [1; -Inf])
%!error <'x' is empty> gp_kernel (zeros (0, 2))
%!error <'x2' is empty> gp_kernel ([1; 2], zeros (0, 1))
%!error <'x' must be a real numeric> gp_kernel ({1})
%!error <'x' must be a real numeric matrix or vector, not complex> gp_kernel ([1i; 2])
%!error <'x' must be a matrix \(2 dimensions\)> gp_kernel (ones (2, 2, 2))
%!error <'x2' has 1 columns but 'x' has 2> gp_kernel ([1 2; 3 4], [1; 2])
%!error <'kernel' must be one of .* \(got "gauss"\)> gp_kernel (1, "kernel", "gauss")
%!error <'kernel' must be one of .* \(got 3\)> gp_kernel (1, "kernel", 3)
%!error <'threads' must be a whole number> gp_kernel (1, "threads", -1)
%!error <'threads' must be a whole number> gp_kernel (1, "threads", 1.5)
%!error <unknown option 'lenghtscale'> gp_kernel (1, "lenghtscale", 2)
%!error <option 'kernel' has no value> gp_kernel (1, "kernel")
%!error <options after the data must be given by name> gp_kernel (1, 2, 3, 4)
