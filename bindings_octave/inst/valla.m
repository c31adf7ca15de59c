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
## @var{model} is a struct with fields @code{W} and @code{b} (cell arrays of
## the L layers' weights and biases) and @code{activation}
## (@qcode{"tanh"}, @qcode{"sigmoid"}, @qcode{"relu"}, @qcode{"identity"} or
## @qcode{"sigmoid_nnet"}, nnet's clipped logistic).  Layer l maps
## @code{a@{l@} = act (a@{l-1@} * W@{l@} + b@{l@})} (W@{l@} is in-by-out), the
## last layer is linear.  Optional fields: @code{skip} (d-by-C, added to the
## last pre-activation), @code{transpose} (true: W@{l@} and skip are stored
## out-by-in), @code{output} (@qcode{"identity"} default, or a logistic).
## @var{x} is an n-by-d real matrix (rows are points); @var{y} has n
## regression targets (gaussian), class labels 1..C (softmax, C = the
## network's outputs) or 0/1 (bernoulli, one logit output).
##
## Options, as name/value pairs (names are case-insensitive; the same names
## as in R):
##
## @table @asis
## @item @qcode{"likelihood"}
## @qcode{"gaussian"}, @qcode{"softmax"} or @qcode{"bernoulli"} (default:
## gaussian for a network with one output, softmax otherwise).
## @item @qcode{"method"}
## @qcode{"valla"} (default), @qcode{"lla"} (exact, dense; n*C at most
## @qcode{"lla_max"}) or @qcode{"ella"} (Nystrom baseline).
## @item @qcode{"inducing"}
## The number M of inducing points (default 100, or n when smaller; k-means,
## per class for classification), or an M-by-d matrix of initial locations.
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
## A struct with fields @code{x} and @code{y} for early stopping (default:
## a @qcode{"val_frac"} hold-out of @var{x}).
## @item @qcode{"xtest"}
## Test inputs: predictions go to @code{fit.test}.
## @item @qcode{"backend"}, @qcode{"seed"}, @qcode{"verbose"}, @qcode{"threads"}
## As in @code{gp_laplace}.
## @item @qcode{"eval_every"}, @qcode{"patience"}, @qcode{"restore_best"}, @qcode{"beta1"}, @qcode{"beta2"}, @qcode{"adam_eps"}, @qcode{"init_A"}, @qcode{"standardize_y"}, @qcode{"kmeans_iter"}, @qcode{"kmeans_max"}, @qcode{"jitter"}, @qcode{"cache_max_bytes"}, @qcode{"val_frac"}, @qcode{"val_max"}, @qcode{"layers"}, @qcode{"lla_max"}, @qcode{"ella_rank"}
## Additional options, as in R's @code{?valla} (defaults 100, 1, true, 0.9,
## 0.999, 1e-8, @qcode{"identity"}, true, 10, 50000, 1e-8, 2^31, 0.1,
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
## @code{best_iteration}, @code{stop_reason} (@qcode{"iterations"},
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
  defaults = struct ("likelihood", [], "method", "valla", "inducing", 100,
                     "inducing_tags", [], "prior_var", 1, "noise", [],
                     "learn", {{"A", "inducing", "prior_var", "noise"}},
                     "closed_form", false, "iterations", 20000, "batch_size", 100,
                     "lr", 1e-3, "alpha", 1, "validation", [], "xtest", [],
                     "backend", "auto", "seed", [], "verbose", false, "threads", 0,
                     "eval_every", 100, "patience", 1, "restore_best", true,
                     "beta1", 0.9, "beta2", 0.999, "adam_eps", 1e-8,
                     "init_A", "identity", "standardize_y", true, "kmeans_iter", 10,
                     "kmeans_max", 50000, "jitter", 1e-8, "cache_max_bytes", 2^31,
                     "val_frac", 0.1, "val_max", 10000, "layers", [], "lla_max", 5000,
                     "ella_rank", 20, "full_cov", false, "prob_method", "probit",
                     "mc_samples", 2048, "interrupt_after", -1);
  [opts, given] = parse_options (fname, defaults, varargin{:});

  [model, D, C, L] = valla_model (model, fname);
  x = check_input_matrix (x, fname, "x");
  n = rows (x);
  if (columns (x) != D)
    arg_error (fname, "x", "has %d columns but the network expects %d inputs (model.W{1})",
               columns (x), D);
  endif
  if (isempty (opts.likelihood))   # as in R: from the number of network outputs
    opts.likelihood = if_else (C == 1, "gaussian", "softmax");
  endif
  likelihood = check_choice (opts.likelihood, {"gaussian", "softmax", "bernoulli"}, fname,
                             "likelihood");
  if (strcmp (likelihood, "softmax") && C < 2)
    arg_error (fname, "likelihood", "\"softmax\" needs a network with C >= 2 outputs (it has %d)", C);
  elseif (! strcmp (likelihood, "softmax") && C != 1)
    arg_error (fname, "likelihood", "\"%s\" needs a network with one output (it has %d); use \"softmax\"",
               likelihood, C);
  endif
  ycode = valla_labels (y, likelihood, C, n, fname, "y");
  method = check_choice (opts.method, {"valla", "lla", "ella"}, fname, "method");

  ## points left for k-means when Adam holds out a validation part of x
  closed_form = check_flag (opts.closed_form, fname, "closed_form");
  iterations = check_count (opts.iterations, fname, "iterations", 0);
  val_frac = check_nonneg (opts.val_frac, fname, "val_frac");
  if (val_frac >= 1)
    arg_error (fname, "val_frac", "must be in [0, 1)");
  endif
  n_fit = n;
  nv = floor (val_frac * n);
  if (strcmp (method, "valla") && ! closed_form && iterations > 0 && isempty (opts.validation)
      && nv >= 1 && n - nv >= 1)
    n_fit = n - nv;
  endif

  tags = [];
  inducing = [];
  n_inducing = 0;
  iv = opts.inducing;
  if (isnumeric (iv) && isscalar (iv))
    n_inducing = check_count (iv, fname, "inducing", 1);
    if (! given.inducing)
      n_inducing = min (n_inducing, n_fit);   # the default 100 on a small data set
    endif
  else
    if (! (isnumeric (iv) && isreal (iv) && ndims (iv) == 2 && columns (iv) == D && ! isempty (iv)))
      arg_error (fname, "inducing", "must be a number M or an M-by-%d real matrix", D);
    endif
    if (any (! isfinite (iv(:))))
      arg_error (fname, "inducing", "contains NaN or Inf");
    endif
    inducing = full (double (iv));
    n_inducing = rows (inducing);
    if (! isempty (opts.inducing_tags))
      t = opts.inducing_tags;
      if (! (isnumeric (t) && isvector (t) && numel (t) == n_inducing
             && all (t(:) == round (t(:))) && all (t(:) >= 1 & t(:) <= C)))
        arg_error (fname, "inducing_tags", "must be %d whole numbers in 1..%d", n_inducing, C);
      endif
      tags = double (t(:)) - 1;
    endif
  endif
  if (! isempty (opts.inducing_tags) && isempty (inducing))
    arg_error (fname, "inducing_tags", "needs a matrix of inducing locations");
  endif
  if (! strcmp (method, "lla") && isempty (inducing))   # a matrix may hold any M points
    if (n_inducing > n_fit)
      held = "";
      if (n_fit < n)
        held = sprintf (" less the %d held out for validation", n - n_fit);
      endif
      arg_error (fname, "inducing", "(M = %d) must not exceed the number of rows of 'x' (%d%s)",
                 n_inducing, n, held);
    endif
    if (C > 1 && n_inducing < C)
      arg_error (fname, "inducing", "(M = %d) must be at least the number of classes (%d)",
                 n_inducing, C);
    endif
  endif

  prior_var = check_positive (opts.prior_var, fname, "prior_var", 1);
  noise = 0;                      # core default: exp(-5) on the standardized scale
  if (! isempty (opts.noise))
    if (! strcmp (likelihood, "gaussian"))
      arg_error (fname, "noise", "is only used with likelihood = \"gaussian\"");
    endif
    noise = check_positive (opts.noise, fname, "noise", 1);
  endif
  learn = learn_bits (opts.learn, fname);
  alpha = opts.alpha;
  if (! (isnumeric (alpha) && isreal (alpha) && isscalar (alpha) && alpha >= 0 && alpha <= 1))
    arg_error (fname, "alpha", "must be one number in [0, 1]");
  endif
  if (alpha != 1 && ! strcmp (likelihood, "gaussian"))
    arg_error (fname, "alpha", "other than 1 needs likelihood = \"gaussian\"");
  endif
  xval = [];
  yval = [];
  if (! isempty (opts.validation))
    v = opts.validation;
    if (! (isstruct (v) && isscalar (v) && isfield (v, "x") && isfield (v, "y")))
      arg_error (fname, "validation", "must be a struct with fields x and y");
    endif
    xval = check_input_matrix (v.x, fname, "validation.x");
    if (columns (xval) != D)
      arg_error (fname, "validation.x", "has %d columns but the network expects %d inputs",
                 columns (xval), D);
    endif
    yval = valla_labels (v.y, likelihood, C, rows (xval), fname, "validation.y");
  endif
  xtest = opts.xtest;
  has_test = ! isempty (xtest);
  if (has_test)
    xtest = check_input_matrix (xtest, fname, "xtest");
    if (columns (xtest) != D)
      arg_error (fname, "xtest", "has %d columns but 'x' has %d", columns (xtest), D);
    endif
    big = find (abs (xtest) > 1e100, 1);   # the core's bound, checked before training
    if (! isempty (big))
      arg_error (fname, "xtest", "holds %g (at most 1e+100 in magnitude: larger values overflow; rescale them)",
                 xtest(big));
    endif
  endif
  layers = opts.layers;
  if (! isempty (layers))
    if (! ((islogical (layers) || isnumeric (layers)) && isvector (layers)
           && numel (layers) == L && all (layers(:) == 0 | layers(:) == 1) && any (layers(:))))
      arg_error (fname, "layers", "must be %d true/false flags, one per layer, at least one true", L);
    endif
    layers = double (layers(:));
  endif

  o = struct ("likelihood", likelihood, "method", method, "n_inducing", n_inducing,
              "prior_var", prior_var, "noise", noise, "learn", learn,
              "closed_form", closed_form, "iterations", iterations,
              "batch_size", check_count (opts.batch_size, fname, "batch_size", 1),
              "lr", check_positive (opts.lr, fname, "lr", 1), "alpha", double (alpha),
              "eval_every", check_count (opts.eval_every, fname, "eval_every", 1),
              "patience", check_count (opts.patience, fname, "patience", 1),
              "restore_best", check_flag (opts.restore_best, fname, "restore_best"),
              "beta1", unit_interval (opts.beta1, fname, "beta1"),
              "beta2", unit_interval (opts.beta2, fname, "beta2"),
              "adam_eps", check_positive (opts.adam_eps, fname, "adam_eps", 1),
              "init_A", check_choice (opts.init_A, {"identity", "closed_form"}, fname, "init_A"),
              "standardize_y", check_flag (opts.standardize_y, fname, "standardize_y"),
              "kmeans_iter", check_count (opts.kmeans_iter, fname, "kmeans_iter", 0),
              "kmeans_max", check_count (opts.kmeans_max, fname, "kmeans_max", 1),
              "jitter", check_nonneg (opts.jitter, fname, "jitter"),
              "cache_max_bytes", check_count_or_inf (opts.cache_max_bytes, fname, "cache_max_bytes"),
              "val_frac", val_frac,
              "val_max", check_count_or_inf (opts.val_max, fname, "val_max"),
              "lla_max", check_count (opts.lla_max, fname, "lla_max", 1),
              "ella_rank", check_count (opts.ella_rank, fname, "ella_rank", 1),
              "backend", check_choice (opts.backend, {"auto", "cpu", "cuda"}, fname, "backend"));
  if (isinf (o.val_max))
    o.val_max = -1;
  endif
  full_cov = check_flag (opts.full_cov, fname, "full_cov");
  prob_method = check_choice (opts.prob_method, {"probit", "mc"}, fname, "prob_method");
  mc_samples = check_count (opts.mc_samples, fname, "mc_samples", 1);
  seed = check_seed (opts.seed, fname);
  verbose = check_flag (opts.verbose, fname, "verbose");
  threads = check_threads (opts.threads, fname);

  res = __sgp_valla__ (model, x, ycode, o, xval, yval, inducing, tags, layers, seed,
                       verbose, threads, opts.interrupt_after);

  warn_stop (fname, res);
  fit = rmfield (res, "advice");
  fit.likelihood = likelihood;
  fit.method = method;
  fit.n_class = if_else (strcmp (likelihood, "bernoulli"), 2, C);
  fit.layers = layers;
  fit.seed = seed;
  fit.class = "valla";
  if (has_test)
    fit.test = predict_valla (fit, xtest, "full_cov", full_cov, "prob_method", prob_method,
                              "mc_samples", mc_samples, "threads", threads);
  endif
  if (verbose)
    printf ("valla: %s, %s likelihood, n = %d, M = %d; %d iterations; prior_var %.4g",
            method, likelihood, n, rows (fit.inducing), fit.iterations, fit.prior_var);
    if (strcmp (likelihood, "gaussian"))
      printf (", noise %.4g", fit.noise);
    endif
    printf ("\n");
  endif

endfunction

## The network struct checked layer by layer; D inputs, C outputs, L layers.
function [model, D, C, L] = valla_model (model, fname)
  if (! (isstruct (model) && isscalar (model) && isfield (model, "W") && isfield (model, "b")
         && isfield (model, "activation")))
    arg_error (fname, "model", "must be a struct with fields W, b (cell arrays) and activation");
  endif
  if (! (iscell (model.W) && iscell (model.b)))
    arg_error (fname, "model", "fields W and b must be cell arrays (one entry per layer)");
  endif
  L = numel (model.W);
  if (L < 1 || numel (model.b) != L)
    arg_error (fname, "model", "has %d weight matrices and %d bias vectors (need the same number, at least 1)",
               L, numel (model.b));
  endif
  tr = (isfield (model, "transpose") && ! isempty (model.transpose)
        && check_flag (model.transpose, fname, "model.transpose"));
  model.transpose = tr;
  prev = -1;
  for l = 1:L
    w = model.W{l};
    arg = sprintf ("model.W{%d}", l);
    if (! (isnumeric (w) && isreal (w) && ndims (w) == 2 && ! isempty (w)))
      arg_error (fname, arg, "must be a non-empty real matrix");
    endif
    if (any (! isfinite (w(:))))
      arg_error (fname, arg, "contains NaN or Inf");
    endif
    [nin, nout] = size (w);
    if (tr)
      [nin, nout] = deal (nout, nin);
    endif
    if (l == 1)
      D = nin;
    elseif (nin != prev)
      arg_error (fname, arg, "is %d x %d but layer %d has %d outputs", rows (w), columns (w),
                 l - 1, prev);
    endif
    b = model.b{l};
    arg = sprintf ("model.b{%d}", l);
    if (! (isnumeric (b) && isreal (b) && (isvector (b) || isempty (b)) && numel (b) == nout))
      arg_error (fname, arg, "must have %d values (the columns of model.W{%d})", nout, l);
    endif
    if (any (! isfinite (b(:))))
      arg_error (fname, arg, "contains NaN or Inf");
    endif
    model.W{l} = full (double (w));
    model.b{l} = full (double (b(:)));
    prev = nout;
  endfor
  C = prev;
  acts = {"tanh", "sigmoid", "relu", "identity", "sigmoid_nnet"};
  model.activation = check_choice (model.activation, acts, fname, "model.activation");
  if (isfield (model, "output") && ! isempty (model.output))
    model.output = check_choice (model.output, {"identity", "sigmoid", "sigmoid_nnet"}, fname,
                                 "model.output");
  else
    model.output = "identity";
  endif
  if (isfield (model, "skip") && ! isempty (model.skip))
    s = model.skip;
    want = if_else (tr, [C, D], [D, C]);
    if (! (isnumeric (s) && isreal (s) && isequal (size (s), want)))
      arg_error (fname, "model.skip", "must be %d x %d", want(1), want(2));
    endif
    if (any (! isfinite (s(:))))
      arg_error (fname, "model.skip", "contains NaN or Inf");
    endif
    model.skip = full (double (s));
  else
    model.skip = [];
  endif
endfunction

## Targets or labels as doubles for the core (softmax 0..C-1).
function ycode = valla_labels (y, likelihood, C, n, fname, arg)
  if (islogical (y))
    y = double (y);
  endif
  if (! isnumeric (y) || iscomplex (y))
    arg_error (fname, arg, "must be a real numeric vector");
  endif
  if (! (isvector (y) || isempty (y)) || numel (y) != n)
    arg_error (fname, arg, "has %d elements but '%s' has %d rows", numel (y),
               regexprep (arg, "y$", "x"), n);
  endif
  y = double (y(:));
  bad = find (! isfinite (y), 1);
  if (! isempty (bad))
    arg_error (fname, arg, "contains NaN, NA or Inf (first at %d)", bad);
  endif
  switch (likelihood)
    case "softmax"
      k = find (y != round (y) | y < 1 | y > C, 1);
      if (! isempty (k))
        arg_error (fname, arg, "must be class labels 1..%d (the network has %d outputs); found %g",
                   C, C, y(k));
      endif
      y -= 1;
    case "bernoulli"
      k = find (y != 0 & y != 1, 1);
      if (! isempty (k))
        arg_error (fname, arg, "must be 0/1 for likelihood = \"bernoulli\" (found %g)", y(k));
      endif
  endswitch
  ycode = y;
endfunction

function bits = learn_bits (learn, fname)
  names = {"A", "inducing", "prior_var", "noise"};
  if (ischar (learn) && (isrow (learn) || isempty (learn)))
    if (isempty (learn))
      learn = {};
    else
      learn = {learn};
    endif
  endif
  if (! iscellstr (learn) && ! (iscell (learn) && isempty (learn)))
    arg_error (fname, "learn", "must be a cell array of strings out of %s ({} freezes all)",
               strjoin (strcat ("\"", names, "\""), ", "));
  endif
  bits = 0;
  for i = 1:numel (learn)
    k = find (strcmp (learn{i}, names));
    if (isempty (k))
      arg_error (fname, "learn", "has an unknown entry \"%s\"; use %s", learn{i},
                 strjoin (strcat ("\"", names, "\""), ", "));
    endif
    bits = bitor (bits, 2 ^ (k - 1));
  endfor
endfunction


function v = unit_interval (v, fname, arg)
  if (! (isnumeric (v) && isreal (v) && isscalar (v) && v >= 0 && v < 1))
    arg_error (fname, arg, "must be one number in [0, 1)");
  endif
  v = double (v);
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
%!error <'model' must be a struct with fields W, b> valla (1, x, y)
%!error <'model' has 2 weight matrices and 1 bias> valla (setfield (net, "b", {1}), x, y)
%!error <'model.W\{2\}' is 3 x 1 but layer 1 has 4 outputs> valla (setfield (net, "W", {net.W{1}, [1; 2; 3]}), x, y)
%!error <'model.b\{1\}' must have 4 values> valla (setfield (net, "b", {[1 2], 0}), x, y)
%!error <'model.W\{1\}' contains NaN> valla (setfield (net, "W", {[NaN 1 1 1], net.W{2}}), x, y)
%!error <'model.activation' is unknown: "swish"> valla (setfield (net, "activation", "swish"), x, y)
%!error <'x' has 2 columns but the network expects 1 inputs> valla (net, [x x], y)
%!error <'x' contains NaN> valla (net, [NaN; x(2:end)], y)
%!error <'y' contains NaN> valla (net, x, [NaN; y(2:end)])
%!error <'y' has 39 elements but 'x' has 40 rows> valla (net, x, y(1:39))
%!error <'likelihood' "gaussian" needs a network with one output \(it has 3\)> valla (struct ("W", {{[1 2 3]}}, "b", {{[0 0 0]}}, "activation", "tanh"), x, ones (40, 1), "likelihood", "gaussian")
%!error <'likelihood' "softmax" needs a network with C> valla (net, x, ones (40, 1), "likelihood", "softmax")
%!error <'inducing' \(M = 41\) must not exceed the number of rows of 'x' \(40\)> valla (net, x, y, "inducing", 41, "closed_form", true)
%!error <'inducing' \(M = 40\) must not exceed the number of rows of 'x' \(40 less the 4 held out> valla (net, x, y, "inducing", 40)
%!error <'inducing' must be a number M or an M-by-1> valla (net, x, y, "inducing", zeros (3, 2))
%!error <'learn' has an unknown entry "Z"> valla (net, x, y, "learn", {"Z"})
%!error <'noise' must be positive> valla (net, x, y, "noise", 0)
%!error <'prior_var' must be positive> valla (net, x, y, "prior_var", -1)
%!error <'method' is unknown: "laplace"> valla (net, x, y, "method", "laplace")
%!error <'validation' must be a struct> valla (net, x, y, "validation", 1)
%!error <'validation.x' has 2 columns> valla (net, x, y, "validation", struct ("x", [x x], "y", y))
%!error <'xtest' has 2 columns> valla (net, x, y, "xtest", [1 2; 3 4])
%!error <'alpha' must be one number in \[0, 1\]> valla (net, x, y, "alpha", 2)
%!error <'layers' must be 2 true/false flags> valla (net, x, y, "layers", [1 0 1])
%!error <unknown option 'inducng'> valla (net, x, y, "inducng", 3)
%!error <'y' must be 0/1 for likelihood = "bernoulli"> valla (net, x, y, "likelihood", "bernoulli")
%!error <valla: interrupted> valla (net, x, y, "inducing", 4, "interrupt_after", 0)
