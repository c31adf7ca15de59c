## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{fit} =} gp_laplace (@var{x}, @var{y})
## @deftypefnx {} {@var{fit} =} gp_laplace (@var{x}, @var{y}, @var{name}, @var{value}, @dots{})
## Computation-aware Laplace approximation for non-conjugate Gaussian
## processes (IterNCGP).
##
## Fits a GP with a Bernoulli (logit), Poisson (log), softmax or Gaussian
## likelihood by Newton's method, where every Newton step is a GP regression on
## pseudo targets solved approximately by a probabilistic linear solver
## (IterGP).  Kernel products are recycled across Newton steps and the
## solver's low-rank root can be compressed to a fixed rank, so cost and
## memory are set by @qcode{"max_iter"} and @qcode{"rank"}.  The variances
## include the @emph{computational} uncertainty of stopping the solver early
## and shrink to the exact Laplace variances as the budget grows.
##
## @var{x} is an n-by-d real matrix whose rows are points (a vector is n
## points in one dimension).  @var{y} has n labels: bernoulli 0/1 or logical;
## softmax 1..C (C = @code{max (y)}); both also accept a cell array of strings
## (classes in sorted order, kept in @code{fit.levels}); poisson non-negative
## integer counts; gaussian real responses; binomial successes in
## 0..@qcode{"trials"}.  The option @qcode{"likelihood"} lists every
## likelihood with its labels.
##
## Options, as name/value pairs with the same names as in R (every option's
## name, default, range and check are defined once in the compiled core):
##
## @table @asis
## @item @qcode{"xtest"}, @qcode{"xtest_offset"}
## Test inputs (d columns) and their log exposure (likelihoods with a log
## link): predictions go to
## @code{fit.test}.
## @c options: generated from the core's table by tools/option_docs.R
## @item @qcode{"likelihood"}
## "gaussian": identity link, variance noise; "bernoulli": logit link, y 0 or 1; "poisson": log link, counts, log exposure offset; "softmax": y 1..n_class, one latent function per class; "binomial": logit link, y successes in 0..trials; "negbin": log link, counts with variance mu + mu^2/dispersion, log exposure offset; labels are checked against it (default @qcode{"bernoulli"}).
## @item @qcode{"kernel"}
## "rbf": s exp(-r^2/2); "matern12": s exp(-r); "matern32": s (1 + sqrt(3) r) exp(-sqrt(3) r); "matern52": s (1 + sqrt(5) r + 5 r^2/3) exp(-sqrt(5) r); "rq": s (1 + r^2/(2 alpha))^(-alpha); r = |x - x'| / lengthscale (default @qcode{"rbf"}).
## @item @qcode{"lengthscale"}
## one lengthscale, or one per column of x (ARD); not given: learned (1 when learn leaves it out) (default @code{[]}).
## @item @qcode{"outputscale"}
## kernel variance; not given: learned (1 when learn leaves it out) (default @code{[]}).
## @item @qcode{"alpha"}
## shape parameter of the kernels whose formula has alpha (the others ignore it); not given: learned (1 when learn leaves it out) (default @code{[]}).
## @item @qcode{"mean"}
## constant prior mean: 1 value, or one per class (softmax); not given: learned (0 when learn leaves it out) (default @code{[]}).
## @item @qcode{"noise"}
## gaussian: noise variance, 1 or n values; not given: learned (1 when learn leaves it out) (default @code{[]}).
## @item @qcode{"learn"}
## maximize the evidence over these of "lengthscale", "outputscale", "mean", "noise", "dispersion" (negbin), "alpha" (kernels with alpha) ("auto": those not given; character(0) / @{@}: none) (default @qcode{"auto"}).
## @item @qcode{"optim_max_iter"}
## evidence evaluations of the optimizer at most (default @code{100}).
## @item @qcode{"restarts"}
## extra optimizer starts from seeded random values (default @code{0}).
## @item @qcode{"evidence"}
## "exact" (dense, O(n^3)), "stochastic" (matrix-free estimate with a standard error, learned from the exact optimum on a seeded subset of 2000 points when n is at least twice that; not softmax) or "auto" (exact when its (5 + 3C) n^2 doubles fit in a quarter of the memory) (default @qcode{"auto"}).
## @item @qcode{"probes"}
## stochastic evidence: probes, preconditioned, their random parts fixed during learning (the seed's) (default @code{32}).
## @item @qcode{"offset"}
## log exposure per point, for the likelihoods with a log link (none given: 0) (default @code{[]}).
## @item @qcode{"trials"}
## binomial: trials per point (y successes in 0..trials), 1 or n whole numbers >= 1 (none given: 1) (default @code{[]}).
## @item @qcode{"dispersion"}
## negbin: r of the variance mu + mu^2/r (Poisson as r -> Inf); not given: learned (1 when learn leaves it out) (default @code{[]}).
## @item @qcode{"policy"}
## solver actions: "cg" (residuals), "cholesky" (unit vectors: subset of data) or "auto": the exact Laplace (cholesky with max_iter = n C) where its dense factor (8 (n C)^2 doubles) fits in a quarter of the memory and n C <= 3000 or the learning used the exact evidence (C = 1), else cg; cg when max_iter, rank, max_total_iter or precond_rank is given. The fit's policy and policy_reason say which ran and why (default @qcode{"auto"}).
## @item @qcode{"residual"}
## K v of the solver: "recursive" (updated from each action's product: one kernel product per iteration, recomputed every 32) or "explicit" (recomputed: two) (default @qcode{"recursive"}).
## @item @qcode{"max_newton"}
## Newton steps at most (default @code{20}).
## @item @qcode{"max_iter"}
## solver iterations per Newton step (the budget; C actions each with class_actions); NULL: 5 (n C on policy auto's exact path) (default @code{[]}).
## @item @qcode{"precond_rank"}
## policy cg: rank of a pivoted-Cholesky preconditioner of K + W^-1 that picks the actions (0: none; not softmax) (default @code{0}).
## @item @qcode{"class_actions"}
## softmax with C > 2, policy cg: each action's C class blocks (centred per point) are C actions from its one kernel product (where their buffers fit in a quarter of the memory) (default @code{true}).
## @item @qcode{"rank"}
## compression rank of the recycled actions (Inf: none) (default @code{Inf}).
## @item @qcode{"tol"}
## converged when the bound on max |f - mode| is at most tol, in units of the latent scale: sqrt(outputscale) for gaussian (y's scale), 1 for the others (the link's) (default @code{1e-06}).
## @item @qcode{"n_class"}
## softmax: number of classes (0: the largest label) (default @code{0}).
## @item @qcode{"recycle"}
## reuse the solver's actions across Newton steps (default @code{true}).
## @item @qcode{"damping"}
## globalized Newton steps that never lower the Laplace objective (default @code{true}).
## @item @qcode{"max_total_iter"}
## cap on the total number of solver actions (one per iteration; C with class_actions) (default @code{Inf}).
## @item @qcode{"random_order"}
## cholesky policy: visit the points in a seeded random order (default @code{false}).
## @item @qcode{"time_limit"}
## seconds after which the call stops learning and Newton steps (the fit says so) (default @code{Inf}).
## @item @qcode{"inner_atol"}
## solver residual tolerance in units of the latent scale (as tol); the larger of it and inner_rtol's applies (default @code{1e-05}).
## @item @qcode{"inner_rtol"}
## solver residual tolerance, relative to the norm of the right-hand side (default @code{1e-05}).
## @item @qcode{"noise_max"}
## cap on the pseudo-noise W^-1 (1/pi for softmax) of confident points (not gaussian's noise) (default @code{1e+12}).
## @item @qcode{"history_trace"}
## the history's trace column (a metric): "auto": where it is cheap (NA in the exact mode's dense first solve, where it costs as much as the solve), "always": everywhere (default @qcode{"auto"}).
## @item @qcode{"scale"}
## standardize each input column for the kernel (centre: mean, scale: sd; a constant column keeps scale 1) where the lengthscale is learned or defaulted; the fit reports lengthscales on the inputs' own scale (one learned isotropic value becomes one per column, times its sd). A given lengthscale is on the inputs' own scale: centring only. The fit's scaling says which, with centre and scale, which predict applies to new inputs (default @code{true}).
## @item @qcode{"kernel_cache_bytes"}
## keep the kernel matrix when its 8 n^2 bytes fit (else matrix-free) (default @code{2147483648}).
## @item @qcode{"backend"}, @qcode{"seed"}, @qcode{"verbose"}, @qcode{"threads"}
## compute backend: "auto", "cpu" or "cuda" (default @qcode{"auto"}); whole number for reproducible random choices; [] draws one with rand (default @code{[]}); print progress (default @code{false}); OpenMP threads (0: the OpenMP default) (default @code{0}).
## @c end of the generated options
## @end table
##
## Convergence: Newton stops, converged, when a bound on the distance of the
## latent mode found to the true one (largest absolute difference) is at most
## @qcode{"tol"}, at the linearization point of the returned posterior and at
## the returned @code{f}; @code{fit.steps.mode_error} shows the bound per
## Newton step.  A small solver budget may not reach the mode: the fit then
## says @code{converged = false}, as in R's @code{?gp_laplace}.
## @qcode{"damping"} (default true) makes every Newton step ascend the Laplace
## objective: after a truncated solve the best step in the span of the step's
## solver actions and the old and new weights, else backtracking; false gives
## the paper's undamped steps, safe only with (nearly) exact solves, which can
## diverge at small budgets.
##
## The result is a struct (plain data: it survives @code{save}/@code{load})
## with @code{class = "gp_laplace"} and the fields of the R result:
## @code{f}, @code{var}, @code{weights} (n-by-C), @code{root} (nC-by-r),
## @code{newton_steps}, @code{iterations}, @code{converged},
## @code{stop_reason}, @code{history} (a struct of columns, one row per solver
## iteration: newton, iteration, total, residual, rel_residual, trace (NA
## where @qcode{"history_trace"} left it out), rank, buffer, seconds),
## @code{steps}, @code{kernel}, @code{likelihood},
## @code{n_class}, @code{levels}, the training data, @code{scaling} (option
## @qcode{"scale"}: @code{scaled}, @code{centre}, @code{scale}, the
## @code{lengthscale} on the inputs the kernel saw and @code{note}; @code{kernel}
## and @code{hyper} give lengthscales on the inputs' own scale, one per column
## where the columns were scaled), and, with
## @qcode{"xtest"}, @code{test} with fields @code{mean}, @code{var} and
## @code{prob} (classification), @code{rate_mean}, @code{rate_var} (poisson)
## or @code{y_var} (gaussian).  A fit that did not converge gives a warning
## (id @qcode{"scalegp:not-converged"}).  Predict at new inputs with
## @code{scalegp_predict (fit, xnew)}.
##
## Example:
##
## @example
## @group
## x = linspace (-3, 3, 60)';
## y = double (sin (x) + 0.3 * randn (60, 1) > 0);
## fit = gp_laplace (x, y, "lengthscale", 1, "outputscale", 4,
##                   "max_iter", 10, "xtest", [-1.5; 1.5], "seed", 1);
## fit.test.prob
## pred = scalegp_predict (fit, [-2; 0; 2]);
## pred.prob
## @end group
## @end example
##
## @seealso{scalegp_predict, gp_kernel}
## @end deftypefn

function fit = gp_laplace (x, y, varargin)

  if (nargin < 2)
    print_usage ();
  endif
  fname = "gp_laplace";
  [front, opts] = split_options (fname, {"xtest", "xtest_offset", "interrupt_after"},
                                 varargin{:});
  x = check_input_matrix (x, fname, "x");
  likelihood = option_value (fname, opts, "likelihood");
  [ycode, levels, count_is_n_class] = label_codes (y, likelihood, fname);
  if (numel (levels) >= 2 && count_is_n_class)
    opts = set_option (opts, "n_class", numel(levels));
  endif
  if (isempty (option_value (fname, opts, "seed")))
    opts = set_option (opts, "seed", floor(rand () * 2147483647));
  endif
  xtest = front.xtest;
  has_test = ! isempty (xtest);
  if (has_test)
    xtest = check_input_matrix (xtest, fname, "xtest", columns (x));
    if (columns (xtest) != columns (x))
      arg_error (fname, "xtest", "has %d columns but 'x' has %d", columns (xtest), columns (x));
    endif
  elseif (! isempty (front.xtest_offset))
    arg_error (fname, "xtest_offset", "needs 'xtest'");
  endif

  res = __sgp_call__ ("laplace_fit", x, ycode,
                      if_else (isempty (front.interrupt_after), -1, front.interrupt_after),
                      opts{:});

  used = res.used;
  sel = res.selection;
  fit = rmfield (res, {"used", "selection"});
  fit.kernel = used.kernel;
  fit.likelihood = used.likelihood;
  fit.n_class = used.n_class;
  fit.levels = levels;
  fit.policy = used.policy;
  fit.policy_reason = used.policy_reason;
  fit.x = x;
  fit.y = ycode;
  fit.offset = used.offset;
  fit.noise = used.noise;
  fit.scaling = used.scaling;
  ## the likelihood's own fields (binomial's trials, negbin's dispersion)
  own = setdiff (fieldnames (used)', {"kernel", "likelihood", "policy", "policy_reason", ...
                                      "n_class", "noise", "scaling", ...
                                      "offset", "seed", "warning", "warning_id"});
  for name = own
    fit.(name{1}) = used.(name{1});
  endfor
  fit.seed = used.seed;
  for name = {"hyper", "loglik", "loglik_se", "loglik_grad", "learned", "optim"}
    fit.(name{1}) = sel.(name{1});
  endfor
  fit.class = "gp_laplace";
  if (has_test)
    fit.test = predict_gp_laplace (fit, xtest, {fname, "xtest", "xtest_offset"},
                                   "offset", front.xtest_offset,
                                   "threads", option_value (fname, opts, "threads"));
  endif
  if (! isempty (used.warning))
    msgs = strsplit (used.warning, "\n");
    ids = strsplit (used.warning_id, "\n");
    for i = 1:numel (msgs)
      warning (["scalegp:" ids{i}], "%s", msgs{i});
    endfor
  endif
  if (option_value (fname, opts, "verbose"))
    printf ("gp_laplace: %s likelihood, %s kernel, n = %d; %d Newton steps, %d solver iterations; %s (%s)\n",
            fit.likelihood, fit.kernel.kernel, rows (x), fit.newton_steps, fit.iterations,
            if_else (fit.converged, "converged", "NOT converged"), fit.stop_reason);
  endif

endfunction

## `"a"`, `"a" or "b"`, `"a", "b" or "c"`
function s = quoted_or (names)
  s = strcat ("\"", names(:)', "\"");
  if (numel (s) > 1)
    s = [strjoin(s(1:end-1), ", ") " or " s{end}];
  else
    s = s{1};
  endif
endfunction

## Labels as numbers for the core, which checks them, as the core's likelihood
## codes classes (__sgp_call__ ("info").likelihoods: classes, n_classes (0: the
## levels' count, given as n_class), first_class): a cell array of strings becomes
## first_class.. (0/1 for two classes, 1..C for any number) and keeps its level
## names; a logical (two classes) its two codes.
function [ycode, levels, count_is_n_class] = label_codes (y, likelihood, fname)
  levels = {};
  [classes, n_classes, first, t] = lik_label_coding (likelihood);
  two = classes && n_classes == 2;
  count_is_n_class = classes && n_classes == 0;
  if (iscellstr (y))
    if (! classes)
      arg_error (fname, "y", "is a cell array of strings; likelihood = \"%s\" needs numbers",
                 likelihood);
    endif
    [levels, ~, code] = unique (y(:));
    levels = levels.';
    if (n_classes > 0 && numel (levels) != n_classes)
      more = "";
      if (numel (levels) > n_classes)
        more = ["; for more classes use likelihood = " ...
                quoted_or(t.name(t.classes(:) & t.n_classes(:) == 0))];
      endif
      arg_error (fname, "y", "must have exactly %d classes for likelihood = \"%s\" (got %d%s)",
                 n_classes, likelihood, numel (levels), more);
    endif
    y = code - 1 + first;
  elseif (islogical (y))
    if (! two)
      arg_error (fname, "y", "is logical; only likelihood = %s takes true/false",
                 quoted_or (t.name(t.classes(:) & t.n_classes(:) == 2)));
    endif
    y = double (y) + first;
  elseif (! isnumeric (y) || iscomplex (y))
    arg_error (fname, "y", "must be a real numeric or logical vector or a cell array of strings");
  endif
  ycode = double (y(:));
endfunction

%!demo
%! ## Binary classification in 1-D: the lengthscale, outputscale and prior
%! ## mean are learned from the Laplace evidence (none is given).
%! rand ("state", 1);
%! x = 6 * rand (200, 1) - 3;
%! y = double (rand (200, 1) < 1 ./ (1 + exp (-2 * sin (x))));
%! fit = gp_laplace (x, y, "max_iter", 200, "seed", 1);
%! scalegp_summary (fit);
%! p = scalegp_predict (fit, [-1.5; 0; 1.5]);
%! printf ("P(y = 1) at -1.5, 0, 1.5: %s (truth %s)\n", mat2str (p.prob', 3),
%!         mat2str (1 ./ (1 + exp (-2 * sin ([-1.5 0 1.5]))), 3));
%! scalegp_plot (fit, "title", "latent mean, 2 sd band, labels as ticks");

%!demo
%! ## Over-dispersed counts: a negative binomial likelihood (variance
%! ## mu + mu^2 / dispersion) against a Poisson one, by their log evidence.
%! ## The counts are Poisson at gamma rates (shape 2), negative binomial draws.
%! rand ("state", 2);  randg ("state", 2);  randp ("state", 2);
%! x = sort (10 * rand (150, 1));
%! mu = exp (1.5 + sin (x));
%! y = randp (mu .* randg (2, 150, 1) / 2);
%! pois = gp_laplace (x, y, "likelihood", "poisson", "max_iter", 150, "seed", 1);
%! nb = gp_laplace (x, y, "likelihood", "negbin", "dispersion", 2,
%!                  "max_iter", 150, "seed", 1);
%! printf ("log evidence: poisson %.1f, negbin %.1f\n", pois.loglik, nb.loglik);
%! scalegp_plot (nb, "title", "negative binomial: the rate with a 2 sd band");

%!shared x, y
%! x = linspace (-2, 2, 30)';
%! y = double (sin (2 * x) > 0);

%!test
%! fit = gp_laplace (x, y, "max_iter", 30, "policy", "cholesky", "xtest", [-1; 1], "seed", 1);
%! assert (fit.class, "gp_laplace");
%! assert (fit.converged);
%! assert (size (fit.f), [30, 1]);
%! assert (size (fit.root), [30, fit.iterations]);
%! assert (mean (sign (fit.f) == 2 * y - 1) >= 0.8);
%! assert (fieldnames (fit.test)', {"mean", "var", "prob"});
%! assert (fit.test.prob(1) < 0.5 && fit.test.prob(2) > 0.5);
%! assert (numel (fit.history.residual), fit.iterations);
%! ## all n unit actions are spent in the first Newton step and recycled after
%! assert (fit.history.newton, ones (30, 1));
%! assert (fit.history.iteration, (1:30)');
%! assert (fit.iterations, 30);

%!test
%! ## history_trace: NA in the exact mode's direct first solve ("auto", the
%! ## default), recorded with "always"; nothing else changes
%! a = gp_laplace (x, y, "max_iter", 30, "policy", "cholesky", "seed", 1,
%!                 "history_trace", "always");
%! b = gp_laplace (x, y, "max_iter", 30, "policy", "cholesky", "seed", 1);
%! assert (all (isfinite (a.history.trace)));
%! assert (all (isna (b.history.trace)));
%! assert (b.f, a.f);
%! assert (b.weights, a.weights);
%! assert (b.var, a.var);
%! assert (b.root, a.root);
%! assert (b.history.residual, a.history.residual);

%!function c = ifelse_cell (y)
%!  c = repmat ({"no"}, numel (y), 1);
%!  c(y == 1) = {"yes"};
%!endfunction

%!test
%! ## logical and cellstr labels give the same fit; the levels are kept
%! a = gp_laplace (x, y, "seed", 1);
%! b = gp_laplace (x, y == 1, "seed", 1);
%! c = gp_laplace (x, ifelse_cell (y), "seed", 1);
%! assert (b.f, a.f);
%! assert (c.f, a.f);
%! assert (c.levels, {"no", "yes"});
%! assert (scalegp_predict (c, [-1; 1], "type", "class"), {"no"; "yes"});
%! assert (scalegp_predict (a, [-1; 1], "type", "class"), [0; 1]);

%!test
%! ## softmax: C from the labels, probabilities sum to one
%! ys = 1 + (x > -0.5) + (x > 0.7);
%! fit = gp_laplace (x, ys, "likelihood", "softmax", "xtest", [-1.5; 0; 1.5], "seed", 1);
%! assert (fit.n_class, 3);
%! assert (size (fit.f), [30, 3]);
%! assert (sum (fit.test.prob, 2), ones (3, 1), 1e-12);
%! [~, k] = max (fit.test.prob, [], 2);
%! assert (k, [1; 2; 3]);

%!test
%! ## save/load round trip, then predict
%! fit = gp_laplace (x, y, "xtest", [-1; 1], "seed", 1);
%! f = [tempname() ".mat"];
%! save ("-binary", f, "fit");
%! s = load (f);
%! delete (f);
%! p = scalegp_predict (s.fit, [-1; 1]);
%! assert (p, fit.test, 1e-14);

%!test
%! ## non-convergence is a warning and converged = false
%! warning ("off", "scalegp:not-converged", "local");
%! fit = gp_laplace (x, y, "max_newton", 1);
%! assert (! fit.converged);
%! assert (fit.stop_reason, "max_newton");
%!warning <did not converge \(stop reason "max_newton"> gp_laplace (x, y, "max_newton", 1);

%!test
%! out = evalc ('gp_laplace (x, y, "verbose", true, "seed", 1);');
%! assert (! isempty (strfind (out, "Newton step 1")));
%! out = evalc ('gp_laplace (x, y, "seed", 1, "learn", {});');
%! assert (isempty (out));
%! ## learning prints nothing either (5 flipped labels: the evidence has a maximum;
%! ## separable labels drive the outputscale up, with a warning)
%! yn = y;
%! yn([3 10 17 24 28]) = 1 - yn([3 10 17 24 28]);
%! out = evalc ('gp_laplace (x, yn, "seed", 1);');
%! assert (isempty (out));

%!error <Invalid call> gp_laplace (1)
%!error <gp_laplace: 'y' bernoulli labels must be 0 or 1> gp_laplace (x, y + 2)
%!error <gp_laplace: 'y' is 29 x 1; need 30 x 1> gp_laplace (x, y(1:29))
%!error <'y' contains NaN> gp_laplace (x, [NaN; y(2:end)])
%!error <'y' contains NaN> gp_laplace (x, [Inf; y(2:end)], "likelihood", "gaussian")
%!error <'y' poisson counts must be non-negative integers> gp_laplace (x, [0.5; y(2:end)], "likelihood", "poisson")
%!error <'y' poisson counts must be non-negative integers> gp_laplace (x, [-1; y(2:end)], "likelihood", "poisson")
%!error <'y' softmax labels must be integers in 1..C> gp_laplace (x, y, "likelihood", "softmax")
%!error <'y' has C = 1 class> gp_laplace (x, ones (30, 1), "likelihood", "softmax")
%!error <'y' is logical> gp_laplace (x, y == 1, "likelihood", "softmax")
%!error <'y' must have exactly 2 classes> gp_laplace (x, repmat ({"a"; "b"; "c"}, 10, 1))
%!error <'x' contains NaN> gp_laplace ([NaN; x(2:end)], y)
%!error <'likelihood' must be one of .* \(got "probit"\)> gp_laplace (x, y, "likelihood", "probit")
%!error <'policy' must be one of "cg", "cholesky", "auto" \(got "lanczos"\)> gp_laplace (x, y, "policy", "lanczos")
%!error <'kernel' must be one of> gp_laplace (x, y, "kernel", "gauss")
%!error <'lengthscale' must be positive> gp_laplace (x, y, "lengthscale", 0)
%!error <'outputscale' must be positive> gp_laplace (x, y, "outputscale", -1)
%!error <'noise' must be positive> gp_laplace (x, y, "likelihood", "gaussian", "noise", 0)
%!error <'noise' needs 1 or 30 values> gp_laplace (x, y, "likelihood", "gaussian", "noise", [1 2 3])
%!error <'offset' is 3 x 1; need 30 x 1> gp_laplace (x, y, "likelihood", "poisson", "offset", zeros (3, 1))
%!error <'offset' contains NaN> gp_laplace (x, y, "likelihood", "poisson", "offset", [NaN; zeros(29, 1)])
%!error <'offset' is only used with likelihood = "poisson"> gp_laplace (x, y, "offset", zeros (30, 1))
%!error <'max_iter' must be a whole number> gp_laplace (x, y, "max_iter", 0)
%!error <'max_newton' must be a whole number> gp_laplace (x, y, "max_newton", 0)
%!error <'rank' must be a whole number> gp_laplace (x, y, "rank", -1)
%!error <'tol' must be a number .* \(got -1\)> gp_laplace (x, y, "tol", -1)
%!error <'xtest' has 2 columns but 'x' has 1> gp_laplace (x, y, "xtest", zeros (2, 2))
%!error <'xtest' contains NaN> gp_laplace (x, y, "xtest", NaN)
%!error <'xtest_offset' must be 2 finite numbers> gp_laplace (x, y, "likelihood", "poisson", "xtest", [0; 1], "xtest_offset", 1)
%!error <'backend' must be one of> gp_laplace (x, y, "backend", "gpu")
%!error <'seed' must be a whole number> gp_laplace (x, y, "seed", -1)
%!error <'threads' must be a whole number> gp_laplace (x, y, "threads", -1)
%!error <'recycle' must be true or false> gp_laplace (x, y, "recycle", 2)
%!error <'inner_atol' must be a number .* \(got -1\)> gp_laplace (x, y, "inner_atol", -1)
%!error <unknown option 'lenghtscale'> gp_laplace (x, y, "lenghtscale", 2)
%!error <gp_laplace: interrupted>
%! setenv ("SCALEGP_TEST_HOOKS", "1");  # interrupt_after is a test hook
%! unwind_protect
%!   gp_laplace (x, y, "interrupt_after", 0);
%! unwind_protect_cleanup
%!   unsetenv ("SCALEGP_TEST_HOOKS");
%! end_unwind_protect
%!error <gp_laplace: 'interrupt_after' is a test hook>
%! unsetenv ("SCALEGP_TEST_HOOKS");
%! gp_laplace (x, y, "interrupt_after", 0);
