## The Octave side of test-parity-ski-laplace.R: the same ski_laplace calls as
## the R side on the same doubles; emit/emit_error from parity-emit.m.
fid = fopen (OUT, "w");
[i, j] = ndgrid (1:12, 1:10);
y = floor (3 * (1 + sin (i / 3) .* cos (j / 4)));
f1 = ski_laplace ([], y, "seed", 1, "threads", 1, "verbose", false);
emit (fid, "fit1.weights", f1.weights);
emit (fid, "fit1.loglik", f1.loglik);
emit (fid, "fit1.hyper", [f1.hyper.lengthscale, f1.hyper.outputscale, f1.hyper.mean]);
emit (fid, "fit1.newton_steps", f1.newton_steps);
emit (fid, "fit1.fields", strjoin (sort (setdiff (fieldnames (f1), {"class"}))(:)', ","));
x = [mod((1:80)', 9) / 3, mod((1:80)', 7) / 3.5];
f2 = ski_laplace (x, [], "grid_size", [10 8], "lengthscale", 0.7, "outputscale", 1,
                  "learn", {"mean"}, "xtest", [1 1; 2 1.5], "seed", 1, "threads", 1,
                  "verbose", false);
emit (fid, "fit2.weights", f2.weights);
emit (fid, "fit2.mean", f2.hyper.mean);
emit (fid, "fit2.test_mean", f2.test.mean);
emit (fid, "fit2.test_var", f2.test.var);
p2 = scalegp_predict (f2, [1.5 1; 0.5 2], "offset", [0; log(2)]);
emit (fid, "pred2.mean", p2.mean);
emit (fid, "pred2.var", p2.var);
emit (fid, "pred2.response", p2.response);
xs = [0.3 + mod((1:70)', 9) * 0.27, 0.2 + mod((1:70)', 4) * 0.5];
ys = floor (2 * (1 + sin (2 * xs(:,1)) .* cos (xs(:,2))));
f3 = ski_laplace (xs, ys, "layout", "scattered", "grid_size", [10 8], "lengthscale", 0.6,
                  "learn", {"outputscale", "mean"}, "xtest", [1 1; 2 1.5], "seed", 1,
                  "threads", 1, "verbose", false);
emit (fid, "fit3.weights", f3.weights);
emit (fid, "fit3.f", f3.f);
emit (fid, "fit3.loglik", f3.loglik);
emit (fid, "fit3.hyper", [f3.hyper.outputscale, f3.hyper.mean]);
emit (fid, "fit3.test_var", f3.test.var);
p3 = scalegp_predict (f3, [1.5 1; 0.5 1.2]);
emit (fid, "pred3.mean", p3.mean);
emit (fid, "pred3.var", p3.var);
gs = ski_grid (x, "grid_size", [10 8], "interpolation", "linear");
f4 = ski_laplace ([], [], "stats", ski_stats (x, ones (80, 1), gs), "lengthscale", 0.7,
                  "outputscale", 1, "learn", {"mean"}, "seed", 1, "threads", 1, "verbose", false);
emit (fid, "fit4.weights", f4.weights);
emit (fid, "fit4.mean", f4.hyper.mean);
emit_error (fid, "err.stats_grid", @() ski_laplace ([], [], "stats", ski_stats (x, ones (80, 1), gs), "grid_size", 3, "verbose", false));
emit_error (fid, "err.eigen", @() ski_laplace (xs, ys, "layout", "scattered", "loglik_method", "eigen", "verbose", false));
emit_error (fid, "err.weights", @() scalegp_predict (setfield (f2, "weights", f2.weights(1:10)), [1 1]));
emit_error (fid, "err.y", @() ski_laplace ([], [1 2.5 3], "verbose", false));
emit_error (fid, "err.layout", @() ski_laplace ([], [1 2 3], "layout", "points", "verbose", false));
## summaries: the fits', and one with a history of every number format
emit_summary (fid, "fit1", f1);
emit_summary (fid, "fit2", f2);
f3 = f1;
f3.history = struct ("step", [1; 2; 3; 4], "psi", [9.99996; -0.5; 123456; 0],
                     "mode_error", [1e-120; 2.5; NaN; 1], "damping", [0.5; 0.25; 1; 1],
                     "cg_steps", [1; 10; 100; 1000], "rel_residual", [-Inf; 1e-3; 0.0123; 1],
                     "seconds", [Inf; 1.5e5; 2; 3]);
f3.converged = false;
f3.stop_reason = "max_iter";
f3.loglik = NaN;
emit_summary (fid, "fit3", f3);
fclose (fid);
