## ski_files.m -- the Octave twin of ski_files.R: SKI-GSGP on a data set kept
## in several CSV files, their statistics computed by two worker processes
## (octave-cli children, a group of consecutive files each; Ctrl-C kills
## them), merged in file order, then fitted from the statistics alone.
##
##   octave-cli inst/examples/ski_files.m
##   (with the scalegp package installed; from the source tree add
##   bindings_octave/inst and /src to the path)
if (isempty (which ("ski_stats")))
  pkg load scalegp
endif
folder = tempname ();   # the CSV files, removed at the end
mkdir (folder);
files = arrayfun (@(k) fullfile (folder, sprintf ("part%d.csv", k)), 1:4, "uniformoutput", false);
rand ("seed", 7); randn ("seed", 7);
for k = 1:4   # 4 files of 25000 rows: lon, lat, a response
  x = rand (25000, 2);
  y = sin (4 * x(:, 1)) .* cos (3 * x(:, 2)) + 0.1 * randn (25000, 1);
  fid = fopen (files{k}, "w");
  fprintf (fid, "lon,lat,response\n");
  fprintf (fid, "%.17g,%.17g,%.17g\n", [x, y].');
  fclose (fid);
endfor
grid = ski_grid ([0 0; 1 1], "grid_size", [40 40]);
stats = ski_stats (files, grid, "x", {"lon", "lat"}, "y", "response", "workers", 2,
                   "verbose", true);
## each worker sums a group of consecutive files in one pass; the groups are
## merged in order, so the run equals the two halves' statistics merged
again = ski_stats_merge (ski_stats (files(1:2), grid, "x", {"lon", "lat"}, "y", "response"),
                         ski_stats (files(3:4), grid, "x", {"lon", "lat"}, "y", "response"));
assert (isequal (again.WtW, stats.WtW) && isequal (again.Wty, stats.Wty));
disp ("2 workers and the two halves merged: the same statistics, bitwise");
fit = ski_gsgp ("stats", stats, "kernel", "matern52", "lengthscale", 0.3, "outputscale", 1,
                "noise", 0.01, "xtest", [0.25 0.5; 0.5 0.5; 0.75 0.5]);
disp ([fit.test.mean, sin(4 * [0.25; 0.5; 0.75]) * cos(1.5)]);
confirm_recursive_rmdir (false, "local");
rmdir (folder, "s");
