## The Octave side of test-parity-ski.R: the same ski_gsgp calls as the R side
## on the same doubles, one thread; emit/emit_error from parity-emit.m.
fid = fopen (OUT, "w");
x1 = (1:40)' / 10;
y1 = sin (2 * x1) + 0.1 * cos (7 * x1);
x2 = [mod((1:50)', 7) / 3, mod((1:50)', 11) / 5];
y2 = sin (x2(:, 1)) + cos (x2(:, 2));
xs1 = [0.5; 1.5; 3.2];
xs2 = [1 1; 0.5 1.2];
o = {"seed", 1, "threads", 1};
f1 = ski_gsgp (x1, y1, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-10, "variance", "exact",
               "xtest", xs1, o{:}, "learn", {});
f2 = ski_gsgp (x2, y2, "grid_size", [12 10], "lengthscale", [0.8 1], "noise", 0.05,
               "tol", 1e-10, "variance", "lanczos", "rank", 5, "loglik", true, "probes", 4,
               "xtest", xs2, o{:}, "learn", {});
f3 = ski_gsgp ("stats", f1.stats, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-10, o{:}, "learn", {});
f4 = ski_gsgp (x1, y1, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-10, "method", "ski",
               "interpolation", "linear", "grid_size", 30, o{:}, "learn", {});
fits = {f1, f2, f3, f4};
for k = 1:numel (fits)
  f = fits{k};
  t = sprintf ("fit%d", k);
  emit (fid, [t ".fields"], strjoin (sort (setdiff (fieldnames (f), {"class"}))(:)', ","));
  emit (fid, [t ".stats"], strjoin (sort (setdiff (fieldnames (f.stats), {"class"}))(:)', ","));
  for g = {"weights", "iterations", "rel_residual", "noise", "outputscale", "lengthscale", ...
           "tol", "max_iter", "seed", "slq_max_iter", "precond_rank"}
    emit (fid, [t "." g{1}], f.(g{1}));
  endfor
  for g = {"kernel", "method", "variance", "bounds_policy", "backend", "stop"}
    emit (fid, [t "." g{1}], f.(g{1}));
  endfor
  emit (fid, [t ".converged"], double (f.converged));
  emit (fid, [t ".history"], f.history.rel_residual);
  emit (fid, [t ".grid.size"], f.grid.size);
  emit (fid, [t ".grid.bounds"], f.grid.bounds);
  emit (fid, [t ".grid.interpolation"], f.grid.interpolation);
  for g = {"n", "yty", "ysum", "Wty", "Wt1", "WtW", "probes", "probe_seed", "rhoz", "Wtz"}
    emit (fid, [t ".stats." g{1}], f.stats.(g{1}));
  endfor
  if (isfield (f, "test"))
    emit (fid, [t ".test.mean"], f.test.mean);
    emit (fid, [t ".test.var"], f.test.var);
    emit (fid, [t ".test.fields"], strjoin (sort (fieldnames (f.test))(:)', ","));
    emit (fid, [t ".test.resolved"], [double(f.test.converged), f.test.var_error, f.test.clamped]);
  endif
endfor
emit (fid, "fit2.loglik", [f2.loglik, f2.logdet, f2.logdet_se, f2.datafit, f2.probes_used]);
emit (fid, "fit2.love", [f2.love.Ft(:); f2.love.c0(:); f2.love.error]);
y5 = y1 + 0.2 * (mod ((1:40)' * 7919, 13) / 13 - 0.5);
f5 = ski_gsgp (x1, y5, "grid_size", 40, "probes", 8, o{:});
f7 = ski_gsgp (x1, y5, "grid_size", 40, "probes", 8, "loglik_method", "slq", o{:});
f8 = ski_gsgp (x1, y5, "grid_size", 40, "probes", 8, "loglik_method", "eigen", o{:});
learned = {f5, f7, f8};
names = {"fit5", "fit7", "fit8"};
for k = 1:3
  f = learned{k};
  t = names{k};
  emit (fid, [t ".fields"], strjoin (sort (setdiff (fieldnames (f), {"class"}))(:)', ","));
  emit (fid, [t ".learned"], strjoin (f.learned, ","));
  emit (fid, [t ".hyper"], [f.hyper.lengthscale; f.hyper.outputscale; f.hyper.mean; f.hyper.noise]);
  emit (fid, [t ".loglik"], [f.loglik, f.loglik_se, f.probes_used]);
  emit (fid, [t ".loglik_grad"], cell2mat (struct2cell (f.loglik_grad)));
  emit (fid, [t ".grad_names"], strjoin (fieldnames (f.loglik_grad)(:)', ","));
  emit (fid, [t ".evals"], numel (f.optim.loglik));
endfor
f6 = ski_gsgp (x1, y1 + 500, "lengthscale", 0.5, "outputscale", 1, "noise", 0.01, "tol", 1e-10,
               "xtest", xs1, o{:});
emit (fid, "fit6.learned", strjoin (f6.learned, ","));
emit (fid, "fit6.mean", [f6.hyper.mean; f6.interp_error]);
emit (fid, "fit6.test.mean", f6.test.mean);
for k = 1:numel (fits)
  emit_summary (fid, sprintf ("fit%d", k), fits{k});
endfor
emit_summary (fid, "fit5", f5);
emit_summary (fid, "fit7", f7);
t = __sgp_call__ ("options", "ski_gsgp");
emit (fid, "options", strjoin (strcat (t.name, "=", t.default)(:)', ";"));
emit (fid, "kinds", strjoin (t.kind(:)', ","));
s0 = ski_stats (x1, y1, ski_grid (x1, "grid_size", 20));
emit_error (fid, "err.max_iter", @() ski_gsgp (x1, y1, "max_iter", 0, "learn", {}));
emit_error (fid, "err.method", @() ski_gsgp (x1, y1, "method", "exact", "learn", {}));
emit_error (fid, "err.grid_size", @() ski_gsgp (x1, y1, "grid_size", 2.5, "learn", {}));
emit_error (fid, "err.grid_size_d", @() ski_gsgp (x2, y2, "grid_size", [10 10 10], "learn", {}));
emit_error (fid, "err.grid_bounds", @() ski_gsgp (x1, y1, "grid_bounds", [0 1 2 3], "learn", {}));
emit_error (fid, "err.outside", @() ski_gsgp (x1, y1, "grid_bounds", [0.5 2], "grid_size", 20, "learn", {}));
emit_error (fid, "err.unknown", @() ski_gsgp (x1, y1, "nonsense", 1, "learn", {}));
emit_error (fid, "err.lengthscale", @() ski_gsgp (x2, y2, "lengthscale", [1 2 3], "learn", {}));
emit_error (fid, "err.fixes", @() ski_gsgp ("stats", s0, "grid_size", 10, "learn", {}));
emit_error (fid, "err.interp", @() ski_gsgp ("stats", s0, "interpolation", "linear", "learn", {}));
emit_error (fid, "err.probes", @() ski_gsgp ("stats", s0, "loglik", true, "loglik_method", "slq", "learn", {}));
emit_error (fid, "err.loglik_method", @() ski_gsgp ("stats", s0, "loglik_method", "all", "learn", {}));
emit_error (fid, "err.ski_data", @() ski_gsgp ("stats", s0, "method", "ski", "learn", {}));
emit_error (fid, "err.stats_xy", @() ski_gsgp (x1, y1, "stats", s0, "learn", {}));
emit_error (fid, "err.precond", @() ski_gsgp (x1, y1, "precond_rank", 2, "method", "ski", "learn", {}));
emit_error (fid, "err.precond_m", @() ski_gsgp (x1, y1, "grid_size", 10, "precond_rank", 10, "learn", {}));
emit_error (fid, "err.grid_pad", @() ski_gsgp (x1, y1, "grid_pad", 0, "learn", {}));
emit_error (fid, "err.threads", @() ski_gsgp (x1, y1, "threads", 1e6, "learn", {}));
emit_error (fid, "err.backend", @() ski_gsgp (x1, y1, "backend", "gpu", "learn", {}));
emit_error (fid, "err.overflow", @() ski_gsgp (x1, y1, "grid_size", 30, "outputscale", 1e307, "learn", {}));
emit_error (fid, "err.none", @() ski_gsgp ("noise", 1, "learn", {}));
gset = @(s, name, value) setfield (s, "grid", setfield (s.grid, name, value));
emit_error (fid, "err.stats_dims", @() ski_gsgp ("stats", gset (s0, "size", 2 * ones (1, 9)), "learn", {}));
emit_error (fid, "err.stats_size", @() ski_gsgp ("stats", gset (s0, "size", 2.5), "learn", {}));
emit_error (fid, "err.stats_bounds", @() ski_gsgp ("stats", gset (s0, "bounds", [0 1; 0 1]), "learn", {}));
emit_error (fid, "err.stats_order", @() ski_gsgp ("stats", gset (s0, "bounds", [4 0]), "learn", {}));
emit_error (fid, "err.stats_interp", @() ski_gsgp ("stats", gset (s0, "interpolation", "spline"), "learn", {}));
emit_error (fid, "err.stats_grid", @() ski_gsgp ("stats", setfield (s0, "grid", 3), "learn", {}));
lastwarn ("");
ski_gsgp (x1, y1, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-12, "max_iter", 2, o{:}, "learn", {});
emit (fid, "warning", lastwarn ());
lastwarn ("");
ski_gsgp (x1, y1, "grid_size", 60, "noise", 1e-6, "tol", 1e-15, "max_iter", 5000, o{:}, "learn", {});
emit (fid, "warning.accuracy", lastwarn ());
lastwarn ("");
ski_gsgp (x1, y1, "lengthscale", 0.5, "noise", 0.01, "tol", 1e-14, "max_iter", 3,
          "variance", "exact", "xtest", xs1, o{:}, "learn", {});
emit (fid, "warning.xtest", lastwarn ());
## ski_grid
grids = {ski_grid(x2, "grid_size", [12 10]), ski_grid(x1, "lengthscale", 0.3), ...
         ski_grid([], "range", [0 1; -2 2], "grid_size", [20 40], "interpolation", "linear"), ...
         ski_grid([], "grid_size", 11, "grid_bounds", [0 1]), ski_grid([], "range", [0 3], "n", 500, "grid_pad", 1)};
for k = 1:numel (grids)
  g = grids{k};
  t = sprintf ("grid%d", k);
  emit (fid, [t ".fields"], strjoin (sort (fieldnames (g))(:)', ","));
  emit (fid, [t ".size"], g.size);
  emit (fid, [t ".bounds"], g.bounds);
  emit (fid, [t ".interpolation"], g.interpolation);
endfor
t = __sgp_call__ ("options", "ski_grid");
emit (fid, "grid.options", strjoin (strcat (t.name, "=", t.default)(:)', ";"));
emit_error (fid, "grid.err.none", @() ski_grid ([]));
emit_error (fid, "grid.err.size", @() ski_grid ([], "range", [0 1], "grid_size", 2.5));
emit_error (fid, "grid.err.interp", @() ski_grid ([], "range", [0 1], "interpolation", "spline"));
emit_error (fid, "grid.err.range", @() ski_grid ([], "range", [1 0]));
emit_error (fid, "grid.err.small", @() ski_grid ([], "range", [0 1], "grid_size", 3));
emit_error (fid, "grid.err.lengthscale", @() ski_grid (x2, "lengthscale", [1 2 3]));
emit_error (fid, "grid.err.n", @() ski_grid ([], "range", [0 1], "n", -1));
emit_error (fid, "grid.err.unknown", @() ski_grid (x1, "nonsense", 1));
emit_error (fid, "grid.err.threads", @() ski_grid (x1, "threads", 1));
emit_error (fid, "grid.err.big", @() ski_grid ([], "range", [0 1; 0 1; 0 1], "grid_size", [2e9 2e9 2e9]));
## ski_stats
g1 = ski_grid (x1, "grid_size", 20);
sts = {ski_stats(x1, y1, g1), ski_stats(x1(1:20), y1(1:20), g1, "probes", 3, "seed", 7, "first_row", 20), ...
       ski_stats(x2, y2, ski_grid (x2, "grid_size", [9 8], "interpolation", "linear"), "bounds_policy", "clamp")};
for k = 1:numel (sts)
  s = sts{k};
  t = sprintf ("st%d", k);
  emit (fid, [t ".fields"], strjoin (sort (setdiff (fieldnames (s), {"class"}))(:)', ","));
  for g = {"n", "yty", "ysum", "Wty", "Wt1", "WtW", "probes", "probe_seed", "rhoz", "Wtz"}
    emit (fid, [t "." g{1}], s.(g{1}));
  endfor
endfor
t = __sgp_call__ ("options", "ski_stats");
emit (fid, "stats.options", strjoin (strcat (t.name, "=", t.default)(:)', ";"));
emit_error (fid, "stats.err.probes", @() ski_stats (x1, y1, g1, "probes", -1));
emit_error (fid, "stats.err.policy", @() ski_stats (x1, y1, g1, "bounds_policy", "wrap"));
emit_error (fid, "stats.err.first_row", @() ski_stats (x1, y1, g1, "first_row", 2^60));
emit_error (fid, "stats.err.seed", @() ski_stats (x1, y1, g1, "seed", -1));
emit_error (fid, "stats.err.threads", @() ski_stats (x1, y1, g1, "threads", 1e6));
emit_error (fid, "stats.err.outside", @() ski_stats (x1 + 10, y1, g1));
emit_error (fid, "stats.err.unknown", @() ski_stats (x1, y1, g1, "nonsense", 1));
emit_error (fid, "stats.err.dims", @() ski_stats (x1, y1, struct ("size", 2 * ones (1, 9), "bounds", zeros (9, 2), "interpolation", "cubic")));
emit_error (fid, "stats.err.size", @() ski_stats (x1, y1, setfield (g1, "size", 2.5)));
emit_error (fid, "stats.err.bounds", @() ski_stats (x1, y1, setfield (g1, "bounds", [0 1; 0 1])));
emit_error (fid, "stats.err.order", @() ski_stats (x1, y1, setfield (g1, "bounds", [4 0])));
emit_error (fid, "stats.err.nan", @() ski_stats (x1, y1, setfield (g1, "bounds", [0 NaN])));
emit_error (fid, "stats.err.interp", @() ski_stats (x1, y1, setfield (g1, "interpolation", "spline")));
emit_error (fid, "stats.err.notgrid", @() ski_stats (x1, y1, 3));
emit_error (fid, "stats.err.partial", @() ski_stats (x1, y1, struct ("size", 3)));
emit_error (fid, "stats.err.of_stats", @() ski_stats (x1, y1, setfield (sts{1}, "grid", setfield (g1, "size", 0))));
emit_error (fid, "stats.err.columns", @() ski_stats ([x1, x1], y1, g1));
## predict and tampered ski fits (the core's check, one text in both hosts)
tp = @(name, value) setfield (f1, name, value);
emit_error (fid, "predict.err.weights", @() scalegp_predict (tp ("weights", f1.weights(2:end)), xs1));
emit_error (fid, "predict.err.kernel", @() scalegp_predict (tp ("kernel", "gauss"), xs1));
emit_error (fid, "predict.err.lengthscale", @() scalegp_predict (tp ("lengthscale", -1), xs1));
emit_error (fid, "predict.err.noise", @() scalegp_predict (tp ("noise", "0.1"), xs1));
emit_error (fid, "predict.err.max_iter", @() scalegp_predict (tp ("max_iter", 0), xs1));
emit_error (fid, "predict.err.variance", @() scalegp_predict (tp ("variance", "exactly"), xs1));
emit_error (fid, "predict.err.converged", @() scalegp_predict (tp ("converged", NA), xs1));
emit_error (fid, "predict.err.iterations", @() scalegp_predict (tp ("iterations", 2.5), xs1));
emit_error (fid, "predict.err.rel_residual", @() scalegp_predict (tp ("rel_residual", Inf), xs1));
emit_error (fid, "predict.err.stop", @() scalegp_predict (tp ("stop", "gave up"), xs1));
emit_error (fid, "predict.err.missing", @() scalegp_predict (rmfield (f1, "stats"), xs1));
emit_error (fid, "predict.err.grid", @() scalegp_predict (setfield (f1, "grid", setfield (f1.grid, "size", 41)), xs1));
emit_error (fid, "predict.err.stats", @() scalegp_predict (tp ("stats", setfield (f1.stats, "WtW", f1.stats.WtW * NaN)), xs1));
emit_error (fid, "predict.err.love_c0", @() scalegp_predict (setfield (f2, "love", setfield (f2.love, "c0", f2.love.c0(2:end))), xs2));
emit_error (fid, "predict.err.no_love", @() scalegp_predict (f1, xs1, "variance", "lanczos"));
emit_error (fid, "predict.err.variance_opt", @() scalegp_predict (f1, xs1, "variance", "some"));
emit_error (fid, "predict.err.columns", @() scalegp_predict (f1, [xs1, xs1]));
## ski_stats_merge: the core reads and checks every part (tampered ones included)
sa = sts{1};
emit_error (fid, "merge.err.notstats", @() ski_stats_merge (sa, 1));
emit_error (fid, "merge.err.missing", @() ski_stats_merge (sa, rmfield (sa, "Wtz")));
emit_error (fid, "merge.err.nan", @() ski_stats_merge (sa, setfield (sa, "WtW", sa.WtW * NaN)));
emit_error (fid, "merge.err.shape", @() ski_stats_merge (sa, sa, setfield (sa, "WtW", sa.WtW(2:end, :))));
emit_error (fid, "merge.err.wty", @() ski_stats_merge (setfield (sa, "Wty", sa.Wty(2:end)), sa));
emit_error (fid, "merge.err.scalar", @() ski_stats_merge (sa, setfield (sa, "n", Inf)));
emit_error (fid, "merge.err.wtz", @() ski_stats_merge (sts{2}, setfield (sts{2}, "Wtz", sts{2}.Wtz(2:end, :))));
emit_error (fid, "merge.err.grid", @() ski_stats_merge (sa, setfield (sa, "grid", struct ("size", 0, "bounds", [0 1], "interpolation", "cubic"))));
emit_error (fid, "merge.err.other_grid", @() ski_stats_merge (sa, sts{3}));
emit_error (fid, "merge.err.probes", @() ski_stats_merge (sa, sts{2}));
emit_error (fid, "merge.err.overflow", @() ski_stats_merge (setfield (sa, "yty", 1.5e308), setfield (sa, "yty", 1.5e308)));
fclose (fid);
