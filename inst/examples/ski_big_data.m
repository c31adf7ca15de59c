## ski_big_data.m -- the Octave twin of vignette("ski"): 100,000 noisy readings
## fitted by ski_gsgp in memory, then from statistics of four CSV files read by
## two worker processes, with the hyperparameters learned each time.
##
##   octave-cli inst/examples/ski_big_data.m     (with the scalegp package
##   installed; from the source tree add bindings_octave/inst and /src to the path)
##
## Octave's random numbers are not R's, so the figures differ from the
## vignette's in the last digits; what they show is the same.
if (isempty (which ("ski_gsgp")))
  pkg load scalegp
endif

## A signal on [0, 10] with two frequencies, noise of standard deviation 0.5
rand ("state", 1);  randn ("state", 1);
n = 1e5;
truth = @(x) sin (2 * x) + 0.5 * cos (5 * x);
x = 10 * rand (n, 1);
y = truth (x) + 0.5 * randn (n, 1);

## m = 500 grid points; lengthscale, outputscale, noise and prior mean learned
## from the log marginal likelihood (exact on a grid this small)
tic;
fit = ski_gsgp (x, y, "grid_size", 500, "seed", 1);
printf ("in memory: %.1f s\n", toc);
scalegp_summary (fit);
printf ("noise variance learned: %.4f (true 0.25)\n", fit.noise);

xs = (1:2:9)';
p = scalegp_predict (fit, xs, "variance", "exact");
printf ("\n    x     mean      sd   truth\n");
printf ("%5.1f %8.4f %7.4f %7.4f\n", [xs, p.mean, sqrt(p.var), truth(xs)]');

## (the means from the statistics below agree with these to within the
## conjugate-gradient tolerance, tol = 0.01 by default, about one sd)

## The same points in four CSV files, read by two workers into statistics on a
## grid fixed in advance; merged in file order, so any number of workers gives
## the same statistics
dir = tempname ();
mkdir (dir);
files = arrayfun (@(k) fullfile (dir, sprintf ("readings%d.csv", k)), 1:4,
                  "uniformoutput", false);
for k = 1:4
  rows_k = (k - 1) * n / 4 + (1:n / 4);
  fid = fopen (files{k}, "w");
  fprintf (fid, "position,reading\n");
  fprintf (fid, "%.17g,%.17g\n", [x(rows_k), y(rows_k)]');
  fclose (fid);
endfor
g = ski_grid ([], "range", [0 10], "grid_size", 500);
s = ski_stats (files, g, "x", "position", "y", "reading", "workers", 2);
printf ("\nstatistics of %d points from %d files\n", s.n, numel (files));

tic;
fit2 = ski_gsgp ("stats", s, "seed", 1);
printf ("from the statistics: %.1f s\n", toc);
p2 = scalegp_predict (fit2, xs, "variance", "exact");
printf ("    x     mean      sd   in memory\n");
printf ("%5.1f %8.4f %7.4f %8.4f\n", [xs, p2.mean, sqrt(p2.var), p.mean]');

## Kernels compared by the log marginal likelihood
fit_m32 = ski_gsgp ("stats", s, "kernel", "matern32", "seed", 1);
printf ("\nlog marginal likelihood: rbf %.1f, matern32 %.1f\n", fit2.loglik, fit_m32.loglik);
confirm_recursive_rmdir (false, "local");
rmdir (dir, "s");
