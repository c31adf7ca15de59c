## spatial_counts.m -- the Octave twin of vignette("spatial"): a point pattern
## as a log-Gaussian Cox process, then counts per cell with some cells hidden,
## fitted by ski_laplace with the hyperparameters learned.
##
##   octave-cli inst/examples/spatial_counts.m     (with the scalegp package
##   installed; from the source tree add bindings_octave/inst and /src to the path)
##
## Octave has no spatstat: instead of the bei trees, a pattern of the same
## size is drawn from a known intensity on the same 1000 m by 500 m plot, so
## the fits can be checked against the truth. The figures differ from the
## vignette's; what they show is the same.
if (isempty (which ("ski_laplace")))
  pkg load scalegp
endif

## A patchy intensity in trees per square metre, about 3600 trees in all
rand ("state", 1);  randn ("state", 1);
truth = @(x, y) exp (-5.3 + 1.5 * sin (x / 90) .* cos (y / 70) + 0.8 * cos ((x + y) / 150));
lmax = exp (-5.3 + 1.5 + 0.8);
n0 = randp (lmax * 1000 * 500);           # thinning a homogeneous pattern
xy = [1000 * rand(n0, 1), 500 * rand(n0, 1)];
xy = xy(rand (n0, 1) < truth (xy(:,1), xy(:,2)) / lmax, :);
printf ("%d points on a 1000 m x 500 m plot\n\n", rows (xy));

## Points layout: 64 x 32 cells of 15.625 m whose centres lie half a cell
## inside the plot (as for a spatstat window); the points' interpolation
## weights are the counts, the cells' areas the exposures. variance "none"
## skips the posterior variances at the 2048 cells (one solve each).
h = [1000 500] ./ [64 32];
bounds = [h(1)/2, 1000 - h(1)/2; h(2)/2, 500 - h(2)/2];
tic;
fit = ski_laplace (xy, [], "grid_size", [64 32], "grid_bounds", bounds,
                   "variance", "none", "seed", 1);
printf ("points layout, 64 x 32 grid: %.1f s\n", toc);
printf ("converged %d after %d evidence evaluations; log evidence %.1f +- %.1f (%s)\n",
        fit.converged, rows (fit.optim.evaluation), fit.loglik, fit.loglik_se,
        fit.used.loglik_method);
printf ("lengthscale %.2f m, outputscale %.4f, mean %.4f\n", fit.hyper.lengthscale,
        fit.hyper.outputscale, fit.hyper.mean);

## The intensity at the grid points (first coordinate fastest) against the truth
[gx, gy] = ndgrid (linspace (bounds(1,1), bounds(1,2), 64), linspace (bounds(2,1), bounds(2,2), 32));
est = reshape (exp (fit.weights), 64, 32);
tru = truth (gx, gy);
printf ("trees per hectare: fitted %.1f to %.1f, true %.1f to %.1f\n",
        1e4 * min (est(:)), 1e4 * max (est(:)), 1e4 * min (tru(:)), 1e4 * max (tru(:)));
printf ("log intensity: correlation with the truth %.3f, mean absolute error %.3f\n\n",
        corr (log (est(:)), log (tru(:))), mean (abs (log (est(:)) - log (tru(:)))));
## imagesc (gx(:,1), gy(1,:), log10 (1e4 * est)'); axis xy equal tight; colorbar

## Cells layout: counts in 32 x 16 cells of 31.25 m, 100 of them hidden (NaN),
## the cells' log areas as offsets
c = 1000 / 32;
ix = min (floor (xy(:,1) / c) + 1, 32);
iy = min (floor (xy(:,2) / c) + 1, 16);
counts = accumarray ([ix, iy], 1, [32 16]);
held = randperm (512, 100);
y = counts;
y(held) = NaN;
cbounds = [c/2, 1000 - c/2; c/2, 500 - c/2];
tic;
cf = ski_laplace ([], y, "offset", log (c^2) * ones (32, 16), "grid_bounds", cbounds,
                  "xtest", [100 100; 700 400], "seed", 1);
printf ("cells layout, 32 x 16 grid, %d observed: %.1f s\n", numel (cf.observed), toc);
printf ("lengthscale %.2f m, outputscale %.4f, mean %.4f; log evidence %.2f (%s)\n",
        cf.hyper.lengthscale, cf.hyper.outputscale, cf.hyper.mean, cf.loglik,
        cf.used.loglik_method);

## Poisson deviance on the hidden cells (smaller is better): the fit, a
## constant rate, and the true expected counts (the best any model can do
## on average)
deviance = @(y, mu) 2 * sum (y .* log (max (y, 1) ./ mu) .* (y > 0) - (y - mu));
[cx, cy] = ndgrid (((1:32) - 0.5) * c, ((1:16) - 0.5) * c);
mu_fit = c^2 * exp (cf.weights(held));
mu_true = c^2 * truth (cx(held), cy(held));
printf ("held-out deviance: ski_laplace %.1f, constant %.1f, truth %.1f\n",
        deviance (counts(held)(:), mu_fit(:)),
        deviance (counts(held)(:), mean (counts(setdiff (1:512, held))) * ones (100, 1)),
        deviance (counts(held)(:), mu_true(:)));
printf ("at (100, 100) and (700, 400): %.1f and %.1f trees per hectare (true %.1f and %.1f),",
        1e4 * cf.test.response, 1e4 * truth ([100 700], [100 400]));
printf (" sd of the log %.3f and %.3f\n", sqrt (cf.test.var));
