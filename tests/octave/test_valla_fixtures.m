## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## valla against the fixtures shared with the R tests (inst/extdata, written by
## inst/extdata/make_valla_fixtures.R from an independent plain-R oracle:
## explicit network Jacobians, dense exact LLA). The same cases and tolerances
## as tests/testthat/test-valla-fixtures.R. Run by tests/octave/run_all.m.

%!function fx = fixture (name)
%!  rd = @(part) fixture_csv (sprintf ("valla_%s_%s.csv", name, part));
%!  p = rd ("params");  th = rd ("weights");  tr = rd ("train");  te = rd ("test");
%!  liks = {"gaussian", "softmax"};
%!  acts = {"tanh", "sigmoid", "relu"};
%!  L = p(6);  w = p(7:7 + L);  D = w(1);  C = w(end);
%!  fx = struct ("name", name, "likelihood", liks{p(1) + 1}, "prior_var", p(3),
%!               "noise", p(4), "D", D, "C", C, "n", rows (tr), "m", rows (te));
%!  net = struct ("W", {cell(1, L)}, "b", {cell(1, L)}, "activation", acts{p(2) + 1});
%!  k = 0;
%!  for l = 1:L
%!    net.W{l} = reshape (th(k + (1:w(l) * w(l + 1))), w(l), w(l + 1));  k += w(l) * w(l + 1);
%!    net.b{l} = th(k + (1:w(l + 1)));  k += w(l + 1);
%!  endfor
%!  if (p(5))
%!    net.skip = reshape (th(k + (1:D * C)), D, C);  k += D * C;
%!  endif
%!  assert (k, numel (th));
%!  if (strncmp (name, "nnet", 4))
%!    net.activation = "sigmoid_nnet";   # nnet's clipped logistic (no clipping here)
%!  endif
%!  fx.net = net;
%!  fx.x = tr(:, 1:D);  fx.y = tr(:, D + 1);
%!  fx.g = tr(:, D + 1 + (1:C));  fx.var = tr(:, D + 1 + C + (1:C));
%!  fx.xs = te(:, 1:D);  fx.gs = te(:, D + (1:C));  fx.var_s = te(:, D + C + (1:C));
%!  fx.resp_s = te(:, D + 2 * C + (1:C));
%!  fx.cov_s = reshape (te(:, D + 3 * C + (1:C * C))', C, C, fx.m);
%!  fx.prior_s = te(:, D + 3 * C + C * C + (1:C));
%!  if (columns (te) > D + 4 * C + C * C)
%!    fx.nnet_s = te(:, D + 4 * C + C * C + (1:C));
%!  endif
%!endfunction

%!function e = rel (a, b)
%!  e = norm (a(:) - b(:)) / norm (b(:));
%!endfunction

%!function extra = hyper (fx)
%!  extra = {"likelihood", fx.likelihood, "prior_var", fx.prior_var, "learn", {}};
%!  if (strcmp (fx.likelihood, "gaussian"))
%!    extra = [extra, {"noise", fx.noise}];
%!  endif
%!endfunction

%!function check_pred (p, fx, tol)
%!  assert (rel (p.mean, fx.gs) < 1e-12);
%!  if (strcmp (fx.likelihood, "gaussian"))
%!    assert (rel (p.latent_var, fx.var_s) < tol);
%!    assert (rel (p.var, fx.resp_s) < tol);            # latent + noise
%!  else
%!    assert (rel (p.var, fx.var_s) < tol);
%!    assert (rel (p.prob, fx.resp_s) < tol);           # probit softmax
%!  endif
%!  assert (rel (p.cov, fx.cov_s) < tol);
%!endfunction

%!function check_train (fit, fx, tol)
%!  p = scalegp_predict (fit, fx.x);
%!  assert (rel (p.mean, fx.g) < 1e-12);
%!  if (strcmp (fx.likelihood, "gaussian"))
%!    assert (rel (p.latent_var, fx.var) < tol);
%!  else
%!    assert (rel (p.var, fx.var) < tol);
%!  endif
%!endfunction

%!function lla_case (name)
%!  fx = fixture (name);
%!  fit = valla (fx.net, fx.x, fx.y, "method", "lla", "xtest", fx.xs, "full_cov", true,
%!               "seed", 1, hyper (fx){:});
%!  assert (fit.prior_var, fx.prior_var, 1e-14 * fx.prior_var);
%!  check_pred (fit.test, fx, 1e-8);
%!  check_train (fit, fx, 1e-8);
%!  v = latent (fit.test, fx);
%!  assert (all (v(:) >= 0) && all (v(:) <= fx.prior_s(:) * (1 + 1e-10)));
%!endfunction

%!function zx_case (name)
%!  ## VaLLA closed form with Z = X (all C tags per point), no jitter = exact LLA
%!  fx = fixture (name);
%!  Z = repelem (fx.x, fx.C, 1);
%!  tags = repmat ((1:fx.C)', fx.n, 1);
%!  fit = valla (fx.net, fx.x, fx.y, "inducing", Z, "inducing_tags", tags, "closed_form", true,
%!               "jitter", 0, "xtest", fx.xs, "full_cov", true, "seed", 1, hyper (fx){:});
%!  assert (size (fit.inducing), [fx.n * fx.C, fx.D]);
%!  check_pred (fit.test, fx, 1e-8);
%!  check_train (fit, fx, 1e-8);
%!endfunction

%!function v = latent (p, fx)
%!  if (strcmp (fx.likelihood, "gaussian"))
%!    v = p.latent_var;
%!  else
%!    v = p.var;
%!  endif
%!endfunction

%!function bounds_case (name)
%!  ## trained VaLLA (a few Adam steps, learned prior_var): 0 <= var <= prior
%!  ## kappa(x, x) = prior_var J J' (the fixture's prior, rescaled)
%!  fx = fixture (name);
%!  fit = valla (fx.net, fx.x, fx.y, "likelihood", fx.likelihood, "inducing", 2 * fx.C,
%!               "iterations", 60, "batch_size", 8, "lr", 5e-2, "seed", 3, "xtest", fx.xs);
%!  assert (fit.iterations, 60);
%!  assert (abs (log (fit.prior_var)) > 1e-3);          # prior_var was learned
%!  v = latent (fit.test, fx);
%!  prior = fx.prior_s * fit.prior_var / fx.prior_var;
%!  assert (all (v(:) >= 0));
%!  assert (all (v(:) <= prior(:) * (1 + 1e-10)));
%!  assert (any (v(:) < 0.999 * prior(:)));            # the data did shrink it
%!endfunction

%!test lla_case ("reg_tanh_1d")
%!test lla_case ("reg_relu_2d")
%!test lla_case ("softmax_tanh_2d")
%!test lla_case ("softmax_relu_1d")
%!test lla_case ("nnet_reg")
%!test lla_case ("nnet_softmax")
%!test zx_case ("reg_tanh_1d")
%!test zx_case ("reg_relu_2d")
%!test zx_case ("softmax_tanh_2d")
%!test zx_case ("softmax_relu_1d")
%!test bounds_case ("reg_tanh_1d")
%!test bounds_case ("softmax_tanh_2d")

%!test
%! ## nnet skip layout: the network output equals predict.nnet (softmax: probabilities)
%! for name = {"nnet_reg", "nnet_softmax"}
%!   fx = fixture (name{1});
%!   fit = valla (fx.net, fx.x, fx.y, "method", "lla", "xtest", fx.xs, "seed", 1, hyper (fx){:});
%!   g = fit.test.mean;
%!   if (fx.C > 1)
%!     g = exp (g - max (g, [], 2));
%!     g ./= sum (g, 2);
%!   endif
%!   assert (rel (g, fx.nnet_s) < 1e-12);
%! endfor

%!shared fx
%! fx = fixture ("softmax_tanh_2d");
%!error <valla: 'x' has 1 columns but the network expects 2 inputs> valla (fx.net, fx.x(:, 1), fx.y, "likelihood", "softmax")
%!error <valla: 'model.W\{2\}' has 9 rows but layer 1 has 10 outputs> valla (setfield (fx.net, "W", {fx.net.W{1}, fx.net.W{2}(1:9, :), fx.net.W{3}}), fx.x, fx.y, "likelihood", "softmax")
%!error <valla: 'model.b\{3\}' must be numeric of length 3> valla (setfield (fx.net, "b", {fx.net.b{1}, fx.net.b{2}, [0; 0]}), fx.x, fx.y, "likelihood", "softmax")
%!error <valla: 'y' must be class labels 1..3 \(the network has 3 outputs\); found 4> valla (fx.net, fx.x, [fx.y(1:end-1); 4], "likelihood", "softmax")
%!error <valla: 'y' must be class labels 1..3 .*found 0> valla (fx.net, fx.x, [0; fx.y(2:end)], "likelihood", "softmax")
%!error <valla: 'y' must be class labels 1..3 .*found 1.5> valla (fx.net, fx.x, [1.5; fx.y(2:end)], "likelihood", "softmax")
%!error <valla: 'inducing' M = 16 inducing points exceed the n = 15 rows of x> valla (fx.net, fx.x, fx.y, "likelihood", "softmax", "inducing", 16, "closed_form", true)
%!error <valla: 'inducing' M = 2 must be at least the number of classes \(3\)> valla (fx.net, fx.x, fx.y, "likelihood", "softmax", "inducing", 2)
%!error <valla: 'x' contains NaN> valla (fx.net, [NaN, 0; fx.x(2:end, :)], fx.y, "likelihood", "softmax")
%!error <valla: 'y' contains NaN> valla (fx.net, fx.x, [NaN; fx.y(2:end)], "likelihood", "softmax")
%!error <valla: 'model.W\{1\}' contains NaN> valla (setfield (fx.net, "W", {[NaN; 0] .* fx.net.W{1}, fx.net.W{2}, fx.net.W{3}}), fx.x, fx.y, "likelihood", "softmax")
%!error <valla: 'inducing' contains NaN> valla (fx.net, fx.x, fx.y, "likelihood", "softmax", "inducing", [NaN 0; 1 1; 2 2])
%!error <valla: 'xtest' contains NaN> valla (fx.net, fx.x, fx.y, "likelihood", "softmax", "method", "lla", "xtest", [NaN 0])
%!error <valla: 'likelihood' "gaussian" needs a network with one output \(it has 3\)> valla (fx.net, fx.x, fx.y, "likelihood", "gaussian")
%!error <valla: 'inducing_tags' must be 3 whole numbers in 1..3> valla (fx.net, fx.x, fx.y, "likelihood", "softmax", "inducing", fx.x(1:3, :), "inducing_tags", [1 2 4])
%!error <scalegp_predict: 'xnew' has 1 columns but the network expects 2> scalegp_predict (valla (fx.net, fx.x, fx.y, "likelihood", "softmax", "method", "lla"), 0)
