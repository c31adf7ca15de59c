## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## ski_stats over chunk sources (CSV files, HDF5, function handles), in this
## process and with parcellfun (parallel package).  Data are multiples of 2^-10
## and 2^-3, so a CSV round trip is exact and the oracles are bitwise: the
## statistics of the same row blocks with the same first_row keys, each
## chunk's blocks merged in order, then the chunks in order.

%!shared x, y, g, files, idx, fields
%! rand ("seed", 5); randn ("seed", 5);
%! n = 300;
%! x = round (rand (n, 2) * 1024) / 1024;
%! y = round (8 * (sin (5 * x(:, 1)) + x(:, 2) + 0.2 * randn (n, 1))) / 8;
%! g = ski_grid ([0 0; 1 1], "grid_size", [12 10]);   # the range [0, 1]^2, padded
%! idx = {1:100, 101:200, 201:300};
%! files = cell (1, 3);
%! for k = 1:3
%!   files{k} = [tempname() ".csv"];
%!   fid = fopen (files{k}, "w");
%!   fprintf (fid, "u,v,z\n");
%!   fprintf (fid, "%.17g,%.17g,%.17g\n", [x(idx{k}, :), y(idx{k})].');
%!   fclose (fid);
%! endfor
%! fields = {"n", "yty", "ysum", "Wty", "Wt1", "WtW", "Wtz", "rhoz"};

%!function s = blockwise (x, y, g, idx, B, varargin)
%!  s = [];
%!  for k = 1:numel (idx)
%!    r = idx{k}; c = [];
%!    for o = 0:B:numel (r) - 1
%!      b = r(o+1:min (numel (r), o + B));
%!      t = ski_stats (x(b, :), y(b), g, "first_row", (k - 1) * 2^40 + o, varargin{:});
%!      if (isempty (c)) c = t; else c = ski_stats_merge (c, t); endif
%!    endfor
%!    if (isempty (s)) s = c; else s = ski_stats_merge (s, c); endif
%!  endfor
%!endfunction

%!test
%! ## CSV blocks of 40 rows, columns by name and by index
%! s = ski_stats (files, g, "x", {"u", "v"}, "y", "z", "block_rows", 40, "probes", 3);
%! ref = blockwise (x, y, g, idx, 40, "probes", 3);
%! for f = fields
%!   assert (isequal (s.(f{1}), ref.(f{1})), f{1});
%! endfor
%! assert (s.chunks.rows, [100 100 100]);
%! s2 = ski_stats (files, g, "x", [1 2], "y", 3, "block_rows", 40, "probes", 3);
%! assert (isequal (s2.WtW, s.WtW));

%!test
%! ## parcellfun with 2 workers gives the same statistics bitwise
%! pkg load parallel
%! a = ski_stats (files, g, "x", [1 2], "y", 3, "probes", 2);
%! b = ski_stats (files, g, "x", [1 2], "y", 3, "probes", 2, "workers", 2);
%! for f = fields
%!   assert (isequal (a.(f{1}), b.(f{1})), f{1});
%! endfor
%! ## function handles, the same chunks
%! fns = cellfun (@(i) @() struct ("x", x(i, :), "y", y(i)), idx, "uniformoutput", false);
%! c = ski_stats (fns, g, "probes", 2, "workers", 2);
%! for f = fields
%!   assert (isequal (c.(f{1}), a.(f{1})), f{1});
%! endfor

%!test
%! ## HDF5 written by Octave, read with load
%! h5 = [tempname() ".h5"];
%! inputs = x; resp = y;
%! save ("-hdf5", h5, "inputs", "resp");
%! s = ski_stats (h5, g, "x", "inputs", "y", "resp", "block_rows", 64);
%! ref = blockwise (x, y, g, {1:300}, 64);
%! assert (isequal (s.WtW, ref.WtW) && isequal (s.Wty, ref.Wty));

%!test
%! ## rows dropped by bounds_policy "drop", against one-row statistics
%! g2 = ski_grid ([0 0; 0.8 1], "grid_size", [12 10]);
%! fns = {@() struct("x", x(1:150, :), "y", y(1:150)), @() struct("x", x(151:300, :), "y", y(151:300))};
%! s = ski_stats (fns, g2, "bounds_policy", "drop");
%! ## (a 1-by-2 x would be read as two 1-D points: each row twice)
%! out = find (arrayfun (@(i) ski_stats (x([i i], :), y([i i]), g2, "bounds_policy", "drop").n == 0, 1:300));
%! assert (! isempty (out));
%! assert ([s.dropped{1}; 150 + s.dropped{2}], out(:));
%! assert (s.n, 300 - numel (out));

%!test
%! ## a corrupt file and a missing one are named
%! bad = [tempname() ".csv"];
%! fid = fopen (bad, "w"); fprintf (fid, "u,v,z\n0.1,0.2,1\n0.3,oops,2\n0.4,0.5,3\n"); fclose (fid);
%! try
%!   ski_stats ({files{1}, bad}, g, "x", [1 2], "y", 3);
%!   error ("no error");
%! catch err
%!   assert (err.message, sprintf ("ski_stats: chunk 2 (%s) failed twice: row 3 does not parse as numbers", bad));
%! end_try_catch
%! try
%!   ski_stats ({files{1}, @() error ("boom")}, g, "x", [1 2], "y", 3);
%!   error ("no error");
%! catch err
%!   assert (err.message, "ski_stats: chunk 2 (function 2) failed twice: boom");
%! end_try_catch
%! try
%!   ski_stats (files, g, "x", {"u", "w"}, "y", "z");
%!   error ("no error");
%! catch err
%!   assert (! isempty (strfind (err.message, "'x' names a column the file does not have (w)")));
%! end_try_catch
