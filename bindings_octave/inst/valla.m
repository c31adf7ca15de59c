## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{fit} =} valla (@var{model}, @var{x}, @var{y})
## @deftypefnx {} {@var{fit} =} valla (@var{model}, @var{x}, @var{y}, @var{name}, @var{value}, @dots{})
## Variational linearized Laplace (VaLLA) error bars for a pre-trained MLP.
##
## The network output g(x) is kept as the predictive mean; the covariance
## comes from a Gaussian process with the network's neural tangent kernel
## @code{prior_var * J(x) J(x')'} as prior, fitted as a sparse variational
## GP with M inducing points by minibatch Adam (cost per iteration
## independent of n), or in closed form.  Exact LLA and ELLA are available as
## baselines (@qcode{"method"}).
##
## @var{model} is a struct with fields @code{weights} and @code{biases} (cell
## arrays of the L layers' weights and biases; the older names @code{W} and
## @code{b} are read too) and @code{activation} (@qcode{"tanh"}, the default,
## @qcode{"sigmoid"}, @qcode{"relu"}, @qcode{"identity"} or
## @qcode{"sigmoid_nnet"}, nnet's clipped logistic), as R's network list.  Layer l
## maps @code{a@{l@} = act (a@{l-1@} * weights@{l@} + biases@{l@})} (weights@{l@}
## is in-by-out), the last layer is linear.  Optional fields: @code{skip}
## (d-by-C, added to the last pre-activation), @code{transpose} (true:
## weights@{l@} and skip are stored out-by-in), @code{output}
## (@qcode{"identity"} default, or a logistic).
## @var{x} is an n-by-d real matrix (rows are points); @var{y} has n
## regression targets (gaussian), class labels 1..C (softmax, C = the
## network's outputs) or 0/1 (bernoulli, one logit output).
##
## Options, as name/value pairs with the same names, defaults and checks as in
## R (the core defines them; data such as @qcode{"inducing"} locations,
## @qcode{"validation"} and @qcode{"xtest"} stay here):
##
## @table @asis
## @item @qcode{"likelihood"}
## @qcode{"gaussian"}, @qcode{"softmax"} or @qcode{"bernoulli"} (default:
## gaussian for a network with one output, softmax otherwise).
## @item @qcode{"method"}
## @qcode{"valla"} (default), @qcode{"lla"} (exact, dense; n*C at most
## @qcode{"lla_max"}) or @qcode{"ella"} (Nystrom baseline).
## @item @qcode{"inducing"}
## The number M of inducing points (k-means, per class for classification),
## or an M-by-d matrix of initial locations.  Default: 100, or all the rows of
## @var{x} k-means sees (those left after the @qcode{"val_frac"} hold-out) when
## fewer; an explicit M larger than those rows is an error.
## @qcode{"inducing_tags"}: the output (1..C) of each row of a matrix
## @qcode{"inducing"} (default: 1, 2, @dots{}, C, 1, 2, @dots{}).
## @item @qcode{"prior_var"}, @qcode{"noise"}
## Initial prior variance of the weights (default 1) and Gaussian noise
## variance (default: exp(-5) times the variance of @var{y}).
## @item @qcode{"learn"}
## Cell array of what Adam optimizes, out of @qcode{"A"},
## @qcode{"inducing"}, @qcode{"prior_var"}, @qcode{"noise"} (default all;
## @code{@{@}} freezes all).
## @item @qcode{"closed_form"}
## true: A at its optimum for the current inducing points and
## hyperparameters (gaussian; softmax: the GGN extension) instead of Adam.
## With the inducing points at the training inputs this is the exact LLA,
## also with more inducing points than network weights (their NTK matrix is
## then singular: the weight directions they span are taken from the SVD of
## their Jacobian, and @qcode{"jitter"}, used with fewer inducing points than
## weights, is not needed).
## @item @qcode{"iterations"}, @qcode{"batch_size"}, @qcode{"lr"}, @qcode{"alpha"}
## Adam iterations (default 20000), minibatch size (100), learning rate
## (1e-3) and the alpha of the alpha-divergence objective (1; below 1
## gaussian only).
## @item @qcode{"validation"}
## A struct with fields @code{x} and @code{y} of data the network was not
## trained on, for early stopping and (gaussian) the noise.  Default: with
## @qcode{"refit"}, the out-of-fold residuals of @qcode{"folds"} (5) refits;
## else a @qcode{"val_frac"} hold-out of @var{x}, which the network was
## trained on and which therefore cannot see overfitting.
## @item @qcode{"refit"}
## Gaussian, without @qcode{"validation"}: a function handle
## @code{@@(x, y) ...} that trains the network again as it was trained and
## returns it (e.g. @code{@@(x, y) mlp_fit (x, y, [50 50], "tanh", "seed", 1)}).
## With @qcode{"noise_fit"} @qcode{"validation"} (default) a learned noise is
## the variance that minimizes the validation NLL at each check, and when
## the network's validation RMSE is much larger than on @var{x} valla warns
## (identifier @qcode{"scalegp:overfit"}); see R's @code{?valla}, section
## "Noise and validation data".
## @item @qcode{"xtest"}
## Test inputs: predictions go to @code{fit.test}.
## @item @qcode{"backend"}, @qcode{"seed"}, @qcode{"verbose"}, @qcode{"threads"}
## As in @code{gp_laplace}.
## @item @qcode{"eval_every"}, @qcode{"patience"}, @qcode{"restore_best"}, @qcode{"beta1"}, @qcode{"beta2"}, @qcode{"adam_eps"}, @qcode{"init_A"}, @qcode{"standardize_y"}, @qcode{"noise_fit"}, @qcode{"folds"}, @qcode{"kmeans_iter"}, @qcode{"kmeans_max"}, @qcode{"jitter"}, @qcode{"cache_max_bytes"}, @qcode{"val_frac"}, @qcode{"val_max"}, @qcode{"layers"}, @qcode{"lla_max"}, @qcode{"ella_rank"}
## Additional options, as in R's @code{?valla} (defaults 100, 1, true, 0.9,
## 0.999, 1e-8, @qcode{"identity"}, true, @qcode{"validation"}, 5, 10, 50000, 1e-8, 2^31, 0.1,
## Inf, all layers, 5000, 20).
## @item @qcode{"full_cov"}, @qcode{"prob_method"}, @qcode{"mc_samples"}
## Predictions at @qcode{"xtest"}: C-by-C-by-m latent covariances in
## @code{test.cov}; class probabilities by the probit approximation
## (@qcode{"probit"}, default) or Monte Carlo (@qcode{"mc"}, 2048 draws).
## @end table
##
## The result is a struct (plain data: it survives @code{save}/@code{load})
## with @code{class = "valla"} and the fields of the R result:
## @code{inducing} (Z), @code{L} (A = L L'), @code{prior_var}, @code{noise},
## @code{noise} is empty for classification;
## @code{history} (@code{objective} per iteration, and @code{validation}
## with columns @code{iteration} and @code{nll}), @code{iterations}, and with
## @qcode{"xtest"} @code{test} with fields @code{mean} (the network output),
## @code{var} (n-by-C: predictive variance, including the noise for
## gaussian), @code{prob} (classification), @code{latent_var} (gaussian) and
## @code{cov} (with @qcode{"full_cov"}); also @code{model} (the network as
## plain data), @code{tags}, @code{y_mean}, @code{y_sd}, @code{clamps},
## @code{best_iteration}, @code{closed_form}, @code{kernel_cache}, @code{n},
## @code{n_train} (rows Adam trained on), @code{d}, @code{C}, @code{levels}
## (empty: Octave labels have no names), @code{x_range}, @code{seed},
## @code{stop_reason} (@qcode{"iterations"},
## @qcode{"early_stopping"}, @qcode{"diverged"}: the objective or the
## parameters stopped being finite, Adam stopped at iteration
## @code{diverged_at} and the last usable state is kept; or
## @qcode{"loss_rose"}: the training objective rose over the run; the last two
## warn with identifier @qcode{"scalegp:diverged"} and usually mean that
## @qcode{"lr"} is too large) and @code{diverged_at}.  Predict at new inputs with
## @code{scalegp_predict (fit, xnew)}.
##
## Example:
##
## @example
## @group
## x = linspace (-3, 3, 200)';
## y = sin (x) + 0.1 * randn (200, 1);
## net = mlp_fit (x, y, [20 20], "tanh", "iterations", 3000, "seed", 1);
## fit = valla (net, x, y, "inducing", 10, "iterations", 2000, "seed", 1,
##              "xtest", linspace (-5, 5, 50)');
## plot (fit.test.mean + 2 * sqrt (fit.test.var) * [-1 1])
## @end group
## @end example
##
## @seealso{mlp_fit, scalegp_predict}
## @end deftypefn

function fit = valla (model, x, y, varargin)

  if (nargin < 3)
    print_usage ();
  endif
  fname = "valla";
  front_names = {"inducing", "inducing_tags", "layers", "validation", "xtest", "full_cov", ...
                 "prob_method", "mc_samples", "interrupt_after", "refit"};
  [front, opts] = split_options (fname, front_names, varargin{:});
  net = __sgp_call__ ("valla_net_check", model, fname, "model");   # the core reads and checks it
  [D, C, L] = deal (net.D, net.C, net.L);
  x = check_input_matrix (x, fname, "x");
  if (columns (x) != D)
    arg_error (fname, "x", "has %d columns but the network expects %d inputs", columns (x), D);
  endif
  likelihood = valla_likelihood (option_value (fname, opts, "likelihood"), C, fname);
  opts = set_option (opts, "likelihood", likelihood);
  ycode = valla_labels (y, likelihood, C, rows (x), fname, "y");
  [inducing, tags, opts] = valla_inducing_arg (front.inducing, front.inducing_tags, D, C,
                                               opts, fname);
  if (isempty (front.validation) && strcmp (lik_role (likelihood), "noise") && ! isempty (front.refit))
    front.validation = valla_oof_validation (model, x, ycode, front.refit, opts, fname);
  endif
  [xval, yval, xtest] = valla_data_args (front.validation, front.xtest, likelihood, D, C, fname);
  layers = valla_layers (front.layers, L, fname);
  ## xtest's prediction options: the core's table "valla_predict" checks them now,
  ## before the training
  popts = {};
  for name = {"full_cov", "prob_method", "mc_samples"}
    if (! isempty (front.(name{1})))
      __sgp_call__ ("option_check", "valla_predict", name{1}, front.(name{1}), fname);
      popts(end+1:end+2) = {name{1}, front.(name{1})};
    endif
  endfor
  if (isempty (option_value (fname, opts, "seed")))
    opts = set_option (opts, "seed", floor(rand () * 2147483647));
  endif

  res = __sgp_call__ ("valla_fit", model, x, ycode, xval, yval, inducing, tags, layers,
                      if_else (isempty (front.interrupt_after), -1, front.interrupt_after),
                      opts{:});

  if (! isempty (res.warning))
    warning ("scalegp:diverged", "%s: %s", fname, res.warning);
  endif
  if (! isempty (res.overfit))
    warning ("scalegp:overfit", "%s: %s", fname, res.overfit);
  endif
  fit = res.fit;   # the core's fields (sgp_valla_fit_plain), as R's valla list
  fit.class = "valla";
  if (! isempty (xtest))
    fit.test = predict_valla (fit, xtest, popts{:},
                              "threads", option_value (fname, opts, "threads"));
  endif
  if (option_value (fname, opts, "verbose"))
    printf ("valla: %s, %s likelihood, n = %d, M = %d; %d iterations; prior_var %.4g",
            fit.method, likelihood, rows (x), rows (fit.inducing), fit.iterations,
            fit.prior_var);
    if (strcmp (lik_role (likelihood), "noise"))
      printf (", noise %.4g", fit.noise);
    endif
    printf ("\n");
  endif

endfunction

%!shared net, x, y, xs
%! net = struct ("W", {{[1.2 -0.8 0.5 0.9], [0.7; -0.4; 0.6; 0.3]}},
%!               "b", {{[0.1 -0.2 0 0.3], 0.05}}, "activation", "tanh");
%! x = linspace (-2, 2, 40)';
%! y = sin (x) + 0.1 * cos (7 * x);
%! xs = [-3; 0; 3];

%!test
%! ## a learning rate that diverges: stopped with a warning, a usable fit
%! warning ("off", "scalegp:diverged", "local");
%! fit = valla (net, x, y, "inducing", 6, "iterations", 50, "lr", 1e3, "seed", 1,
%!              "xtest", xs);
%! assert (fit.stop_reason, "diverged");
%! assert (fit.diverged_at, 1);
%! assert (fit.iterations, 0);
%! assert (all (isfinite (fit.test.var) & fit.test.var > 0));
%! assert (! isfield (fit, "advice"));
%!warning <valla: training diverged .* \(iteration 1\)>
%! valla (net, x, y, "inducing", 6, "iterations", 50, "lr", 1e3, "seed", 1);

%!test
%! fit = valla (net, x, y, "inducing", 6, "iterations", 150, "batch_size", 20, "lr", 1e-2,
%!              "seed", 1, "xtest", xs);
%! assert (fit.stop_reason, "iterations");
%! assert (fit.class, "valla");
%! assert (size (fit.inducing), [6, 1]);
%! assert (size (fit.L), [6, 6]);
%! assert (fit.iterations <= 150);
%! assert (numel (fit.history.objective), fit.iterations);
%! assert (fieldnames (fit.test)', {"mean", "var", "latent_var"});
%! assert (fit.test.mean, tanh (xs * net.W{1} + net.b{1}) * net.W{2} + net.b{2}, 1e-13);
%! assert (fit.test.var, fit.test.latent_var + fit.noise, 1e-12);
%! assert (all (fit.test.latent_var >= 0));
%! ## the same seed gives the same fit
%! fit2 = valla (net, x, y, "inducing", 6, "iterations", 150, "batch_size", 20, "lr", 1e-2,
%!               "seed", 1, "xtest", xs);
%! assert (fit2.L, fit.L);
%! assert (fit2.test, fit.test);

%!test
%! ## save/load round trip, then predict; latent variance at most the prior
%! fit = valla (net, x, y, "inducing", 5, "closed_form", true, "learn", {}, "prior_var", 0.5,
%!              "noise", 0.01, "xtest", xs, "seed", 2);
%! f = [tempname() ".mat"];
%! save ("-binary", f, "fit");
%! s = load (f);
%! delete (f);
%! p = scalegp_predict (s.fit, xs);
%! assert (p, fit.test, 1e-14);
%! assert (fit.prior_var, 0.5, 1e-14);
%! assert (fit.noise, 0.01, 1e-14);
%! ## prior 0.5 J J' from the explicit Jacobian of the one-hidden-layer net
%! a = tanh (xs * net.W{1} + net.b{1});
%! d = (1 - a .^ 2) .* net.W{2}';
%! kxx = 0.5 * sum ([xs .* d, d, a, ones(3, 1)] .^ 2, 2);
%! assert (all (p.latent_var >= 0) && all (p.latent_var <= kxx * (1 + 1e-12)));
%! assert (p.latent_var(1) > 0.01 * kxx(1));   # far from the data: not collapsed

%!test
%! ## softmax: C from the network, probabilities sum to one, cov blocks
%! n3 = struct ("W", {{[1 -1 0.5; 0.3 0.8 -0.6], [0.5 -0.2 0.1; 0.3 0.4 -0.5; -0.2 0.6 0.3]}},
%!              "b", {{[0 0.1 -0.1], [0 0 0]}}, "activation", "relu");
%! x2 = [x, cos(x)];
%! yc = 1 + (x > -0.7) + (x > 0.7);
%! fit = valla (n3, x2, yc, "likelihood", "softmax", "method", "lla", "prior_var", 2,
%!              "xtest", x2(1:5, :), "full_cov", true, "seed", 1);
%! assert (fit.n_class, 3);
%! assert (sum (fit.test.prob, 2), ones (5, 1), 1e-12);
%! assert (size (fit.test.cov), [3, 3, 5]);
%! for i = 1:5
%!   assert (diag (fit.test.cov(:, :, i))', fit.test.var(i, :), 1e-14);
%! endfor
%! p = scalegp_predict (fit, x2(1:5, :), "prob_method", "mc", "mc_samples", 4000, "seed", 3);
%! assert (sum (p.prob, 2), ones (5, 1), 1e-12);
%! assert (scalegp_predict (fit, x2(1:5, :), "type", "class"),
%!         nthargout (2, @max, fit.test.prob, [], 2));

%!test
%! ## learn selects what Adam moves: names map to the right parameters
%! run = @(learn) valla (net, x, y, "inducing", 4, "iterations", 40, "lr", 1e-2,
%!                       "batch_size", 10, "prior_var", 0.7, "noise", 0.02, "learn", learn,
%!                       "val_frac", 0, "seed", 6);
%! f0 = run ({});
%! assert (f0.L, eye (4));
%! assert ([f0.prior_var, f0.noise], [0.7, 0.02], 1e-14);
%! fa = run ({"A"});
%! assert (norm (fa.L - eye (4)) > 1e-3);
%! assert (fa.inducing, f0.inducing);
%! assert ([fa.prior_var, fa.noise], [0.7, 0.02], 1e-14);
%! fz = run ("inducing");
%! assert (fz.L, eye (4));
%! assert (norm (fz.inducing - f0.inducing) > 1e-4);
%! fp = run ({"prior_var"});
%! assert (abs (fp.prior_var - 0.7) > 1e-3);
%! assert (fp.noise, 0.02, 1e-14);
%! fn = run ({"noise"});
%! assert (fn.prior_var, 0.7, 1e-14);
%! assert (abs (fn.noise - 0.02) > 1e-4);

%!test
%! ## ELLA baseline: 0 <= latent variance <= prior
%! fit = valla (net, x, y, "method", "ella", "inducing", 10, "ella_rank", 5, "prior_var", 0.5,
%!              "noise", 0.01, "xtest", xs, "seed", 4);
%! a = tanh (xs * net.W{1} + net.b{1});
%! d = (1 - a .^ 2) .* net.W{2}';
%! kxx = 0.5 * sum ([xs .* d, d, a, ones(3, 1)] .^ 2, 2);
%! assert (all (fit.test.latent_var >= 0) && all (fit.test.latent_var <= kxx * (1 + 1e-12)));

%!test
%! ## an explicit validation set: evaluations every eval_every iterations, best kept
%! xv = linspace (-1.9, 1.9, 15)';
%! fit = valla (net, x, y, "inducing", 5, "iterations", 300, "eval_every", 50, "lr", 1e-2,
%!              "batch_size", 10, "validation", struct ("x", xv, "y", sin (xv)), "seed", 5);
%! v = fit.history.validation;
%! assert (numel (v.nll) >= 1);
%! assert (numel (v.iteration), numel (v.nll));
%! ## the core evaluates after steps 1, 51, ... and the final iterate (300 here)
%! assert (all (mod (v.iteration(1:end-1) - 1, 50) == 0));
%! assert (mod (v.iteration(end) - 1, 50) == 0 || v.iteration(end) == fit.iterations);
%! assert (any (v.iteration == fit.best_iteration));
%! assert (fit.best_iteration <= fit.iterations);

%!test
%! ## bernoulli: one logit output, labels 0/1, prob = P(y = 1)
%! yb = double (x > 0.3);
%! fit = valla (net, x, yb, "likelihood", "bernoulli", "method", "lla", "prior_var", 2,
%!              "xtest", xs, "seed", 1);
%! assert (isempty (fit.noise));
%! assert (size (fit.test.prob), [3, 1]);
%! z = fit.test.mean ./ sqrt (1 + pi / 8 * fit.test.var);
%! assert (fit.test.prob, 1 ./ (1 + exp (-z)), 1e-12);
%! assert (scalegp_predict (fit, xs, "type", "class"), double (fit.test.prob > 0.5));

%!test
%! out = evalc ('valla (net, x, y, "inducing", 4, "iterations", 10, "verbose", true, "seed", 1);');
%! assert (! isempty (strfind (out, "valla: valla, gaussian")));

%!error <Invalid call> valla (1, 2)
%!error <'model' must be a network \(a list or struct of weights, biases> valla (1, x, y)
%!error <'model.b' must be a list with one vector per weight matrix \(2\)> valla (setfield (net, "b", {1}), x, y)
%!error <'model.W\{2\}' has 3 rows but layer 1 has 4 outputs> valla (setfield (net, "W", {net.W{1}, [1; 2; 3]}), x, y)
%!error <'model.b\{1\}' must be numeric of length 4> valla (setfield (net, "b", {[1 2], 0}), x, y)
%!error <'model.W\{1\}' contains NaN> valla (setfield (net, "W", {[NaN 1 1 1], net.W{2}}), x, y)
%!error <'model.activation' is unknown: "swish"> valla (setfield (net, "activation", "swish"), x, y)
%!error <'x' has 2 columns but the network expects 1 inputs> valla (net, [x x], y)
%!error <'x' contains NaN> valla (net, [NaN; x(2:end)], y)
%!error <'y' contains NaN> valla (net, x, [NaN; y(2:end)])
%!error <'y' has 39 elements but 'x' has 40 rows> valla (net, x, y(1:39))
%!error <'likelihood' "gaussian" needs a network with one output \(it has 3\)> valla (struct ("W", {{[1 2 3]}}, "b", {{[0 0 0]}}, "activation", "tanh"), x, ones (40, 1), "likelihood", "gaussian")
%!error <'likelihood' "softmax" needs a network with C> valla (net, x, ones (40, 1), "likelihood", "softmax")
%!error <valla: 'inducing' M = 41 inducing points exceed the n = 40 rows of x> valla (net, x, y, "inducing", 41, "closed_form", true)
%!error <valla: 'inducing' M = 40 inducing points exceed the 36 rows of x left after the val_frac = 0.1 hold-out> valla (net, x, y, "inducing", 40)
%!error <valla: 'inducing' M = 100 inducing points exceed the 36 rows> valla (net, x, y, "inducing", 100)
%!test
%! ## the default inducing = 100 on n = 40: all 36 rows left after the hold-out
%! fit = valla (net, x, y, "iterations", 2, "seed", 1);
%! assert (rows (fit.inducing), 36);
%!error <'inducing' must be a number M or an M-by-1> valla (net, x, y, "inducing", zeros (3, 2))
%!error <'learn' has unknown entries "Z"; use any of "A"> valla (net, x, y, "learn", {"Z"})
%!error <'noise' must be positive> valla (net, x, y, "noise", 0)
%!error <valla: 'prior_var' must be positive and finite \(got -1\)> valla (net, x, y, "prior_var", -1)
%!error <'method' must be one of "valla", "lla", "ella" \(got "laplace"\)> valla (net, x, y, "method", "laplace")
%!error <'validation' must be a struct> valla (net, x, y, "validation", 1)
%!error <'validation.x' has 2 columns> valla (net, x, y, "validation", struct ("x", [x x], "y", y))
%!error <'xtest' has 2 columns> valla (net, x, y, "xtest", [1 2; 3 4])
%!error <valla: 'alpha' must be a number in \[0, 1\] \(got 2\)> valla (net, x, y, "alpha", 2)
%!error <'layers' must be 2 true/false flags> valla (net, x, y, "layers", [1 0 1])
%!error <unknown option 'inducng'> valla (net, x, y, "inducng", 3)
%!error <'y' must be 0/1 for likelihood = "bernoulli"> valla (net, x, y, "likelihood", "bernoulli")
%!error <valla: interrupted>
%! setenv ("SCALEGP_TEST_HOOKS", "1");  # interrupt_after is a test hook
%! unwind_protect
%!   valla (net, x, y, "inducing", 4, "interrupt_after", 0);
%! unwind_protect_cleanup
%!   unsetenv ("SCALEGP_TEST_HOOKS");
%! end_unwind_protect
%!error <valla: 'interrupt_after' is a test hook>
%! unsetenv ("SCALEGP_TEST_HOOKS");
%! valla (net, x, y, "inducing", 4, "interrupt_after", 0);

%!test
%! ## refit: the out-of-fold residuals of its networks are the validation data
%! ## (see docs/valla.md). A "refit" that misses by 1 everywhere makes them about 1 in mean
%! ## square against about 0.01 on x: valla warns and takes the noise from them (the
%! ## minimizer of their NLL lies between mean r^2 - max latent var and max r^2).
%! x = linspace (-2, 2, 80)';
%! y = sin (2 * x) + 0.1 * cos (17 * x);
%! net = mlp_fit (x, y, 16, "tanh", "iterations", 800, "lr", 0.01, "seed", 1);
%! bad = net;
%! bad.biases{end} = bad.biases{end} + 1;
%! calls = 0;
%! lastwarn ("");
%! fit = valla (net, x, y, "refit", @(xx, yy) bad, "folds", 4, "iterations", 50,
%!              "inducing", 8, "seed", 1);
%! [~, id] = lastwarn ();
%! assert (id, "scalegp:overfit");
%! assert (fit.noise > 0.5 && fit.noise < 1.5);
%! lastwarn ("");
%! fit0 = valla (net, x, y, "iterations", 50, "inducing", 8, "seed", 1);
%! [~, id] = lastwarn ();
%! assert (isempty (id));
%! assert (fit0.noise < 0.1);
%!error <valla: 'refit' must be a function> valla (net, x, y, "refit", 3)
%!error <valla: 'folds' must be 0 or at least 2 \(got 1\)> valla (net, x, y, "folds", 1)
