## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## ski_gsgp (..., "precond_rank", q, "learn", {}): the opt-in preconditioner of the mean
## solve (docs/ski_gsgp.md, "precond_rank").  Oracle: the unpreconditioned fit of the same model at a
## tight tolerance (checked against the dense GP in test_ski_fixtures.m).

%!shared x, y, xs
%! rand ("seed", 11); randn ("seed", 11);
%! n = 6000;
%! x = rand (n, 2);
%! y = sin (5 * x(:, 1)) .* cos (3 * x(:, 2)) + 0.05 * randn (n, 1);
%! xs = 0.1 + 0.8 * rand (50, 2);

%!test
%! ## both fits solve to a true relative residual tol (1e-10 is this problem's
%! ## attainable accuracy); the weights differ from the exact ones by at most
%! ## sqrt(lambda_max(K_G)) / (2 sqrt(noise)) tol ||y||, lambda_max(K_G) <= m
%! ## outputscale (as in the R test), each other by twice that, a test mean by
%! ## 1.25^2 (the |weights| of a point, cubic 2-D) times that
%! tol = 1e-9;
%! bound = 2 * sqrt (20 * 18) / (2 * sqrt (0.0025)) * tol * norm (y);
%! args = {"grid_size", [20, 18], "kernel", "matern52", "lengthscale", 0.3, ...
%!         "noise", 0.0025, "tol", tol, "max_iter", 5000, "xtest", xs};
%! fit0 = ski_gsgp (x, y, args{:}, "learn", {});
%! fit1 = ski_gsgp (x, y, args{:}, "precond_rank", 40, "learn", {});
%! assert (fit0.converged && fit1.converged);
%! assert (max (abs (fit1.weights - fit0.weights)) <= bound);
%! assert (max (abs (fit1.test.mean - fit0.test.mean)) <= 1.25 ^ 2 * bound);
%! assert (fit1.rel_residual <= tol);
%! assert (fit1.precond_rank, 40);
%! assert (3 * fit1.iterations < fit0.iterations);
%! fitd = ski_gsgp (x, y, args{:}, "precond_rank", 0, "learn", {});
%! assert (isequal (fitd.weights, fit0.weights));

%!test
%! fit = ski_gsgp (x, y, "grid_size", [20, 18], "lengthscale", 0.2, "noise", 0.01, ...
%!                 "precond_rank", 16, "learn", {});
%! assert (fit.converged);
%! assert (fit.rel_residual <= 0.01);

%!error <ski_gsgp: 'precond_rank' must be a whole number> ski_gsgp (x(1:200, :), y(1:200), "grid_size", [8, 8], "precond_rank", -1, "learn", {})
%!error <ski_gsgp: 'precond_rank' must be a whole number> ski_gsgp (x(1:200, :), y(1:200), "grid_size", [8, 8], "precond_rank", 1.5, "learn", {})
%!error <ski_gsgp: 'precond_rank' must be a whole number> ski_gsgp (x(1:200, :), y(1:200), "grid_size", [8, 8], "precond_rank", "a", "learn", {})
%!error <'precond_rank' must be less than the 64 grid points> ski_gsgp (x(1:200, :), y(1:200), "grid_size", [8, 8], "precond_rank", 64, "learn", {})
%!error <'precond_rank' applies to method = "gsgp" only> ski_gsgp (x(1:200, :), y(1:200), "grid_size", [8, 8], "method", "ski", "precond_rank", 4, "learn", {})
