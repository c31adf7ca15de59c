## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## ski_stats over chunk sources (CSV files, HDF5 read in row blocks, function
## handles), in this process and in worker processes (a worker that dies, and
## Ctrl-C in the master, in child sessions).  Data are multiples of 2^-10
## and 2^-3, so a CSV round trip is exact and the oracles are bitwise: the
## statistics of the rows in memory (in this process), of each worker's group
## of chunks merged in order (workers): ski_grouped_stats.

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

%!test
%! ## CSV blocks of 40 rows, columns by name and by index
%! s = ski_stats (files, g, "x", {"u", "v"}, "y", "z", "block_rows", 40, "probes", 3);
%! assert_sources_stats (s, ski_grouped_stats (x, y, g, idx, 1, 3));
%! one = ski_stats (x, y, g);
%! for f = {"n", "yty", "ysum", "Wty", "Wt1", "WtW"}
%!   assert (isequal (s.(f{1}), one.(f{1})), f{1});
%! endfor
%! assert (s.chunks.rows, [100 100 100]);
%! s2 = ski_stats (files, g, "x", [1 2], "y", 3, "block_rows", 40, "probes", 3);
%! assert (isequal (s2.WtW, s.WtW));

%!test
%! ## 2 worker processes: chunks {1, 2} and {3}, each group's rows in memory
%! b = ski_stats (files, g, "x", [1 2], "y", 3, "probes", 2, "workers", 2);
%! assert_sources_stats (b, ski_grouped_stats (x, y, g, idx, 2, 2));
%! ## function handles, the same chunks
%! fns = cellfun (@(i) @() struct ("x", x(i, :), "y", y(i)), idx, "uniformoutput", false);
%! c = ski_stats (fns, g, "probes", 2, "workers", 2);
%! for f = fields
%!   assert (isequal (c.(f{1}), b.(f{1})), f{1});
%! endfor

%!test
%! ## HDF5 (Octave's save -hdf5) read in hyperslabs of 64 rows, here and in workers
%! h5 = {[tempname() ".h5"], [tempname() ".h5"]};
%! inputs = x(1:100, :); resp = y(1:100); xt = inputs';
%! save ("-hdf5", h5{1}, "inputs", "resp", "xt");
%! inputs = x(101:300, :); resp = y(101:300);
%! save ("-hdf5", h5{2}, "inputs", "resp");
%! s = ski_stats (h5, g, "x", "inputs", "y", "resp", "block_rows", 64, "probes", 3);
%! assert_sources_stats (s, ski_grouped_stats (x, y, g, {1:100, 101:300}, 1, 3));
%! assert (s.chunks.rows, [100 200]);
%! w = ski_stats (h5, g, "x", "inputs", "y", "resp", "block_rows", 64, "probes", 3, "workers", 2);
%! assert_sources_stats (w, ski_grouped_stats (x, y, g, {1:100, 101:300}, 2, 3));
%! try
%!   ski_stats (h5, g, "x", "inputs", "y", "nope");
%!   error ("no error");
%! catch err
%!   assert (err.message, sprintf ("ski_stats: chunk 1 (%s) failed twice: %s: the file has no dataset 'nope'", h5{1}, h5{1}));
%! end_try_catch
%! try
%!   ski_stats (h5(1), g, "x", "xt", "y", "resp");
%!   error ("no error");
%! catch err
%!   assert (strncmp (err.message, sprintf ("ski_stats: chunk 1 (%s) failed twice: %s: dataset 'xt' (x) has 2 rows but 'resp' (y) has 100 values", h5{1}, h5{1}), 120));
%! end_try_catch
%! cellfun (@delete, h5);

%!test
%! ## 40 files of 50 rows: the statistics of the rows in memory, to the bit, in
%! ## this process; with 2 workers, those of files 1-20 and 21-40 merged
%! rand ("seed", 9);
%! n = 2000;
%! xs = round (rand (n, 2) * 1024) / 1024;
%! ys = round (8 * (sin (5 * xs(:, 1)) + xs(:, 2))) / 8;
%! g3 = ski_grid ([0 0; 1 1], "grid_size", [16 12]);   # n < 16 m: the tap pass in memory
%! fs = cell (1, 40);
%! for k = 1:40
%!   fs{k} = [tempname() ".csv"];
%!   fid = fopen (fs{k}, "w");
%!   fprintf (fid, "u,v,z\n");
%!   fprintf (fid, "%.17g,%.17g,%.17g\n", [xs(50*k-49:50*k, :), ys(50*k-49:50*k)].');
%!   fclose (fid);
%! endfor
%! one = ski_stats (xs, ys, g3);
%! two = ski_stats_merge (ski_stats (xs(1:1000, :), ys(1:1000), g3),
%!                        ski_stats (xs(1001:end, :), ys(1001:end), g3));
%! s = ski_stats (fs, g3, "x", [1 2], "y", 3);
%! w = ski_stats (fs, g3, "x", [1 2], "y", 3, "workers", 2);
%! for f = {"n", "yty", "ysum", "Wty", "Wt1", "WtW"}
%!   assert (isequal (s.(f{1}), one.(f{1})), f{1});
%!   assert (isequal (w.(f{1}), two.(f{1})), f{1});
%! endfor
%! assert (w.chunks.used, 50 * ones (1, 40));
%! cellfun (@delete, fs);

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
%!   assert (err.message, sprintf ("ski_stats: chunk 2 (%s) failed twice: %s: line 3 (data row 2), field 2 is not a number (\"oops\")", bad, bad));
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

%!test
%! ## a worker that dies (it kills its own process) is replaced by a retry here;
%! ## a chunk that also fails here is named with the reason of the retry
%! master = getpid ();
%! dies = @() {kill(getpid (), 9 * (getpid () != master)), struct("x", x(1:150, :), "y", y(1:150))}{2};
%! good = @() struct ("x", x(151:300, :), "y", y(151:300));
%! out = evalc ("s = ski_stats ({dies, good}, g, 'workers', 2, 'probes', 2, 'verbose', true);");
%! assert (! isempty (strfind (out, "chunk 1 (function 1) failed (the worker process was killed (signal 9)); retried here")));
%! ref = ski_grouped_stats (x, y, g, {1:150, 151:300}, 2, 2);
%! assert_sources_stats (s, ref);
%! ## a chunk that cannot be saved for a worker (its handle holds a classdef object) runs here
%! m = containers.Map ("n", 150);
%! here = @() struct ("x", x(1:m("n"), :), "y", y(1:m("n")));
%! t = ski_stats ({here, good}, g, "workers", 2, "probes", 2);
%! assert_sources_stats (t, ref);
%! broken = @() {kill(getpid (), 9 * (getpid () != master)), error("still broken")}{2};
%! try
%!   ski_stats ({broken, good}, g, "workers", 2);
%!   error ("no error");
%! catch err
%!   assert (err.message, "ski_stats: chunk 1 (function 1) failed twice: still broken");
%! end_try_catch

%!function [stop_s, log] = interrupt_session (group)
%!  ## An interactive octave-cli child runs ski_stats with 2 workers over chunks
%!  ## that take a minute, gets SIGINT (to it alone, as a GUI sends it, or to
%!  ## its process group, as a terminal's Ctrl-C), then runs ski_stats again.
%!  ## stop_s: seconds from the signal to its next command; the workers must be
%!  ## gone by then.
%!  d = tempname ();
%!  mkdir (d);
%!  fid = fopen (fullfile (d, "slow_chunk.m"), "w");   # says it started, then sleeps
%!  fprintf (fid, "function c = slow_chunk (d)\n  fclose (fopen (fullfile (d, sprintf ('w%%d', getpid ())), 'w'));\n  pause (60);\n  c = struct ('x', 0.5, 'y', 1);\nendfunction\n");
%!  fclose (fid);
%!  q = @(s) ["'" strrep(s, "'", "''") "'"];
%!  fid = fopen (fullfile (d, "session.m"), "w");
%!  fprintf (fid, "path (%s); addpath (%s); g = ski_grid ([0 1], 'grid_size', 10);\n", q (path ()), q (d));
%!  fprintf (fid, "s = ski_stats ({@() slow_chunk (%s), @() slow_chunk (%s)}, g, 'workers', 2);\n", q (d), q (d));
%!  fprintf (fid, "printf ('interrupted\\n'); fflush (stdout);\n");
%!  fprintf (fid, "s = ski_stats ({@() struct ('x', 0.5, 'y', 1), @() struct ('x', 0.25, 'y', 2)}, g, 'workers', 2);\n");
%!  fprintf (fid, "printf ('usable %%d\\n', s.n); fflush (stdout); exit\n");
%!  fclose (fid);
%!  log = fullfile (d, "session.log");
%!  exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%!  ## setsid (no fork: the shell's exec'd process leads no group) gives the child its own group
%!  child = system (sprintf ("exec %s'%s' --no-gui --norc --no-history --interactive --no-line-editing < '%s' > '%s' 2>&1",
%!                           if_else (group, "setsid ", ""), exe, fullfile (d, "session.m"), log), false, "async");
%!  unwind_protect
%!    t0 = tic ();
%!    while (numel (glob (fullfile (d, "w*"))) < 2 && toc (t0) < 120)
%!      pause (0.1);
%!    endwhile
%!    [~, names] = cellfun (@fileparts, glob (fullfile (d, "w*")), "uniformoutput", false);
%!    workers = str2double (strrep (names, "w", ""));
%!    assert (numel (workers), 2);
%!    kill (if_else (group, -child, child), 2);
%!    t1 = tic ();
%!    while (isempty (strfind (fileread (log), "interrupted")) && toc (t1) < 90)
%!      pause (0.05);
%!    endwhile
%!    stop_s = toc (t1);
%!    for p = workers(:).'
%!      assert (kill (p, 0) != 0, "a worker is still running");
%!    endfor
%!    while (isempty (strfind (fileread (log), "usable")) && toc (t1) < 120)
%!      pause (0.1);
%!    endwhile
%!    log = fileread (log);
%!  unwind_protect_cleanup
%!    kill (child, 9);
%!    waitpid (child);
%!    confirm_recursive_rmdir (false, "local");
%!    rmdir (d, "s");
%!  end_unwind_protect
%!endfunction
%!function r = if_else (c, a, b)
%!  if (c) r = a; else r = b; endif
%!endfunction

%!test
%! ## Ctrl-C during chunks that take a minute: the workers are killed at once
%! ## (not retried here) and the session goes on, whoever gets the signal
%! if (ispc ())
%!   return;
%! endif
%! for group = [false true]
%!   [stop_s, log] = interrupt_session (group);
%!   assert (stop_s < 5, sprintf ("ski_stats took %.1f s to stop (group %d)", stop_s, group));
%!   assert (! isempty (strfind (log, "usable 2")), log);
%! endfor

%!test
%! ## last: the shared CSV files removed
%! cellfun (@delete, files);
