## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{model} =} mlp_fit (@var{x}, @var{y})
## @deftypefnx {} {@var{model} =} mlp_fit (@var{x}, @var{y}, @var{hidden})
## @deftypefnx {} {@var{model} =} mlp_fit (@var{x}, @var{y}, @var{hidden}, @var{activation}, @var{likelihood})
## @deftypefnx {} {@var{model} =} mlp_fit (@dots{}, @var{name}, @var{value}, @dots{})
## @deftypefnx {} {[@var{model}, @var{loss}, @var{info}] =} mlp_fit (@dots{})
## A small seeded MAP trainer for fully connected networks (Adam, weight
## decay), producing the network struct that @code{valla} takes.
##
## @var{x} is an n-by-d real matrix; @var{y} has n regression targets
## (gaussian: squared error), class labels 1..C (softmax: C = @code{max (y)}
## outputs) or 0/1 (bernoulli: one logit output).  @var{hidden} lists the
## hidden layer widths (e.g. @code{[200 200]}); @var{activation} is
## @qcode{"tanh"} (default), @qcode{"sigmoid"} or @qcode{"relu"};
## @var{likelihood} is @qcode{"gaussian"} (default), @qcode{"softmax"} or
## @qcode{"bernoulli"}.
##
## @var{hidden}, @var{activation} and @var{likelihood} may also be given by
## name, as in R: @code{mlp_fit (x, y, "hidden", [20 20], "likelihood",
## "softmax")}; @var{hidden} defaults to @code{[50 50]}.
##
## Options (the core checks them; the same names and defaults as in R):
## @qcode{"iterations"} (2000), @qcode{"batch_size"} (100), @qcode{"lr"}
## (1e-3), @qcode{"weight_decay"} (0), @qcode{"seed"}, @qcode{"threads"},
## @qcode{"verbose"}, @qcode{"backend"}.  Weights start Glorot-uniform from the
## seed.
## Gaussian targets are trained on their standardized scale and the output
## layer is mapped back, so the network predicts y in its own units (training
## on @code{a*y + b} gives @code{a*g + b} to rounding); @qcode{"weight_decay"}
## acts on the standardized scale.
##
## Returns @var{model} with fields @code{weights}, @code{biases} (cell arrays,
## weights@{l@} in-by-out), @code{activation}, @code{output} and @code{skip} (as
## R's network list), the final
## mean training loss @var{loss}, and @var{info} with @code{initial_loss}
## (before training), @code{iterations} (Adam steps taken),
## @code{stop_reason} (@qcode{"iterations"}; @qcode{"diverged"} when the loss,
## a gradient or a step stopped being finite: training stops there and keeps
## the last finite weights, @code{diverged_at} giving the iteration;
## @qcode{"loss_rose"} when the final loss exceeds the initial one) and
## @code{diverged_at}.  The last two stop reasons warn (identifier
## @qcode{"scalegp:diverged"}) and usually mean that @qcode{"lr"} is too large.
## Networks whose training cannot fit in memory are refused before anything is
## allocated.
## @seealso{valla}
## @end deftypefn

function [model, loss, info] = mlp_fit (x, y, varargin)

  if (nargin < 2)
    print_usage ();
  endif
  fname = "mlp_fit";
  t = __sgp_call__ ("options", fname);
  c = __sgp_call__ ("options", "context");
  names = [{"hidden", "activation"}, t.name(:)', c.name(:)'];
  ## hidden, activation, likelihood: positional (as before) or by name (as in R)
  positional = {};
  while (numel (varargin) >= 1 && numel (positional) < 3
         && ! (ischar (varargin{1}) && any (strcmp (varargin{1}, names))))
    if (isempty (positional) && ischar (varargin{1}))
      positional{end+1} = [];   # mlp_fit (x, y, activation, ...): the default hidden
    endif
    positional{end+1} = varargin{1};
    varargin(1) = [];
  endwhile
  [front, opts] = split_options (fname, {"hidden", "activation"}, varargin{:});
  pos_names = {"hidden", "activation", "likelihood"};
  for k = 1:numel (positional)
    if ((k < 3 && ! isempty (front.(pos_names{k})))
        || (k == 3 && any (strcmp (opts(1:2:end), "likelihood"))))
      arg_error (fname, pos_names{k}, "is given both by position and by name");
    endif
    if (k == 3)
      opts = set_option (opts, "likelihood", positional{k});
    elseif (k > 1 || ! isempty (positional{k}))
      front.(pos_names{k}) = positional{k};
    endif
  endfor
  hidden = if_else (isempty (front.hidden), [50 50], front.hidden);
  activation = if_else (isempty (front.activation), "tanh", front.activation);
  likelihood = option_value (fname, opts, "likelihood");
  __sgp_call__ ("option_check", fname, "likelihood", likelihood);   # the core's choices and message

  x = check_input_matrix (x, fname, "x");
  n = rows (x);
  if (! isempty (positional) && isempty (positional{1}) && ischar (activation)
      && ! any (strcmp (activation, {"tanh", "sigmoid", "relu"})))
    ## mlp_fit (x, y, "name"): a string in hidden's place is read as the activation
    arg_error (fname, "hidden", "must be numbers (layer widths); a string there is read as the activation, and \"%s\" is none of \"tanh\", \"sigmoid\", \"relu\"",
               activation);
  endif
  activation = check_choice (activation, {"tanh", "sigmoid", "relu"}, fname, "activation");
  if (! (isnumeric (hidden) && isreal (hidden) && (isvector (hidden) || isempty (hidden))
         && all (hidden(:) >= 1 & hidden(:) == round (hidden(:)) & hidden(:) <= flintmax ())))
    arg_error (fname, "hidden", "must be a vector of positive whole layer widths");
  endif
  if (! isnumeric (y) && ! islogical (y) || iscomplex (y) || numel (y) != n)
    arg_error (fname, "y", "must have %d real values (one per row of 'x')", n);
  endif
  y = double (y(:));
  if (any (! isfinite (y)))
    arg_error (fname, "y", "contains NaN, NA or Inf");
  endif
  C = 1;
  switch (lik_role (likelihood))   # the core's facts of the likelihood
    case "multi"
      if (any (y != round (y) | y < 1))
        arg_error (fname, "y", "must be class labels 1..C for likelihood = \"%s\"", likelihood);
      endif
      C = max (y);
      if (C < 2)
        arg_error (fname, "y", "has C = %d class; likelihood = \"%s\" needs C >= 2", C,
                   likelihood);
      endif
      y -= 1;
    case "two"
      if (any (y != 0 & y != 1))
        arg_error (fname, "y", "must be 0/1 for likelihood = \"%s\"", likelihood);
      endif
  endswitch
  if (isempty (option_value (fname, opts, "seed")))
    opts = set_option (opts, "seed", floor(rand () * 2147483647));
  endif

  res = __sgp_call__ ("mlp_fit", x, y, [columns(x), double(hidden(:))', C], activation, [],
                      opts{:});
  if (! isempty (res.used.warning))
    warning ("scalegp:diverged", "%s: %s", fname, res.used.warning);
  endif
  model = res.model;   # the network as R's list: weights, biases, activation, output, skip
  loss = res.loss;
  info = rmfield (res, {"model", "loss", "used"});
endfunction


%!test
%! x = linspace (-3, 3, 80)';
%! [net, loss] = mlp_fit (x, sin (x), [16 16], "tanh", "iterations", 1500, "batch_size", 40,
%!                        "lr", 1e-2, "seed", 1);
%! assert (size (net.weights{1}), [1 16]);
%! assert (size (net.weights{3}), [16 1]);
%! W = net.weights;
%! b = net.biases;
%! fwd = @(z) tanh (tanh (z * W{1} + b{1}') * W{2} + b{2}') * W{3} + b{3};
%! assert (mean ((fwd (x) - sin (x)) .^ 2), loss, 1e-10);
%! assert (loss < 0.01);
%! ## the same seed, the same network; a usable valla model
%! net2 = mlp_fit (x, sin (x), [16 16], "tanh", "iterations", 1500, "batch_size", 40,
%!                 "lr", 1e-2, "seed", 1);
%! assert (net2.weights{2}, net.weights{2});
%! fit = valla (net, x, sin (x), "inducing", 5, "closed_form", true, "xtest", [0; 5]);
%! assert (fit.test.mean, fwd ([0; 5]), 1e-12);

%!test
%! ## softmax: C outputs from the labels
%! x = [linspace(-2, 2, 60)', cos(linspace(-2, 2, 60)')];
%! y = 1 + (x(:, 1) > -0.5) + (x(:, 1) > 0.8);
%! [net, loss] = mlp_fit (x, y, 8, "relu", "softmax", "iterations", 800, "batch_size", 30,
%!                        "lr", 1e-2, "seed", 2);
%! assert (size (net.weights{2}), [8 3]);
%! assert (loss < log (3));

%!error <mlp_fit: 'hidden' must be numbers> mlp_fit ([1; 2; 3], [1; 2; 3], "a")
%!error <Invalid call> mlp_fit (1)
%!error <'hidden' is given both by position and by name> mlp_fit ((1:5)', (1:5)', 3, "hidden", 4)
%!error <'hidden' must be a vector of positive> mlp_fit ((1:5)', (1:5)', "hidden", 0)

%!test
%! ## hidden, activation and likelihood by name (as in R) give the positional network
%! x = linspace (-1, 1, 30)';
%! a = mlp_fit (x, sin (x), [4 3], "sigmoid", "iterations", 20, "seed", 4);
%! b = mlp_fit (x, sin (x), "hidden", [4 3], "activation", "sigmoid", "iterations", 20,
%!              "seed", 4);
%! assert (b, a);
%! c = mlp_fit (x, sin (x), "iterations", 1, "seed", 4);   # default hidden [50 50]
%! assert (size (c.weights{2}), [50 50]);
%!error <'hidden' must be a vector of positive> mlp_fit ((1:5)', (1:5)', 0)
%!error <'activation' is unknown> mlp_fit ((1:5)', (1:5)', 3, "swish")
%!error <'y' must have 5 real values> mlp_fit ((1:5)', (1:4)', 3)
%!error <'y' must be class labels> mlp_fit ((1:5)', [0 1 1 2 2]', 3, "tanh", "softmax")
%!error <'lr' must be positive> mlp_fit ((1:5)', (1:5)', 3, "lr", 0)

%!test
%! ## a learning rate that diverges: a warning and the stop reason, finite weights
%! x = linspace (-2, 2, 100)';
%! warning ("off", "scalegp:diverged", "local");
%! [net, loss, info] = mlp_fit (x, sin (2 * x), 16, "iterations", 200, "batch_size", 20,
%!                              "lr", 1e300, "seed", 3);
%! assert (info.stop_reason, "diverged");
%! assert (info.diverged_at >= 1);
%! assert (all (isfinite (net.weights{1}(:))) && all (isfinite (net.weights{2}(:))) && isfinite (loss));
%! [net, loss, info] = mlp_fit (x, sin (2 * x), 16, "iterations", 200, "batch_size", 20,
%!                              "lr", 1e5, "seed", 3);
%! assert (info.stop_reason, "loss_rose");
%! assert (loss > info.initial_loss);
%! [net, loss, info] = mlp_fit (x, sin (2 * x), 16, "iterations", 200, "lr", 1e-2, "seed", 3);
%! assert (info.stop_reason, "iterations");
%! assert (info.diverged_at, 0);

%!warning <mlp_fit: training diverged .* lower it \(iteration [0-9]+\)>
%! mlp_fit (linspace (-2, 2, 100)', sin (2 * linspace (-2, 2, 100)'), 16, "iterations", 200,
%!          "batch_size", 20, "lr", 1e300, "seed", 3);
%!warning <mlp_fit: the training loss rose>
%! mlp_fit (linspace (-2, 2, 100)', sin (2 * linspace (-2, 2, 100)'), 16, "iterations", 200,
%!          "batch_size", 20, "lr", 1e5, "seed", 3);

## hidden = 1e9 on one input: 3e9 weights, 3.3 TB with batch_size 100 (refused on any machine)
%!error <'hidden' a network of 3e\+09 parameters .* use fewer hidden units> mlp_fit ((1:200)', (1:200)', 1e9, "iterations", 1)
%!error <'hidden' a layer of 3000000000 units is wider> mlp_fit ((1:200)', (1:200)', 3e9, "iterations", 1)
%!error <'hidden' must be a vector of positive> mlp_fit ((1:5)', (1:5)', 2^60)
