## The Octave side of test-parity-laplace.R: the same gp_laplace calls as the R
## side on the same doubles, one thread; emit/emit_error from parity-emit.m.
fid = fopen (OUT, "w");
x = [((1:30)' - 15.5) / 5, mod((1:30)', 7) / 7];
xs = [-2 0.5; 0 0; 1.5 0.25];
yb = double (x(:, 1) + 0.3 * x(:, 2) > 0.2);
ys = 1 + (x(:, 1) > -1) + (x(:, 1) > 1.5);
yp = floor (2 + x(:, 1) .^ 2 / 3);
yg = sin (x(:, 1));
fits = {gp_laplace(x, yb, "policy", "cholesky", "max_iter", 30, "xtest", xs, "seed", 1, "threads", 1, "learn", {}), ...
        gp_laplace(x, ys, "likelihood", "softmax", "lengthscale", [1 2], "max_iter", 90, "xtest", xs, "seed", 1, "threads", 1, "learn", {}), ...
        gp_laplace(x, yp, "likelihood", "poisson", "offset", 0.1 * ones (30, 1), "policy", "cholesky", "max_iter", 30, "xtest", xs, "seed", 1, "threads", 1, "learn", {}), ...
        gp_laplace(x, yg, "likelihood", "gaussian", "noise", 0.1, "max_iter", 30, "xtest", xs, "seed", 1, "threads", 1, "learn", {}), ...
        gp_laplace(x, yp, "likelihood", "poisson", "offset", 0.1 * ones (30, 1), "precond_rank", 10, "max_iter", 30, "xtest", xs, "seed", 1, "threads", 1, "learn", {})};
for k = 1:numel (fits)
  f = fits{k};
  t = sprintf ("fit%d", k);
  emit (fid, [t ".fields"], strjoin (sort (setdiff (fieldnames (f), {"class"}))(:)', ","));
  emit (fid, [t ".history"], strjoin (fieldnames (f.history)(:)', ","));
  emit (fid, [t ".steps"], strjoin (fieldnames (f.steps)(:)', ","));
  emit (fid, [t ".test"], strjoin (sort (fieldnames (f.test))(:)', ","));
  for g = {"f", "var", "weights", "root", "newton_steps", "iterations", "kernel_products", "n_class", "seed"}
    emit (fid, [t "." g{1}], f.(g{1}));
  endfor
  emit (fid, [t ".converged"], double (f.converged));
  emit (fid, [t ".stop_reason"], f.stop_reason);
  emit (fid, [t ".likelihood"], f.likelihood);
  emit (fid, [t ".kernel"], sprintf ("%s %.17g %.17g", f.kernel.kernel, f.kernel.lengthscale(1), f.kernel.outputscale));
  emit (fid, [t ".psi"], f.steps.psi);
  emit (fid, [t ".test.mean"], f.test.mean);
  emit (fid, [t ".test.var"], f.test.var);
endfor
fl = gp_laplace (x, yp, "likelihood", "poisson", "offset", 0.1 * ones (30, 1), "learn", "auto", "policy", "cholesky", "max_iter", 30, "seed", 1, "threads", 1);
emit (fid, "learn.hyper", [fl.hyper.lengthscale; fl.hyper.outputscale; fl.hyper.mean]);
emit (fid, "learn.loglik", fl.loglik);
emit (fid, "learn.learned", strjoin (fl.learned, ","));
emit (fid, "learn.grad_names", strjoin (fieldnames (fl.loglik_grad)(:)', ","));
emit (fid, "learn.optim", strjoin (fieldnames (fl.optim)(:)', ","));
## learned dispersion (negbin) and alpha (rq), as the R side
yn = floor (exp (1 + 2 * sin (1.5 * x(:, 1))) .* [1 0.5 1.5 0.2 2.2](mod ((1:30)', 5) + 1)');
fn = gp_laplace (x, yn, "likelihood", "negbin", "kernel", "rq", "policy", "cholesky", "max_iter", 30, "seed", 1, "threads", 1);
emit (fid, "negbin.hyper", [fn.hyper.lengthscale; fn.hyper.outputscale; fn.hyper.mean; fn.hyper.dispersion; fn.hyper.alpha]);
emit (fid, "negbin.used", [fn.dispersion; fn.kernel.alpha]);
emit (fid, "negbin.loglik", fn.loglik);
emit (fid, "negbin.learned", strjoin (fn.learned, ","));
emit (fid, "negbin.grad_names", strjoin (fieldnames (fn.loglik_grad)(:)', ","));
emit_summary (fid, "negbin", fn);
## scaled inputs (option scale), as the R side
x2 = [150 + 30 * x(:, 1), x(:, 2) / 100];
xs2 = [150 + 30 * xs(:, 1), xs(:, 2) / 100];
fsc = gp_laplace (x2, yb, "policy", "cholesky", "max_iter", 30, "seed", 1, "threads", 1);
emit (fid, "scaled.moments", [fsc.scaling.centre(:); fsc.scaling.scale(:)]);
emit (fid, "scaled.hyper", [fsc.hyper.lengthscale(:); fsc.scaling.lengthscale(:); fsc.hyper.outputscale; fsc.hyper.mean]);
emit (fid, "scaled.prob", scalegp_predict (fsc, xs2).prob);
emit (fid, "scaled.note", fsc.scaling.note);
emit_summary (fid, "scaled", fsc);
bad = fsc;
bad.scaling.scale = -bad.scaling.scale;
emit_error (fid, "scaled.err", @() scalegp_predict (bad, xs2));
fs = gp_laplace (x, yp, "likelihood", "poisson", "offset", 0.1 * ones (30, 1), "lengthscale", 1, "outputscale", 1, "mean", 0, "learn", {}, "evidence", "stochastic", "probes", 8, "seed", 1, "threads", 1);
emit (fid, "stoch.loglik", [fs.loglik; fs.loglik_se; fs.loglik_grad.lengthscale]);
for k = 1:numel (fits)
  emit_summary (fid, sprintf ("fit%d", k), fits{k});
endfor
emit_summary (fid, "learn", fl);
emit_summary (fid, "stoch", fs);
t = __sgp_call__ ("options", "gp_laplace");
emit (fid, "options", strjoin (strcat (t.name, "=", t.default)(:)', ";"));
emit_error (fid, "err.max_iter", @() gp_laplace (x, yb, "max_iter", 0));
emit_error (fid, "err.policy", @() gp_laplace (x, yb, "policy", "lanczos"));
emit_error (fid, "err.labels", @() gp_laplace (x, yb + 1));
emit_error (fid, "err.unknown", @() gp_laplace (x, yb, "nonsense", 1));
emit_error (fid, "err.recycle", @() gp_laplace (x, yb, "recycle", 2));
emit_error (fid, "err.lengthscale", @() gp_laplace (x, yb, "lengthscale", [1 2 3]));
emit_error (fid, "err.rank", @() gp_laplace (x, yb, "rank", -1));
emit_error (fid, "err.noise", @() gp_laplace (x, yb, "noise", 1));
emit_error (fid, "err.threads", @() gp_laplace (x, yb, "threads", 1e6));
emit_error (fid, "err.softmax_big", @() gp_laplace (x, 40 * ones (30, 1), "likelihood", "softmax"));
lastwarn ("");
gp_laplace (x, ys, "likelihood", "softmax", "max_iter", 1, "max_newton", 2, "seed", 1);
emit (fid, "warning", lastwarn ());
## predict and tampered fits (test-parity-laplace.R compares the texts)
f1 = fits{1};
tp = @(name, value) setfield (f1, name, value);
emit_error (fid, "predict.err.weights", @() scalegp_predict (tp ("weights", f1.weights(2:end, :)), xs));
emit_error (fid, "predict.err.x", @() scalegp_predict (tp ("x", "a"), xs));
emit_error (fid, "predict.err.likelihood", @() scalegp_predict (tp ("likelihood", "probit"), xs));
emit_error (fid, "predict.err.n_class", @() scalegp_predict (tp ("n_class", 3), xs));
emit_error (fid, "predict.err.kernel", @() scalegp_predict (tp ("kernel", struct ("kernel", "rbf", "lengthscale", -1, "outputscale", 1)), xs));
emit_error (fid, "predict.err.noise", @() scalegp_predict (tp ("noise", 1), xs));
emit_error (fid, "predict.err.iterations", @() scalegp_predict (tp ("iterations", -1), xs));
emit_error (fid, "predict.err.converged", @() scalegp_predict (tp ("converged", NA), xs));
emit_error (fid, "predict.err.policy", @() scalegp_predict (tp ("policy", "lanczos"), xs));
emit_error (fid, "predict.err.y", @() scalegp_predict (tp ("y", 2 * ones (30, 1)), xs));
emit_error (fid, "predict.err.var", @() scalegp_predict (tp ("var", -f1.var), xs));
emit_error (fid, "predict.err.root0", @() scalegp_predict (tp ("root", f1.root(:, [])), xs));
emit_error (fid, "predict.err.missing", @() scalegp_predict (rmfield (f1, "root"), xs));
emit_error (fid, "predict.err.columns", @() scalegp_predict (f1, zeros (2, 3)));
emit_error (fid, "predict.err.offset", @() scalegp_predict (f1, xs, "offset", [0 0 0]));
emit_error (fid, "predict.err.offset_n", @() scalegp_predict (fits{3}, xs, "offset", [0 0]));
emit_error (fid, "predict.err.class", @() scalegp_predict (fits{3}, xs, "type", "class"));
emit_error (fid, "predict.err.type", @() scalegp_predict (f1, xs, "type", "nonsense"));
## gp_kernel
emit (fid, "kernel.m32", gp_kernel (x, xs, "kernel", "matern32", "lengthscale", [0.7 1.3], "outputscale", 2));
emit (fid, "kernel.rbf", gp_kernel (x(1:5, :)));
t = __sgp_call__ ("options", "gp_kernel");
emit (fid, "kernel.options", strjoin (strcat (t.name, "=", t.default)(:)', ";"));
emit_error (fid, "kernel.err.kernel", @() gp_kernel (x, "kernel", "gauss"));
emit_error (fid, "kernel.err.lengthscale", @() gp_kernel (x, "lengthscale", [1 2 3]));
emit_error (fid, "kernel.err.outputscale", @() gp_kernel (x, "outputscale", 0));
emit_error (fid, "kernel.err.unknown", @() gp_kernel (x, "sigma", 1));
fclose (fid);
