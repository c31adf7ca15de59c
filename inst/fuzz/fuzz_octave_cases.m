## inst/fuzz/fuzz_octave_cases.m -- the cases of fuzz_octave.m (sourced by it).
## A case: fn (the table row), label, arg (names an error must mention), run (a
## function handle) and ref (for tampered fits: the untampered call, else []).

1;

function fx = fuzz_fixtures ()
  n = 30;
  i = (1:n).';
  x2 = [mod(i * 0.618034, 1), mod(i * 0.414214 + 0.1, 1)];
  fx = struct ("n", n, "x2", x2, "yg", sin (4 * x2(:, 1)) + 0.05 * cos (17 * i),
               "yb", double (x2(:, 1) > 0.5),
               "ys", 1 + (x2(:, 1) > 0.3) + (x2(:, 2) > 0.6), "yp", floor (3 * x2(:, 2)));
  fx.lap = struct ("bernoulli", gp_laplace (x2, fx.yb, "seed", 1),
                   "softmax", gp_laplace (x2, fx.ys, "likelihood", "softmax", "seed", 1),
                   "poisson", gp_laplace (x2, fx.yp, "likelihood", "poisson",
                                          "offset", 0.1 * ones (n, 1), "seed", 1),
                   "gaussian", gp_laplace (x2, fx.yg, "likelihood", "gaussian",
                                           "noise", 0.1, "seed", 1));
  fx.grid = ski_grid (x2, "grid_size", 12);
  fx.stats = ski_stats (x2, fx.yg, fx.grid);
  fx.ski = ski_gsgp (x2, fx.yg, "grid_size", 12, "lengthscale", 0.3, "noise", 0.1,
                     "variance", "lanczos", "loglik", true, "probes", 4, "seed", 1);
  fx.mlp = mlp_fit (x2, fx.yg, 4, "iterations", 50, "seed", 1);
  fx.mlp_c = mlp_fit (x2, fx.ys, 4, "tanh", "softmax", "iterations", 50, "seed", 1);
  fx.valla = struct ("gaussian", valla (fx.mlp, x2, fx.yg, "inducing", 5, "iterations", 30,
                                        "seed", 1),
                     "softmax", valla (fx.mlp_c, x2, fx.ys, "inducing", 5, "iterations", 30,
                                       "seed", 1));
endfunction

function c = fuzz_all_cases (fx, quick)
  c = [kernel_cases(fx), laplace_cases(fx), predict_cases(fx), display_cases(fx), ski_cases(fx), ...
       network_cases(fx), {mk("scalegp_info", "no arguments", {"none"}, @() scalegp_info ())}, ...
       tamper_cases(fx, quick), fit_reliability_cases(fx), source_cases(fx)];
endfunction

function k = mk (fn, label, arg, run, ref)
  if (nargin < 5)
    ref = [];
  endif
  k = struct ("fn", fn, "label", label, "arg", {arg}, "run", run, "ref", ref);
endfunction

## ------------------------------------------------------------ value sets

function v = bad_numbers ()
  v = {"[]", []; "NaN", NaN; "Inf", Inf; "-Inf", -Inf; "-1", -1; "0", 0; "0.5", 0.5;
       "1e-300", 1e-300; "1e300", 1e300; "2^31", 2^31; "2^53", 2^53; "2^63", 2^63;
       "-2^31", -2^31; "'a'", "a"; "true", true; "[1 2]", [1 2]; "zeros(1,0)", zeros(1, 0);
       "{1}", {1}; "1i", 1i; "int8(5)", int8(5); "struct()", struct()};
endfunction

## For iteration counts: whole numbers as large as 2^31 are valid there and run
## for hours, so the set keeps only the invalid huge values.
function v = bad_iterations ()
  v = bad_numbers ();
  v = v(! ismember (v(:, 1), {"2^31", "2^53"}), :);
endfunction

function v = bad_strings ()
  v = {"[]", []; "''", ""; "'nonsense'", "nonsense"; "{'a','b'}", {"a", "b"}; "1", 1;
       "true", true; "char matrix", ["ab"; "cd"]};
endfunction

function v = bad_flags ()
  v = {"[]", []; "NaN", NaN; "'yes'", "yes"; "[true false]", [true false]; "2", 2};
endfunction

function v = bad_threads ()
  v = {"-1", -1; "0.5", 0.5; "257", 257; "1024", 1024; "5000", 5000; "1e5", 1e5;
       "1e6", 1e6; "2^31", 2^31; "Inf", Inf; "NaN", NaN; "'a'", "a"; "[1 2]", [1 2];
       "256 (valid)", 256; "1 (valid)", 1};
endfunction

function v = bad_matrices (n, d)
  m = 0.5 * ones (n, d);
  poke = @(x) subsasgn (m, substruct ("()", {2}), x);
  v = {"[]", []; "'a'", "a"; "zeros(0,d)", zeros(0, d); "zeros(n,0)", zeros(n, 0);
       "all NaN", NaN(n, d); "one NaN", poke(NaN); "one Inf", poke(Inf); "one -Inf", poke(-Inf);
       "extra column", 0.5 * ones(n, d + 1); "missing row", 0.5 * ones(n - 1, d);
       "3-d array", 0.5 * ones(n, d, 2); "complex", m + 1i; "cell", num2cell(m);
       "char matrix", repmat("a", n, d); "struct", struct("a", 1); "1e300 values", 1e300 * m;
       "one row", m(1, :); "single (valid)", single(m); "int32 (valid)", int32(m)};
endfunction

function v = bad_vectors (n)
  y = ones (n, 1);
  poke = @(x) subsasgn (y, substruct ("()", {2}), x);
  v = {"[]", []; "'a'", "a"; "all NaN", NaN(n, 1); "one NaN", poke(NaN); "one Inf", poke(Inf);
       "length n - 1", y(2:end); "length n + 1", [y; 1]; "n x 2", [y y]; "cell", num2cell(y);
       "complex", y + 1i; "-1 values", -y; "1e300 values", 1e300 * y; "row (valid)", y.'};
endfunction

## ------------------------------------------------------------ builders

## Cases of option `name` (name/value) of f(pos{:}, opts{:}).
function c = opt_cases (fn, f, pos, opts, name, vals)
  c = cell (1, rows (vals));
  for i = 1:rows (vals)
    o = [opts, {name, vals{i, 2}}];
    c{i} = mk (fn, [name " = " vals{i, 1}], {name}, @() f (pos{:}, o{:}));
  endfor
endfunction

## Cases of positional argument k (named name).
function c = pos_cases (fn, f, pos, opts, k, name, vals)
  c = cell (1, rows (vals));
  for i = 1:rows (vals)
    p = pos;
    p{k} = vals{i, 2};
    c{i} = mk (fn, [name " = " vals{i, 1}], {name}, @() f (p{:}, opts{:}));
  endfor
endfunction

function c = many_opts (fn, f, pos, opts, spec)
  c = {};
  for i = 1:2:numel (spec)
    c = [c, opt_cases(fn, f, pos, opts, spec{i}, spec{i + 1})];
  endfor
endfunction

## ------------------------------------------------------------ functions

function c = kernel_cases (fx)
  pos = {fx.x2, fx.x2(1:5, :)};
  o = {"lengthscale", 0.5};
  c = [pos_cases("gp_kernel", @gp_kernel, pos, o, 1, "x", bad_matrices (30, 2)), ...
       x2_cases(pos_cases("gp_kernel", @gp_kernel, pos, o, 2, "x2", bad_matrices (5, 2))), ...
       many_opts("gp_kernel", @gp_kernel, pos, {}, {"kernel", bad_strings(), ...
                 "lengthscale", bad_numbers(), "outputscale", bad_numbers(), ...
                 "alpha", bad_numbers(), ...
                 "threads", bad_threads()}), ...
       {mk("gp_kernel", "x, x2 of 1e6 rows (an 8 TB matrix)", {"x", "x2"}, ...
           @() gp_kernel (zeros (1e6, 1), zeros (1e6, 1))), ...
        mk("gp_kernel", "x2 = one point as a row", {"x2"}, @() gp_kernel (fx.x2, [0.5 0.5]))}];
endfunction

## x2 is optional: a string there is read as an option name, and that is the
## error; inputs far from each other may be reported on either side (x or x2).
function c = x2_cases (c)
  for i = 1:numel (c)
    c{i}.arg = {"x2", "x", "option", "options"};
  endfor
endfunction

function c = laplace_cases (fx)
  pos = {fx.x2, fx.yb};
  counts = [bad_numbers(); {"2^40 (valid)", 2^40}];
  c = [pos_cases("gp_laplace", @gp_laplace, pos, {}, 1, "x", bad_matrices (30, 2)), ...
       pos_cases("gp_laplace", @gp_laplace, pos, {}, 2, "y", ...
                 [bad_vectors(30); {"labels 2", 2 * ones(30, 1); "one class", ones(30, 1)}]), ...
       many_opts("gp_laplace", @gp_laplace, pos, {}, {"likelihood", bad_strings(), ...
                 "kernel", bad_strings(), "lengthscale", bad_numbers(), ...
                 "outputscale", bad_numbers(), "noise", bad_numbers(), ...
                 "offset", bad_vectors(30), "policy", bad_strings(), ...
                 "max_newton", counts, "max_iter", counts, "rank", counts, ...
                 "tol", bad_numbers(), "xtest", bad_matrices(5, 2), ...
                 "backend", bad_strings(), "seed", bad_numbers(), "verbose", bad_flags(), ...
                 "threads", bad_threads(), "recycle", bad_flags(), "damping", bad_flags(), ...
                 "max_total_iter", counts, "random_order", bad_flags(), ...
                 "time_limit", bad_numbers(), "inner_atol", bad_numbers(), ...
                 "inner_rtol", bad_numbers()}), ...
       many_opts("gp_laplace", @gp_laplace, {fx.x2, fx.yg}, {"likelihood", "gaussian"}, ...
                 {"noise", bad_numbers()}), ...
       many_opts("gp_laplace", @gp_laplace, {fx.x2, fx.yp}, {"likelihood", "poisson"}, ...
                 {"offset", bad_vectors(30)}), ...
       pos_cases("gp_laplace", @gp_laplace, {fx.x2, fx.ys}, {"likelihood", "softmax"}, 2, ...
                 "y", [bad_vectors(30); {"one class", ones(30, 1); "labels 0..2", fx.ys - 1}]), ...
       {mk("gp_laplace", "xtest = one point as a row", {"xtest"}, ...
           @() gp_laplace (fx.x2, fx.yb, "xtest", [0.5 0.5]).test), ...
        mk("gp_laplace", "gaussian y equal to its prior mean, then predict", {"y"}, ...
           @() scalegp_predict (gp_laplace (fx.x2, 5 * ones (30, 1), "likelihood", ...
                                            "gaussian", "mean", 5, "noise", 0.1, ...
                                            "seed", 1), fx.x2(1:5, :))), ...
        mk("gp_laplace", "gaussian fit on n = 1 point, then predict", {"x"}, ...
           @() scalegp_predict (gp_laplace (fx.x2(1, 1), 5, "likelihood", "gaussian", ...
                                            "mean", 5, "noise", 0.1, "lengthscale", 0.3, ...
                                            "outputscale", 1, "learn", {}, "seed", 1), ...
                                fx.x2(1:5, 1)))}];
endfunction

function c = predict_cases (fx)
  nd = fx.x2(1:5, :);
  c = {};
  fits = {"gp_laplace", fx.lap.bernoulli; "ski_gsgp", fx.ski; "valla", fx.valla.softmax};
  for i = 1:rows (fits)
    fn = ["scalegp_predict/" fits{i, 1}];
    c = [c, pos_cases(fn, @scalegp_predict, {fits{i, 2}, nd}, {}, 2, "xnew", ...
                      bad_matrices (5, 2)), ...
         opt_cases(fn, @scalegp_predict, {fits{i, 2}, nd}, {}, "threads", bad_threads()), ...
         {mk(fn, "xnew = one point as a row", {"xnew"}, ...
             @() scalegp_predict (fits{i, 2}, [0.5 0.5]))}];
  endfor
  c = [c, opt_cases("scalegp_predict/gp_laplace", @scalegp_predict, {fx.lap.bernoulli, nd}, ...
                    {}, "type", bad_strings()), ...
       opt_cases("scalegp_predict/gp_laplace", @scalegp_predict, {fx.lap.poisson, nd}, {}, ...
                 "offset", bad_vectors(5)), ...
       pos_cases("scalegp_predict", @scalegp_predict, {fx.lap.bernoulli, nd}, {}, 1, "fit", ...
                 {"[]", []; "struct()", struct(); "'a'", "a"; "class 'x'", ...
                  setfield(fx.lap.bernoulli, "class", "x")})];
endfunction

## scalegp_summary and scalegp_plot_data (what scalegp_plot draws): bad fits
## and bad plot options.
function c = display_cases (fx)
  badfits = {"[]", []; "struct()", struct(); "'a'", "a"; "class 'x'", ...
             setfield(fx.lap.bernoulli, "class", "x"); "no x", rmfield(fx.lap.bernoulli, "x")};
  c = [pos_cases("scalegp_summary", @scalegp_summary, {[]}, {}, 1, "fit", badfits), ...
       pos_cases("scalegp_plot_data", @scalegp_plot_data, {[]}, {}, 1, "fit", badfits)];
  x1 = fx.x2(:, 1);  # valla plots 1-D inputs
  v1 = valla (mlp_fit (x1, fx.yg, 4, "iterations", 50, "seed", 1), x1, fx.yg, "inducing", 5,
              "iterations", 30, "seed", 1);
  fits = {"gp_laplace", fx.lap.bernoulli, {"class", "n_grid"};
          "ski_gsgp", fx.ski, {"n", "noise"}; "valla", v1, {"data", "n_grid"}};
  for i = 1:rows (fits)
    fn = ["scalegp_plot_data/" fits{i, 1}];
    c{end + 1} = mk (["scalegp_summary/" fits{i, 1}], "valid fit", {"fit"}, ...
                     @() scalegp_summary (fits{i, 2}));
    for o = fits{i, 3}
      vals = bad_numbers ();
      if (strcmp (o{1}, "noise"))
        vals = bad_flags ();
      endif
      c = [c, opt_cases(fn, @scalegp_plot_data, {fits{i, 2}}, {}, o{1}, vals)];
    endfor
  endfor
endfunction

function c = ski_cases (fx)
  g = fx.grid;
  sizes = [bad_numbers(); {"1e10", 1e10; "3e9", 3e9; "[1e5 1e5]", [1e5 1e5]}];
  grids = {"[]", []; "'a'", "a"; "size 0", setfield(g, "size", [0 12]);
           "bounds NaN", setfield(g, "bounds", g.bounds * NaN)};
  firsts = [bad_numbers(); {"2^31 + 5 (valid)", 2^31 + 5}];
  c = [pos_cases("ski_grid", @ski_grid, {fx.x2}, {"grid_size", 10}, 1, "x", bad_matrices(30, 2)), ...
       many_opts("ski_grid", @ski_grid, {fx.x2}, {}, {"grid_size", sizes, ...
                 "grid_bounds", bad_matrices(2, 2), "interpolation", bad_strings(), ...
                 "lengthscale", bad_numbers(), "grid_pad", bad_numbers()}), ...
       opt_cases("ski_grid", @ski_grid, {[]}, {}, "range", bad_matrices(2, 2)), ...
       opt_cases("ski_grid", @ski_grid, {[]}, {"range", [0 1; 0 1]}, "n", bad_numbers()), ...
       pos_cases("ski_stats", @ski_stats, {fx.x2, fx.yg, g}, {}, 1, "x", bad_matrices(30, 2)), ...
       pos_cases("ski_stats", @ski_stats, {fx.x2, fx.yg, g}, {}, 2, "y", bad_vectors(30)), ...
       grid_cases(pos_cases("ski_stats", @ski_stats, {fx.x2, fx.yg, g}, {}, 3, "grid", grids)), ...
       many_opts("ski_stats", @ski_stats, {fx.x2, fx.yg, g}, {}, {"first_row", firsts, ...
                 "bounds_policy", bad_strings(), "probes", bad_numbers(), ...
                 "seed", bad_numbers(), "threads", bad_threads()}), ...
       pos_cases("ski_stats_merge", @ski_stats_merge, {fx.stats, fx.stats}, {}, 2, "b", ...
                 {"[]", []; "'a'", "a"; "n = -1", setfield(fx.stats, "n", -1); ...
                  "WtW NaN", setfield(fx.stats, "WtW", fx.stats.WtW * NaN)}), ...
       x2_cases(pos_cases("ski_gsgp", @ski_gsgp, {fx.x2, fx.yg}, {"grid_size", 12}, 1, "x", ...
                          bad_matrices(30, 2))), ...
       pos_cases("ski_gsgp", @ski_gsgp, {fx.x2, fx.yg}, {"grid_size", 12}, 2, "y", ...
                 bad_vectors(30)), ...
       many_opts("ski_gsgp", @ski_gsgp, {fx.x2, fx.yg}, {"grid_size", 12}, {"kernel", ...
                 bad_strings(), "lengthscale", bad_numbers(), "outputscale", bad_numbers(), ...
                 "noise", bad_numbers(), "method", bad_strings(), "tol", bad_numbers(), ...
                 "max_iter", bad_numbers(), "variance", bad_strings(), "rank", bad_numbers(), ...
                 "probes", bad_numbers(), "xtest", bad_matrices(5, 2), ...
                 "threads", bad_threads(), "precond_rank", bad_numbers()}), ...
       {mk("ski_gsgp", "x and y with stats (method gsgp would ignore them)", {"x", "y"}, ...
           @() ski_gsgp (fx.x2, fx.yg, "stats", fx.stats, "lengthscale", 0.3, "verbose", false))}, ...
       {mk("ski_gsgp", "x and y with stats, learning (x only for a start)", {"x", "y"}, ...
           @() ski_gsgp (fx.x2, fx.yg, "stats", fx.stats, "verbose", false))}];
endfunction

## A bad grid may be reported by the name of its field.
function c = grid_cases (c)
  for i = 1:numel (c)
    c{i}.arg = {"grid", "grid_size", "grid_bounds", "interpolation"};
  endfor
endfunction

function c = network_cases (fx)
  hidden = [bad_numbers(); {"[3 0]", [3 0]; "1e9", 1e9}];
  vpos = {fx.mlp, fx.x2, fx.yg};
  vo = {"inducing", 5, "iterations", 20, "seed", 1};
  c = [pos_cases("mlp_fit", @mlp_fit, {fx.x2, fx.yg, 3}, {"iterations", 20}, 1, "x", ...
                 bad_matrices(30, 2)), ...
       pos_cases("mlp_fit", @mlp_fit, {fx.x2, fx.yg, 3}, {"iterations", 20}, 2, "y", ...
                 bad_vectors(30)), ...
       pos_cases("mlp_fit", @mlp_fit, {fx.x2, fx.yg, 3}, {"iterations", 20}, 3, "hidden", hidden), ...
       many_opts("mlp_fit", @mlp_fit, {fx.x2, fx.yg, 3}, {}, {"iterations", bad_iterations(), ...
                 "batch_size", bad_numbers(), "lr", bad_numbers(), ...
                 "weight_decay", bad_numbers(), "threads", bad_threads()}), ...
       pos_cases("valla", @valla, vpos, vo, 1, "model", {"[]", []; "struct()", struct(); ...
                 "'a'", "a"}), ...
       pos_cases("valla", @valla, vpos, vo, 2, "x", bad_matrices(30, 2)), ...
       pos_cases("valla", @valla, vpos, vo, 3, "y", bad_vectors(30)), ...
       many_opts("valla", @valla, vpos, {"iterations", 20, "seed", 1}, {"inducing", ...
                 [bad_numbers(); bad_matrices(5, 2)], "prior_var", bad_numbers(), ...
                 "noise", bad_numbers(), "lr", bad_numbers(), "method", bad_strings(), ...
                 "threads", bad_threads(), "jitter", bad_numbers()})];
endfunction

## ------------------------------------------------------------ tampered fits

function e = tamper_edits (quick)
  e = {"removed", @(v) []; "NaN in it", @nan_in; "Inf in it", @inf_in;
       "first row dropped", @(v) v(2:end, :); "no columns", @(v) v(:, []);
       "transposed", @(v) v.'; "a string", @(v) "a"; "a cell", @(v) {v};
       "negated", @(v) -abs (v) - 1};
  if (quick)
    e = e([1 2 4 5 9], :);
  endif
endfunction

function v = nan_in (v)
  if (isnumeric (v) && ! isempty (v)) v(1) = NaN; else v = NaN; endif
endfunction

function v = inf_in (v)
  if (isnumeric (v) && ! isempty (v)) v(end) = Inf; else v = Inf; endif
endfunction

## Fields that may be empty, and fields that are never negative, per fit class.
function m = tamper_meta (cls)
  switch (cls)
    case "gp_laplace"
      m = {{"offset", "levels", "noise", "test"}, {"var", "newton_steps", "iterations", ...
            "n_class", "kernel_products", "seed"}};
    case "ski_gsgp"
      m = {{"love", "loglik", "logdet", "logdet_se", "datafit", "probes_used", "test", ...
            "timings"}, {"iterations", "rel_residual", "lengthscale", "outputscale", "noise", ...
            "rank", "tol", "max_iter", "seed", "slq_max_iter", "precond_rank"}};
    otherwise
      m = {{"P2", "layers", "levels", "noise", "test"}, {"prior_var", "noise", "iterations", ...
            "n_class", "n", "d", "C", "seed", "y_sd"}};
  endswitch
endfunction

function ok = tamper_applies (edit, field, value, cls)
  m = tamper_meta (cls);
  switch (edit)
    case "removed"
      ok = ! any (strcmp (field, m{1}));
    case "a string"
      ok = ! ischar (value);
    case "negated"
      ok = any (strcmp (field, m{2})) && isnumeric (value);
    case {"first row dropped", "no columns"}
      ok = isnumeric (value) || islogical (value) || ischar (value) || iscell (value);
    case "transposed"  # not square: a transposed square factor has a valid fit's shape
      ok = (isnumeric (value) || islogical (value) || ischar (value) || iscell (value)) ...
           && ! (ismatrix (value) && rows (value) == columns (value) && rows (value) > 1);
    otherwise
      ok = true;
  endswitch
endfunction

function c = tamper_cases (fx, quick)
  nd = fx.x2(1:5, :);
  fits = {"gp_laplace/bernoulli", fx.lap.bernoulli; "gp_laplace/softmax", fx.lap.softmax;
          "gp_laplace/poisson", fx.lap.poisson; "gp_laplace/gaussian", fx.lap.gaussian;
          "ski_gsgp", fx.ski; "valla/gaussian", fx.valla.gaussian;
          "valla/softmax", fx.valla.softmax};
  edits = tamper_edits (quick);
  c = {};
  for i = 1:rows (fits)
    fit = fits{i, 2};
    cls = strtok (fits{i, 1}, "/");
    ref = @() scalegp_predict (fit, nd);
    for f = fieldnames (fit).'
      if (strcmp (f{1}, "class"))
        continue;
      endif
      for e = 1:rows (edits)
        if (! tamper_applies (edits{e, 1}, f{1}, fit.(f{1}), cls))
          continue;
        endif
        bad = setfield (fit, f{1}, edits{e, 2} (fit.(f{1})));
        c{end + 1} = mk (["scalegp_predict/tampered " cls], ...
                         sprintf ("%s: .%s %s", fits{i, 1}, f{1}, edits{e, 1}), ...
                         {f{1}, ["fit." f{1}]}, @() scalegp_predict (bad, nd), ref);
      endfor
    endfor
  endfor
endfunction

## Options twice or in another case, subnormal inputs, a fit edited out of range:
## each a clean error naming what is wrong (as R's fit_reliability_cases).
function c = fit_reliability_cases (fx)
  x = fx.x2;  y = fx.yb;
  c = {mk("gp_laplace", "tol given twice", {"tol"}, @() gp_laplace (x, y, "tol", 1e-3, "tol", 1e-4)), ...
       mk("gp_laplace", "xtest given twice", {"xtest"}, @() gp_laplace (x, y, "xtest", x, "xtest", x)), ...
       mk("gp_laplace", "an option in upper case (Tol)", {"Tol"}, @() gp_laplace (x, y, "Tol", 1e-3)), ...
       mk("gp_laplace", "x * 1e-310 (subnormal)", {"x"}, @() gp_laplace (x * 1e-310, y)), ...
       mk("gp_kernel", "x * 1e-310 (subnormal)", {"x"}, @() gp_kernel (x * 1e-310, "lengthscale", 1)), ...
       mk("scalegp_predict", "gp_laplace fit without hyper", {"fit.hyper"}, ...
          @() scalegp_predict (rmfield (fx.lap.bernoulli, "hyper"), x))};
endfunction

## ------------------------------------------------------------ chunk files

## ski_stats over files holding faults (each run writes its files, so a case
## stands alone in its child): every one but a blank line is an error that must
## name the file; and int64 values, read as the whole numbers they hold.
function c = source_cases (fx)
  dir = fullfile (tempdir (), sprintf ("sgp_fuzz_sources_%d", getpid ()));
  lines = [{"a,b,y"}, arrayfun(@(i) sprintf ("%.17g,%.17g,%.17g", fx.x2(i, 1), fx.x2(i, 2), ...
                                             fx.yg(i)), 1:fx.n, "uniformoutput", false)];
  good = fullfile (dir, "good.csv");
  faults = {"a blank line", "\n"; "a '# comment' line", "# comment\n";
            "a missing field", "0.5,0.5\n"; "an extra field", "0.5,0.5,1,2\n";
            "an empty field", "0.5,,1\n"; "a text field", "0.5,oops,1\n";
            "a NUL byte", ["0.5,0.5,1" char(0) "\n"]; "random bytes", char(mod ((1:200) * 7919, 256));
            "a value outside the grid", "0.5,3,1\n"};
  c = {};
  for i = 1:rows (faults)
    path = fullfile (dir, sprintf ("fault%d.csv", i));
    bytes = [sprintf("%s\n", lines{1:11}), faults{i, 2}, sprintf("%s\n", lines{12:end})];
    c{end+1} = mk ("ski_stats (files)", ["CSV with " faults{i, 1}], {path}, ...
                   @() source_run (dir, {good, path}, {sprintf("%s\n", lines{:}), bytes}, ...
                                   @() ski_stats ({good, path}, fx.grid, "x", [1 2], "y", 3, ...
                                                  "block_rows", 8)));
  endfor
  whole = {"CSV of a header only", "a,b,y\n"; "CSV of zero bytes", "";
           "CSV with a blank header", ["\n" sprintf("%s\n", lines{2:end})]};
  for i = 1:rows (whole)
    path = fullfile (dir, sprintf ("whole%d.csv", i));
    c{end+1} = mk ("ski_stats (files)", whole{i, 1}, {path}, ...
                   @() source_run (dir, {path}, whole(i, 2), ...
                                   @() ski_stats (path, fx.grid, "x", [1 2], "y", 3)));
  endfor
  h5 = fullfile (dir, "mismatch.h5");
  txt = fullfile (dir, "text.h5");
  c = [c, {mk("ski_stats (files)", "HDF5 x of 30 rows, y of 20", {h5}, ...
              @() source_h5 (dir, h5, fx.x2, fx.yg(1:20), fx.grid)), ...
           mk("ski_stats (files)", "HDF5 that is not one", {txt}, ...
              @() source_run (dir, {txt}, {"a,b\n"}, ...
                              @() ski_stats (txt, fx.grid, "x", "x", "y", "y"))), ...
           mk("gp_kernel", "x int64 (valid)", {"x"}, @() gp_kernel (int64 ([1; 5; 9]))), ...
           mk("ski_stats", "y int64 (valid)", {"y"}, ...
              @() ski_stats (fx.x2, int64 (round (10 * fx.yg)), fx.grid))}];
endfunction

function v = source_run (dir, paths, bytes, run)
  if (! exist (dir, "dir"))
    mkdir (dir);
  endif
  unwind_protect
    for i = 1:numel (paths)
      fid = fopen (paths{i}, "wb");
      fwrite (fid, bytes{i}, "uchar");
      fclose (fid);
    endfor
    v = run ();
  unwind_protect_cleanup   # (Octave's tempdir is shared: the files go with the case)
    source_clean (dir, paths);
  end_unwind_protect
endfunction

function v = source_h5 (dir, h5, xx, yy, g)
  if (! exist (dir, "dir"))
    mkdir (dir);
  endif
  unwind_protect
    save ("-hdf5", h5, "xx", "yy");
    v = ski_stats (h5, g, "x", "xx", "y", "yy");
  unwind_protect_cleanup
    source_clean (dir, {h5});
  end_unwind_protect
endfunction

function source_clean (dir, paths)
  for i = 1:numel (paths)
    if (exist (paths{i}, "file"))
      [~] = unlink (paths{i});
    endif
  endfor
  [~] = rmdir (dir);
endfunction
