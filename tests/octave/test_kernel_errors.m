## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## Every bad input to gp_kernel is rejected before the core runs, with an
## error that starts with "gp_kernel: " and names the argument.

%!shared x
%! x = [0 1 2; 1 0 1; 2 2 0; -1 0.5 1];

## NaN / Inf
%!error <gp_kernel: 'x' contains NaN or Inf> gp_kernel ([x; NaN 0 0])
%!error <gp_kernel: 'x' contains NaN or Inf> gp_kernel ([x; 0 Inf 0])
%!error <gp_kernel: 'x' contains NaN or Inf \(first at row 5, column 3\)> gp_kernel ([x; 0 0 -Inf])
%!error <gp_kernel: 'x2' contains NaN or Inf> gp_kernel (x, [1 2 NaN])
%!error <gp_kernel: 'x2' contains NaN or Inf> gp_kernel (x, [1 2 3; Inf 0 0])

## dimensions
%!error <gp_kernel: 'x2' has 2 columns but 'x' has 3> gp_kernel (x, [1 2; 3 4])
%!error <gp_kernel: 'x2' has 1 columns but 'x' has 3> gp_kernel (x, [1 2 3 4]')
%!error <gp_kernel: 'x' must be a matrix \(2 dimensions\)> gp_kernel (ones (3, 2, 2))
%!error <gp_kernel: 'x2' must be a matrix \(2 dimensions\)> gp_kernel (x, ones (3, 3, 2))
%!error <gp_kernel: 'lengthscale' has 2 values; need 1 or ncol\(x\) = 3> gp_kernel (x, "lengthscale", [1 2])
%!error <gp_kernel: 'lengthscale' has 9 values> gp_kernel (x, "lengthscale", ones (3, 3))
%!error <gp_kernel: 'outputscale' must be positive and finite \(got 2 values\)> gp_kernel (x, "outputscale", [1 1])

## empty
%!error <gp_kernel: 'x' is empty \(0 x 3\)> gp_kernel (zeros (0, 3))
%!error <gp_kernel: 'x' is empty> gp_kernel ([])
%!error <gp_kernel: 'x' is empty> gp_kernel (zeros (1, 0))
%!error <gp_kernel: 'x2' is empty> gp_kernel (x, zeros (0, 3))

## lengthscale <= 0 (isotropic and ARD), non-finite
%!error <gp_kernel: 'lengthscale' must be positive and finite \(got -1\)> gp_kernel (x, "lengthscale", -1)
%!error <gp_kernel: 'lengthscale' must be positive and finite \(got 0\)> gp_kernel (x, "lengthscale", 0)
%!error <gp_kernel: 'lengthscale' must be positive and finite \(got 0\)> gp_kernel (x, "lengthscale", [1 0 2])
%!error <gp_kernel: 'lengthscale' must be positive and finite> gp_kernel (x, "lengthscale", [1 -2 2])
%!error <gp_kernel: 'lengthscale' must be positive and finite \(got Inf\)> gp_kernel (x, "lengthscale", Inf)
%!error <gp_kernel: 'lengthscale' must be positive and finite \(got NaN\)> gp_kernel (x, "lengthscale", NaN)

## outputscale <= 0, non-finite
%!error <gp_kernel: 'outputscale' must be positive and finite \(got 0\)> gp_kernel (x, "outputscale", 0)
%!error <gp_kernel: 'outputscale' must be positive and finite \(got -1.5\)> gp_kernel (x, "outputscale", -1.5)
%!error <gp_kernel: 'outputscale' must be positive and finite> gp_kernel (x, "outputscale", Inf)

## kernel name
%!error <gp_kernel: 'kernel' must be one of "rbf", "matern12", "matern32", "matern52", "rq" \(got "matern72"\)> gp_kernel (x, "kernel", "matern72")
%!error <gp_kernel: 'kernel' must be one of .* \(got ""\)> gp_kernel (x, "kernel", "")
%!error <gp_kernel: 'kernel' must be one of .* \(got 2 strings\)> gp_kernel (x, "kernel", {"rbf", "rbf"})

## types, options
%!error <gp_kernel: 'x' must be a real numeric matrix or vector, not char> gp_kernel ("abc", 1)
%!error <gp_kernel: 'x' must be a real numeric matrix or vector, not complex> gp_kernel (x + 1i)
%!error <gp_kernel: 'x2' must be a real numeric matrix or vector, not cell> gp_kernel (x, {1})
%!error <gp_kernel: unknown option 'sigma'; valid options are kernel, lengthscale, outputscale, alpha, backend, seed, verbose, threads> gp_kernel (x, "sigma", 1)
%!error <gp_kernel: option 'outputscale' has no value> gp_kernel (x, "kernel", "rbf", "outputscale")
%!error <gp_kernel: 'threads' must be a whole number> gp_kernel (x, "threads", -2)

## the private oct-files check too (the core reports, the shim names gp_kernel)
%!error <gp_kernel: 'x' contains NaN or Inf> __sgp_call__ ("kernel_matrix", [1; NaN], [1; 2])
%!error <gp_kernel: 'lengthscale' must be positive> __sgp_call__ ("kernel_matrix", [1; 2], [1; 2], "lengthscale", 0)
%!error <gp_kernel: 'outputscale' must be positive> __sgp_call__ ("kernel_matrix", [1; 2], [1; 2], "outputscale", -1)
%!error <gp_kernel: 'x2' has 2 columns; x has 1> __sgp_call__ ("kernel_matrix", [1; 2], [1 2])
%!error <gp_kernel: 'x' is empty> __sgp_call__ ("kernel_matrix", zeros (0, 1), [1; 2])
%!error <gp_kernel: 'kernel' must be one of> __sgp_call__ ("kernel_matrix", [1; 2], [1; 2], "kernel", "foo")
%!error <gp_kernel: x must be a real numeric matrix> __sgp_call__ ("kernel_matrix", {1}, [1; 2])
%!error <gp_kernel: v must have rows \(x\) = 2 rows, not 3> __sgp_call__ ("kernel_apply", [1; 2], [1; 2; 3], "rbf", 1, 1)
