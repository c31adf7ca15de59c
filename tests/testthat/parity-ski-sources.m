## The Octave side of test-parity-ski-sources.R: ski_stats over the files R
## wrote (in $SCALEGP_PARITY_SOURCES), with the same options, one thread.
fid = fopen (OUT, "w");
dir = getenv ("SCALEGP_PARITY_SOURCES");
csv = {fullfile(dir, "a1.csv"), fullfile(dir, "a2.csv")};
h5 = {fullfile(dir, "b1.h5"), fullfile(dir, "b2.h5")};
g = ski_grid ([0 0; 1 1], "grid_size", [12 10]);
o = {"block_rows", 64, "probes", 2, "threads", 1};
h = ski_stats (h5, g, "x", "inputs", "y", "resp", o{:});
c = ski_stats (csv, g, "x", {"u", "v"}, "y", "z", o{:});
emit (fid, "grid.bounds", g.bounds);
for f = {"n", "yty", "ysum", "Wty", "Wt1", "WtW", "Wtz", "rhoz"}
  emit (fid, ["h5." f{1}], h.(f{1}));
  emit (fid, ["csv." f{1}], c.(f{1}));
endfor
emit (fid, "h5.rows", h.chunks.rows);
emit_error (fid, "h5.err.missing", @() ski_stats (h5(1), g, "x", "inputs", "y", "nope"));
fclose (fid);
