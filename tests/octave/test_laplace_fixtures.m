## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## gp_laplace against the fixtures shared with the R tests (inst/extdata,
## written by inst/extdata/make_laplace_fixtures.R from an independent dense
## Newton/Laplace in plain R): the same cases and tolerances as
## tests/testthat/test-laplace.R. Run by tests/octave/run_all.m.

%!function fx = fixture (name)
%!  kernels = {"rbf", "matern12", "matern32", "matern52"};
%!  p = fixture_csv (sprintf ("laplace_%s_params.csv", name));
%!  tr = fixture_csv (sprintf ("laplace_%s_train.csv", name));
%!  te = fixture_csv (sprintf ("laplace_%s_test.csv", name));
%!  d = p(5);  C = p(4);
%!  fx = struct ("name", name, "kernel", kernels{p(1) + 1}, "outputscale", p(2),
%!               "noise", p(3), "C", C, "d", d, "lengthscale", p(6:end), "n", rows (tr));
%!  fx.x = tr(:, 1:d);  fx.y = tr(:, d + 1);  fx.offset = tr(:, d + 2);
%!  fx.f = tr(:, d + 2 + (1:C));  fx.var = tr(:, d + 2 + C + (1:C));
%!  fx.xs = te(:, 1:d);  fx.offset_s = te(:, d + 1);
%!  fx.mean_s = te(:, d + 1 + (1:C));  fx.var_s = te(:, d + 1 + C + (1:C));
%!  fx.resp_s = te(:, d + 1 + 2 * C + (1:C));
%!endfunction

%!function fit = fit_fixture (fx, varargin)
%!  extra = {};
%!  if (strcmp (fx.name, "gaussian"))
%!    extra = {"noise", fx.noise};
%!  elseif (strcmp (fx.name, "poisson"))
%!    extra = {"offset", fx.offset, "xtest_offset", fx.offset_s};
%!  endif
%!  fit = gp_laplace (fx.x, fx.y, "likelihood", fx.name, "kernel", fx.kernel,
%!                    "lengthscale", fx.lengthscale, "outputscale", fx.outputscale,
%!                    "mean", 0, "xtest", fx.xs, "seed", 1, extra{:}, varargin{:});
%!endfunction

%!function e = rel (a, b)
%!  e = norm (a(:) - b(:)) / norm (b(:));
%!endfunction

%!function r = resp (t)
%!  if (isfield (t, "prob"))
%!    r = t.prob;
%!  elseif (isfield (t, "rate_mean"))
%!    r = t.rate_mean;
%!  else
%!    r = t.y_var;
%!  endif
%!endfunction

%!function check (fit, fx, tol)
%!  assert (size (fit.f), [fx.n, fx.C]);
%!  assert (rel (fit.f, fx.f) < tol);
%!  assert (rel (fit.var, fx.var) < tol);
%!  assert (rel (fit.test.mean, fx.mean_s) < tol);
%!  assert (rel (fit.test.var, fx.var_s) < tol);
%!  assert (rel (resp (fit.test), fx.resp_s) < tol);
%!endfunction

%!function cholesky_case (name)
%!  fx = fixture (name);
%!  fit = fit_fixture (fx, "policy", "cholesky", "max_iter", fx.n * fx.C, "tol", 1e-10,
%!                     "max_newton", 50);
%!  assert (fit.converged);
%!  assert (columns (fit.root), fx.n * fx.C);
%!  check (fit, fx, 1e-8);
%!endfunction

%!function cg_case (name, recycle, tol)
%!  ## budget >= n C with the default inner tolerances: once the residual
%!  ## converges the state is the dense Cholesky of K^ over all unit vectors, so
%!  ## mode and variances are exact up to cond(K^) eps (~1e-11 here)
%!  fx = fixture (name);
%!  fit = fit_fixture (fx, "policy", "cg", "max_iter", fx.n * fx.C, "tol", 1e-8,
%!                     "max_newton", 50, "recycle", recycle);
%!  assert (fit.converged);
%!  assert (columns (fit.root), fx.n * fx.C);
%!  check (fit, fx, tol);
%!endfunction

%!function reload_case (name)
%!  fx = fixture (name);
%!  fit = fit_fixture (fx, "max_iter", 8);
%!  f = [tempname() ".mat"];
%!  save ("-binary", f, "fit");
%!  s = load (f);
%!  delete (f);
%!  offset = [];
%!  if (strcmp (name, "poisson"))
%!    offset = fx.offset_s;
%!  endif
%!  p = scalegp_predict (s.fit, fx.xs, "offset", offset);
%!  assert (p, fit.test, 1e-13);
%!  assert (fieldnames (p), fieldnames (fit.test));
%!endfunction

%!test cholesky_case ("bernoulli")
%!test cholesky_case ("poisson")
%!test cholesky_case ("softmax")
%!test cholesky_case ("gaussian")
%!test cg_case ("bernoulli", true, 1e-8)
%!test cg_case ("poisson", true, 1e-8)
%!test cg_case ("softmax", true, 1e-8)
%!test cg_case ("gaussian", true, 1e-8)
%!test cg_case ("bernoulli", false, 1e-8)
%!test cg_case ("poisson", false, 1e-8)
%!test cg_case ("softmax", false, 1e-8)
%!test cg_case ("gaussian", false, 1e-8)
%!test reload_case ("bernoulli")
%!test reload_case ("poisson")
%!test reload_case ("softmax")
%!test reload_case ("gaussian")

%!test
%! ## a small cg budget: the mode, and variances that include computational uncertainty
%! for name = {"bernoulli", "softmax"}
%!   fx = fixture (name{1});
%!   fit = fit_fixture (fx, "policy", "cg", "tol", 1e-6, "max_newton", 50);
%!   assert (fit.converged);
%!   assert (columns (fit.root) < fx.n * fx.C);
%!   assert (rel (fit.f, fx.f) < 1e-5);
%!   assert (all (fit.var(:) >= fx.var(:) - 1e-8 * fx.outputscale));
%!   assert (all (fit.test.var(:) >= fx.var_s(:) - 1e-8 * fx.outputscale));
%!   assert (sum (fit.var(:)) > sum (fx.var(:)) * (1 + 1e-3));
%! endfor

%!test
%! ## the same numbers as R for the same seed and options: R and Octave share the core
%! fx = fixture ("softmax");
%! a = fit_fixture (fx, "max_iter", 7);
%! b = fit_fixture (fx, "max_iter", 7);
%! assert (a.f, b.f);
%! assert (a.root, b.root);

%!test
%! ## seeds reproduce the random visiting order of the cholesky policy
%! warning ("off", "scalegp:not-converged", "local");
%! fx = fixture ("bernoulli");
%! run = @(seed) gp_laplace (fx.x, fx.y, "lengthscale", 0.8, "outputscale", 10,
%!                           "policy", "cholesky", "random_order", true, "max_iter", 6,
%!                           "max_newton", 3, "seed", seed);
%! a = run (7);  b = run (7);  c = run (8);
%! assert (a.f, b.f);
%! assert (a.root, b.root);
%! assert (norm (a.f - c.f) > 1e-6);

%!test
%! ## poisson fields, response/class types and the offset
%! fx = fixture ("poisson");
%! fit = fit_fixture (fx, "max_iter", 10);
%! assert (fieldnames (fit.test)', {"mean", "var", "rate_mean", "rate_var"});
%! p0 = scalegp_predict (fit, fx.xs);
%! p1 = scalegp_predict (fit, fx.xs, "offset", log (2) * ones (15, 1));
%! assert (p1.rate_mean, 2 * p0.rate_mean, 1e-12);
%! assert (scalegp_predict (fit, fx.xs, "offset", fx.offset_s, "type", "response"),
%!         fit.test.rate_mean, 1e-13);
%! fs = fit_fixture (fixture ("softmax"), "max_iter", 10);
%! pr = scalegp_predict (fs, fx.xs, "type", "response");
%! assert (sum (pr, 2), ones (15, 1), 1e-12);
%! [~, k] = max (pr, [], 2);
%! assert (scalegp_predict (fs, fx.xs, "type", "class"), k);

%!error <'type' "class" needs a bernoulli or softmax fit> scalegp_predict (fit_fixture (fixture ("gaussian")), zeros (2, 2), "type", "class")
%!error <scalegp_predict: 'xnew' has 1 columns; the fit has 2> scalegp_predict (fit_fixture (fixture ("softmax")), 0)
%!error <'offset' is only used> scalegp_predict (fit_fixture (fixture ("softmax")), zeros (2, 2), "offset", [1; 1])
%!error <'fit.root' is missing> scalegp_predict (struct ("class", "gp_laplace", "x", 1, "weights", 1), 1)
%!error <scalegp_predict: 'fit.weights' is 39 x 1; need 40 x 1> scalegp_predict (setfield (fit_fixture (fixture ("bernoulli")), "weights", zeros (39, 1)), zeros (2, 2))
%!error <scalegp_predict: 'fit.weights' is 39 x 1> __sgp_call__ ("laplace_predict", setfield (fit_fixture (fixture ("bernoulli")), "weights", zeros (39, 1)), "scalegp_predict", "fit", zeros (2, 2), "xnew", "offset")

%!test
%! ## noise_max: added in the core's option table only
%! x = linspace (-2, 2, 30)'; y = double (x > 0);
%! a = gp_laplace (x, y, "outputscale", 25, "lengthscale", 0.3, "seed", 1);
%! warning ("off", "scalegp:not-converged", "local");  # capped curvature: slower Newton
%! b = gp_laplace (x, y, "outputscale", 25, "lengthscale", 0.3, "noise_max", 2, "seed", 1);
%! assert (max (abs (a.f - b.f)) > 1e-3);
%!error <gp_laplace: 'noise_max' must be positive and finite \(got 0\)> gp_laplace ((1:3)', [0; 1; 0], "noise_max", 0)
%!error <for more classes use likelihood = "softmax"> gp_laplace ((1:6)', {"a"; "b"; "c"; "a"; "b"; "c"})
%!warning <class 4 of 5 has no training point> gp_laplace ([1:10]', [1 2 3 5 1 2 3 5 1 2]', "likelihood", "softmax", "max_iter", 40, "seed", 1, "learn", {});
