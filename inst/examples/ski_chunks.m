## ski_chunks.m -- SKI-GSGP on data read chunk by chunk (GNU Octave).
##
##   octave-cli inst/examples/ski_chunks.m     (with the scalegp package loaded)
##
## The data are visited one chunk at a time (here generated on the fly; in
## practice read from files): each chunk becomes sufficient statistics on a
## grid fixed in advance, the statistics are added, and the model is fitted
## from their sum.  Memory depends on the grid, not on the number of points.
## The fit equals the one-shot fit on all data.

rand ("seed", 7);  randn ("seed", 7);
n = 8000;  chunk = 1000;
f = @(x) sin (4 * x(:, 1)) .* cos (3 * x(:, 2));
X = rand (n, 2);
Y = f (X) + 0.1 * randn (n, 1);

grid = ski_grid ([], "range", [0 1; 0 1], "grid_size", [30 30]);
stats = [];
for first = 1:chunk:n
  rows_ = first:min (first + chunk - 1, n);
  s = ski_stats (X(rows_, :), Y(rows_), grid, "first_row", first - 1);
  if (isempty (stats))
    stats = s;
  else
    stats = ski_stats_merge (stats, s);
  endif
endfor
printf ("statistics of %d points on a %d x %d grid\n", stats.n, grid.size);

hyper = {"kernel", "matern52", "lengthscale", 0.3, "outputscale", 1, "noise", 0.05, "tol", 1e-7};
xtest = [0.25 0.5; 0.5 0.5; 0.75 0.5];
fit = ski_gsgp ("stats", stats, "xtest", xtest, "variance", "exact", hyper{:});
one = ski_gsgp (X, Y, "grid_size", grid.size, "grid_bounds", grid.bounds, "xtest", xtest,
                hyper{:});
printf ("test mean (chunked, one-shot, truth) and sd:\n");
disp ([fit.test.mean, one.test.mean, f(xtest), sqrt(fit.test.var)]);
d = max (abs (fit.weights - one.weights)) / max (abs (one.weights));
printf ("largest relative difference of the grid weights: %.2g\n", d);
assert (fit.converged && one.converged && d < 1e-5);
