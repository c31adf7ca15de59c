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
emit_error (fid, "err.y", @() ski_laplace ([], [1 2.5 3], "verbose", false));
emit_error (fid, "err.layout", @() ski_laplace ([], [1 2 3], "layout", "points", "verbose", false));
fclose (fid);
