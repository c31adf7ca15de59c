## The Octave side of test-parity-valla.R: the same calls as the R side, results
## printed to the file OUT (set by the caller) as "N name v1 v2 ..." (numbers as
## %.17g) or "S name text" lines.
fid = fopen (OUT, "w");
net = struct ("W", {{[1.2 -0.8 0.5 0.9], [0.7; -0.4; 0.6; 0.3]}},
              "b", {{[0.1 -0.2 0 0.3], 0.05}}, "activation", "tanh");
x = ((1:40)' - 20.5) / 10;   # the same doubles in R (linspace and seq round differently)
y = sin (x) + 0.1 * cos (7 * x);
xs = [-3; -0.5; 0; 3];
cf = valla (net, x, y, "inducing", 5, "closed_form", true, "learn", {}, "prior_var", 0.5,
            "noise", 0.01, "xtest", xs, "seed", 2, "threads", 1);
ad = valla (net, x, y, "inducing", 6, "iterations", 60, "batch_size", 20, "lr", 1e-2,
            "seed", 1, "xtest", xs, "threads", 1);
df = valla (net, x, y, "iterations", 2, "seed", 1, "threads", 1);
emit (fid, "fields", strjoin (sort (setdiff (fieldnames (cf), {"class", "test"}))(:)', ","));
emit (fid, "fields_ad", strjoin (sort (setdiff (fieldnames (ad), {"class", "test"}))(:)', ","));
tags = {"cf", "ad"};
emit_summary (fid, "cf", cf);
emit_summary (fid, "ad", ad);
emit_summary (fid, "df", df);
fits = {cf, ad};
for k = 1:2
  fit = fits{k};
  t = tags{k};
  emit_fields (fid, [t ".all"], fit);   # every field, the network's included
  emit (fid, [t ".inducing"], fit.inducing);
  emit (fid, [t ".L"], fit.L);
  emit (fid, [t ".prior_var"], fit.prior_var);
  emit (fid, [t ".noise"], fit.noise);
  emit (fid, [t ".objective"], fit.history.objective);
  emit (fid, [t ".n_train"], fit.n_train);
  emit (fid, [t ".x_range"], fit.x_range);
  emit (fid, [t ".mean"], fit.test.mean);
  emit (fid, [t ".var"], fit.test.var);
  emit (fid, [t ".latent_var"], fit.test.latent_var);
  f = [tempname() ".mat"];
  save ("-binary", f, "fit");
  s = load (f);
  delete (f);
  p = scalegp_predict (s.fit, xs + 0.25);
  emit (fid, [t ".reloaded_var"], p.var);
  m = valla_metrics (p, sin (xs + 0.25));
  emit (fid, [t ".metrics"], [m.nll, m.crps, m.cqm]);
endfor
emit (fid, "default_M", rows (df.inducing));
emit_error (fid, "err_prior_var", @() valla (net, x, y, "prior_var", 0));
emit_error (fid, "err_lr", @() valla (net, x, y, "inducing", 3, "lr", -1));
emit_error (fid, "err_alpha", @() valla (net, x, y, "inducing", 3, "alpha", 2));
emit_error (fid, "err_inducing", @() valla (net, x, y, "inducing", 100));
emit_error (fid, "err_inducing_cf", @() valla (net, x, y, "inducing", 41, "closed_form", true));
emit_error (fid, "err_learn", @() valla (net, x, y, "learn", {"A", "Z"}));
emit_error (fid, "err_method", @() valla (net, x, y, "method", "laplace"));
emit_error (fid, "err_likelihood", @() valla (net, x, y, "likelihood", "poisson"));
emit_error (fid, "err_beta1", @() valla (net, x, y, "beta1", 1));
emit_error (fid, "err_unknown", @() valla (net, x, y, "eval_evry", 3));
emit_error (fid, "err_closed_form", @() valla (net, x, y, "inducing", 3, "method", "lla",
                                              "closed_form", true));
emit_error (fid, "err_iterations", @() valla (net, x, y, "inducing", 3, "iterations", 2.5));
t = __sgp_call__ ("options", "valla");
emit (fid, "options", strjoin (strcat (t.name, "=", t.default)(:)', ";"));
lastwarn ("");
valla (net, x, y, "inducing", 6, "iterations", 50, "lr", 1e3, "seed", 1);
emit (fid, "warning", lastwarn ());
[mn, loss] = mlp_fit (x, y, "hidden", [4 3], "activation", "sigmoid", "iterations", 20,
                      "seed", 4, "threads", 1);
emit (fid, "mlp.W2", mn.weights{2});
emit (fid, "mlp.b3", mn.biases{3});
emit (fid, "mlp.loss", loss);
emit_fields (fid, "mlp.all", mn);   # the network: the same fields as R's
t = __sgp_call__ ("options", "mlp_fit");
emit (fid, "mlp.options", strjoin (strcat (t.name, "=", t.default)(:)', ";"));
emit_error (fid, "mlp.err_lr", @() mlp_fit (x, y, 3, "lr", 0));
emit_error (fid, "mlp.err_likelihood", @() mlp_fit (x, y, 3, "likelihood", "poisson"));
lastwarn ("");
mlp_fit (x, sin (2 * x), 16, "iterations", 200, "batch_size", 20, "lr", 1e300, "seed", 3);
emit (fid, "mlp.warning", lastwarn ());
## predict's options: the core's table "valla_predict" and its rules
emit_error (fid, "predict.err.type", @() scalegp_predict (cf, xs, "type", "nonsense"));
emit_error (fid, "predict.err.class", @() scalegp_predict (cf, xs, "type", "class"));
emit_error (fid, "predict.err.mc", @() scalegp_predict (cf, xs, "prob_method", "mc"));
emit_error (fid, "predict.err.mc_samples", @() scalegp_predict (cf, xs, "mc_samples", 0));
emit_error (fid, "predict.err.full_cov", @() scalegp_predict (cf, xs, "full_cov", "yes"));
emit_error (fid, "predict.err.seed", @() scalegp_predict (cf, xs, "seed", -1));
emit_error (fid, "valla.err.prob_method", @() valla (net, x, y, "xtest", xs, "prob_method", "z"));
## tampered fits: the core's check of a valla fit's fields
emit_error (fid, "tamper.err.missing", @() scalegp_predict (rmfield (ad, "P1"), xs));
emit_error (fid, "tamper.err.prior", @() scalegp_predict (setfield (ad, "prior", "yes"), xs));
emit_error (fid, "tamper.err.likelihood", @() scalegp_predict (setfield (ad, "likelihood", "poisson"), xs));
emit_error (fid, "tamper.err.P1", @() scalegp_predict (setfield (ad, "P1", ad.P1(2:end, :)), xs));
emit_error (fid, "tamper.err.prior_var", @() scalegp_predict (setfield (ad, "prior_var", -1), xs));
emit_error (fid, "tamper.err.tags", @() scalegp_predict (setfield (ad, "tags", ad.tags + 5), xs));
emit_error (fid, "tamper.err.history", @() scalegp_predict (setfield (ad, "history", struct ()), xs));
emit_error (fid, "tamper.err.iterations", @() scalegp_predict (setfield (ad, "iterations", -1), xs));
emit_error (fid, "tamper.err.levels", @() scalegp_predict (setfield (ad, "levels", "a"), xs));
emit_error (fid, "tamper.err.stop_reason", @() scalegp_predict (setfield (ad, "stop_reason", "gave up"), xs));
emit_error (fid, "tamper.err.model", @() scalegp_predict (setfield (ad, "model", NA), xs));
## valla_metrics: the core reads pred, codes the labels and checks everything
ym = [0.1; -0.3; 1.2; 0.4]; mm = [0; 0; 1; 0.5]; vm = [0.5; 1; 2; 0.3];
Pm = [0.8 0.2; 0.3 0.7; 0.4 0.6; 0.6 0.4]; lm = [1; 2; 2; 1];
emit (fid, "metrics.reg", cell2mat (struct2cell (valla_metrics (mm, ym, "var", vm))));
emit (fid, "metrics.bin", cell2mat (struct2cell (valla_metrics (Pm(:, 2), lm, "bins", 4))));
emit_error (fid, "metrics.err.empty", @() valla_metrics (struct ("mean", [], "var", []), []));
emit_error (fid, "metrics.err.nan_y", @() valla_metrics (struct ("mean", mm, "var", vm), [NaN; ym(2:end)]));
emit_error (fid, "metrics.err.var0", @() valla_metrics (struct ("mean", mm, "var", [vm(1); 0; vm(3:4)]), ym));
emit_error (fid, "metrics.err.var_n", @() valla_metrics (mm, ym, "var", vm(2:end)));
emit_error (fid, "metrics.err.nomean", @() valla_metrics (struct ("var", vm), ym));
emit_error (fid, "metrics.err.rows", @() valla_metrics (Pm(2:end, :), lm));
emit_error (fid, "metrics.err.sum", @() valla_metrics ([Pm, 0.1 * ones(4, 1)], lm));
emit_error (fid, "metrics.err.label", @() valla_metrics (Pm, [1; 2; 3; 1]));
emit_error (fid, "metrics.err.bins", @() valla_metrics (Pm, lm, "bins", 0));
emit_error (fid, "metrics.err.y", @() valla_metrics (Pm, "abcd"));
emit_error (fid, "metrics.err.unknown", @() valla_metrics (Pm, lm, "nbins", 3));
fclose (fid);
