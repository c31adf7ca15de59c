## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## Chunk sources that hold faults (as tests/testthat/test-ski-sources-reliability.R):
## each CSV line is read once, by position (a blank line is skipped, never a
## data row), anything else that is not the header's count of numbers is an
## error naming the file, the line and the data row, HDF5 errors name the
## file and the dataset, int64 values are the whole numbers they hold, and a
## chunk retried in the master says so.  Data are multiples of 2^-10 and
## 2^-3, so the CSV round trip is exact and the oracle is bitwise: the
## statistics of the same row blocks with the same first_row keys.

%!shared x, y, g, fields, hdr, row_text, grouped
%! rand ("seed", 9);
%! n = 1200;
%! x = round (rand (n, 2) * 1024) / 1024;
%! y = round (8 * (sin (5 * x(:, 1)) + x(:, 2))) / 8;
%! g = ski_grid ([0 0; 1 1], "grid_size", [12 10]);
%! fields = {"n", "yty", "ysum", "Wty", "Wt1", "WtW", "Wtz", "rhoz"};
%! hdr = "a,b,y";
%! row_text = @(r) arrayfun (@(i) sprintf ("%.17g,%.17g,%.17g", x(i, 1), x(i, 2), y(i)), r,
%!                           "uniformoutput", false);
%! grouped = @(idx, varargin) ski_grouped_stats (x, y, g, idx, varargin{:});

%!function fwrite_all (f, bytes)
%!  fid = fopen (f, "wb");
%!  fwrite (fid, bytes, "uchar");
%!  fclose (fid);
%!endfunction

## a file of the lines (each ending in "\n") and bytes `ins` after line `after`
%!function write_file (f, lines, ins, after)
%!  head = tail = "";
%!  if (after > 0)
%!    head = sprintf ("%s\n", lines{1:after});
%!  endif
%!  if (after < numel (lines))
%!    tail = sprintf ("%s\n", lines{after+1:end});
%!  endif
%!  fwrite_all (f, [head, ins, tail]);
%!endfunction

%!function msg = err_of (f)
%!  msg = "no error";
%!  try
%!    f ();
%!  catch e
%!    msg = e.message;
%!  end_try_catch
%!endfunction

%!test
%! ## blank lines, a whitespace-only line, "\r\n" endings and blank lines at the end
%! ## are skipped; here and in 2 worker processes, bitwise the groups in memory
%! f1 = [tempname() ".csv"]; f2 = [tempname() ".csv"];
%! write_file (f1, [{hdr}, row_text(1:600)], "\n", 301);          # after data row 300
%! L2 = [{hdr}, row_text(601:1200)];
%! L2(2:11) = cellfun (@(t) [t "\r"], L2(2:11), "uniformoutput", false);
%! write_file (f2, [L2(1:251), {" \t"}, L2(252:end), {""}], "", 0);
%! one = ski_stats (x, y, g);
%! for w = [1 2]
%!   s = ski_stats ({f1, f2}, g, "x", {"a", "b"}, "y", "y", "block_rows", 250, "probes", 2,
%!                  "workers", w);
%!   assert (s.n, 1200);
%!   assert (s.chunks.rows, [600 600]);
%!   assert_sources_stats (s, grouped ({1:600, 601:1200}, w, 2));
%!   assert (s.WtW, one.WtW, 1e-12 * max (abs (one.WtW(:))));
%! endfor
%! ## "\r\n" endings throughout, the last line without one
%! fwrite_all (f1, strjoin ([{hdr}, row_text(1:600)], "\r\n"));
%! s = ski_stats (f1, g, "x", [1 2], "y", 3, "block_rows", 250, "probes", 2);
%! assert_sources_stats (s, grouped ({1:600}, 1, 2));
%! delete (f1); delete (f2);

%!test
%! ## the report's file: 12000 rows, a blank line after row 6000, blocks of 5000
%! rand ("seed", 2);
%! n = 12000;
%! xb = round (rand (n, 2) * 1024) / 1024;
%! yb = round (8 * sin (5 * xb(:, 1))) / 8;
%! f = [tempname() ".csv"];
%! body = sprintf ("%.17g,%.17g,%.17g\n", [xb yb].');
%! cut = numel (sprintf ("%.17g,%.17g,%.17g\n", [xb(1:6000, :) yb(1:6000)].'));
%! fwrite_all (f, [hdr "\n" body(1:cut) "\n" body(cut+1:end)]);
%! for w = [1 2]
%!   s = ski_stats ({f, f}, g, "x", [1 2], "y", 3, "block_rows", 5000, "workers", w);
%!   assert (s.n, 2 * n);
%!   assert_sources_stats (s, ski_grouped_stats ([xb; xb], [yb; yb], g, {1:n, n+1:2*n}, w));
%! endfor
%! delete (f);

%!test
%! ## a line that is not 3 numbers: the file, the line and the data row, here and in workers
%! f1 = [tempname() ".csv"]; f2 = [tempname() ".csv"];
%! write_file (f1, [{hdr}, row_text(1:200)], "", 0);
%! rand ("seed", 3);
%! bad = {"# comment", " has 1 field; the header has 3";
%!        "0.5,0.5", " has 2 fields; the header has 3";
%!        "0.5,0.5,1,2", " has 4 fields; the header has 3";
%!        "0.5,,1", ", field 2 is empty";
%!        "0.5,oops,1", ", field 2 is not a number (\"oops\")";
%!        ["0.5,0.5,1" char(0)], " contains a NUL byte";
%!        char(128 + floor (rand (1, 30) * 128)), " has 1 field; the header has 3"};
%! for i = 1:rows (bad)
%!   write_file (f2, [{hdr}, row_text(201:400)], [bad{i, 1} "\n"], 151);
%!   want = sprintf ("ski_stats: chunk 2 (%s) failed twice: %s: line 152 (data row 151)%s",
%!                   f2, f2, bad{i, 2});
%!   for w = [1 2](1:1 + (i <= 3 || i == 6))
%!     got = err_of (@() ski_stats ({f1, f2}, g, "x", [1 2], "y", 3, "block_rows", 64,
%!                                  "workers", w));
%!     assert (got, want);
%!   endfor
%! endfor
%! ## random bytes anywhere (newlines and NULs included): an error naming a line
%! for seed = 1:5
%!   rand ("seed", seed);
%!   write_file (f2, [{hdr}, row_text(201:400)], char (floor (rand (1, 200) * 256)), 101);
%!   got = err_of (@() ski_stats ({f1, f2}, g, "x", [1 2], "y", 3, "block_rows", 64));
%!   want = ["failed twice: " regexptranslate("escape", f2) ": line 1[0-9][0-9] \\(data row [0-9]+\\)"];
%!   assert (! isempty (regexp (got, want, "once")), got);
%! endfor
%! delete (f1); delete (f2);

%!test
%! ## header-only, blank-headed, empty files; a column the file does not have
%! f = [tempname() ".csv"];
%! pre = sprintf ("ski_stats: chunk 1 (%s) failed twice: %s: ", f, f);
%! one = @() err_of (@() ski_stats (f, g, "x", {"a", "b"}, "y", "y"));
%! fwrite_all (f, "a,b,y\n");
%! assert (one (), [pre "the file has no data rows (only the header)"]);
%! fwrite_all (f, "a,b,y\n\n \n");
%! assert (one (), [pre "the file has no data rows (only the header)"]);
%! fwrite_all (f, "");
%! assert (one (), [pre "the file is empty"]);
%! fwrite_all (f, "\n1,2,3\n");
%! assert (one (), [pre "line 1 (the header) is blank"]);
%! write_file (f, [{hdr}, row_text(1:50)], "", 0);
%! assert (ski_stats (f, g, "x", {"a", "b"}, "y", "y").n, 50);
%! assert (err_of (@() ski_stats (f, g, "x", {"a", "w"}, "y", "y")),
%!         [pre "'x' names a column the file does not have (w); it has a, b, y"]);
%! delete (f);

%!test
%! ## an error in a later file's block names the file and the row, not an internal key
%! f1 = [tempname() ".csv"]; f2 = [tempname() ".csv"];
%! write_file (f1, [{hdr}, row_text(1:100)], "", 0);
%! L2 = [{hdr}, row_text(101:200)];
%! L2{4} = "0.25,3,1";   # data row 3 of file 2, outside the grid, after a blank line
%! write_file (f2, L2, "\n", 2);
%! got = err_of (@() ski_stats ({f1, f2}, g, "x", [1 2], "y", 3, "block_rows", 2));
%! assert (! isempty (strfind (got, sprintf ("failed twice: ski_stats: 'x' data row 3 (line 5 of %s), column 2 (3)", f2))), got);
%! assert (isempty (strfind (got, "1099511627")));
%! L2{4} = "0.25,0.5,NaN";
%! write_file (f2, L2, "", 0);
%! got = err_of (@() ski_stats ({f1, f2}, g, "x", [1 2], "y", 3));
%! assert (! isempty (strfind (got, sprintf ("'y' contains NaN or Inf (first at data row 3 (line 4 of %s))", f2))), got);
%! fns = {@() struct("x", x(1:5, :), "y", y(1:5)), @() struct("x", [x(1:2, :); 0.5 3], "y", y(1:3))};
%! got = err_of (@() ski_stats (fns, g));
%! assert (! isempty (strfind (got, "chunk 2 (function 2) failed twice: ski_stats: 'x' row 3 of the chunk, column 2")), got);
%! delete (f1); delete (f2);

%!test
%! ## HDF5: the file and the datasets named, never the library's report
%! f = [tempname() ".h5"];
%! xx = x; yy = y(1:1000); y2 = [y y]; x3 = 0.5 * ones (1200, 2, 2);
%! save ("-hdf5", f, "xx", "yy", "y2", "x3");
%! pre = sprintf ("ski_stats: chunk 1 (%s) failed twice: %s: ", f, f);
%! one = @(xs, ys) err_of (@() ski_stats (f, g, "x", xs, "y", ys));
%! assert (one ("xx", "yy"), [pre "dataset 'xx' (x) has 1200 rows but 'yy' (y) has 1000 values " ...
%!                            "(an n-by-d matrix written by R or Octave has the HDF5 dims {d, n})"]);
%! assert (one ("xx", "y2"), [pre "dataset 'y2' (y) is a 1200-by-2 matrix, not a vector"]);
%! assert (one ("x3", "yy"), [pre "dataset 'x3' has 3 dimensions; 'x' and 'y' must have 1 or 2"]);
%! assert (one ("xx", "nope"), [pre "the file has no dataset 'nope'"]);
%! t = [tempname() ".h5"];
%! fwrite_all (t, "a,b\n1,2\n");
%! assert (err_of (@() ski_stats (t, g, "x", "xx", "y", "yy")),
%!         sprintf ("ski_stats: chunk 1 (%s) failed twice: %s: the file is not an HDF5 file", t, t));
%! fid = fopen (f, "rb"); bytes = fread (fid, Inf, "uchar=>uchar").'; fclose (fid);
%! rand ("seed", 4);
%! for cut = {1000, 50, 800}
%!   b = bytes;
%!   if (cut{1} == 1000)
%!     b = b(1:1000);
%!   else
%!     b(cut{1}:cut{1} + 200) = floor (rand (1, 201) * 256);
%!   endif
%!   fwrite_all (t, b);
%!   got = err_of (@() ski_stats (t, g, "x", "xx", "y", "yy"));
%!   assert (! isempty (strfind (got, sprintf ("failed twice: %s: ", t))), got);
%!   assert (isempty (regexp (got, "HDF5-DIAG|H5[A-Z]|#0", "once")), got);
%! endfor
%! delete (f); delete (t);

%!test
%! ## int64 values are the whole numbers they hold (Octave's int64 converts exactly to 2^53)
%! assert (gp_kernel (int64 ([1; 5; 9]), "lengthscale", 3), gp_kernel ([1; 5; 9], "lengthscale", 3));
%! assert (gp_kernel (int64 (2^53) - int64 ([0; 2]), "lengthscale", 1),
%!         gp_kernel (2^53 - [0; 2], "lengthscale", 1));
%! xs = [3 0.25; 17 0.5; 29 0.75; 40 0.125]; ys = [2; 7; 1; 4];
%! g2 = ski_grid ([0 0; 40 1], "grid_size", [12 10]);
%! a = ski_stats (xs, ys, g2);
%! b = ski_stats (xs, int64 (ys), g2);
%! for f = fields
%!   assert (isequal (a.(f{1}), b.(f{1})), f{1});
%! endfor
%! rand ("seed", 5);
%! xl = rand (20, 1); cnt = floor (3 * rand (20, 1));
%! o = {"likelihood", "poisson", "lengthscale", 0.3, "outputscale", 1, "learn", {}, "seed", 1};
%! p = gp_laplace (xl, cnt, "offset", int64 (ones (20, 1)), o{:});
%! q = gp_laplace (xl, cnt, "offset", ones (20, 1), o{:});
%! assert (isequal (p.f, q.f));
%! pr = struct ("mean", [0 1 2], "var", [1 0.5 1]);
%! assert (valla_metrics (pr, int64 ([1 5 9])), valla_metrics (pr, [1 5 9]));

%!test
%! ## a chunk that fails in its worker is retried here, and the progress says so
%! master = getpid ();   # (a worker's y is one short: it fails the checks there)
%! fns = {@() struct("x", x(1:100, :), "y", y(1:100 - (getpid () != master))),
%!        @() struct("x", x(101:200, :), "y", y(101:200))};
%! out = evalc ("s = ski_stats (fns, g, \"workers\", 2, \"verbose\", true);");
%! assert (s.n, 200);
%! assert (! isempty (regexp (out, "ski_stats: chunk 1 \\(function 1\\) failed \\(ski_stats: 'y' has length 99 but 'x' has 100 rows\\); retried here", "once")), out);
%! assert (! isempty (strfind (out, "ski_stats: chunk 1/2 (function 1): 100 rows")), out);
