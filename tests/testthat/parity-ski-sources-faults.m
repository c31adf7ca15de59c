## The Octave side of test-ski-sources-reliability.R's parity test: the error of
## ski_stats over each faulty file R wrote (in $SCALEGP_PARITY_FAULTS, listed in
## its file "cases": a name and a file a line), after the good file for CSV.
fid = fopen (OUT, "w");
dir = getenv ("SCALEGP_PARITY_FAULTS");
g = ski_grid ([0 0; 1 1], "grid_size", [12 10]);
good = fullfile (dir, "good.csv");
cases = strsplit (strtrim (fileread (fullfile (dir, "cases"))), "\n");
for i = 1:numel (cases)
  c = strsplit (cases{i}, " ");
  f = fullfile (dir, c{2});
  if (regexp (f, '\.h5$'))
    emit_error (fid, c{1}, @() ski_stats (f, g, "x", "x", "y", "y"));
  else
    emit_error (fid, c{1}, @() ski_stats ({good, f}, g, "x", [1 2], "y", 3, "block_rows", 64));
  endif
endfor
fclose (fid);
