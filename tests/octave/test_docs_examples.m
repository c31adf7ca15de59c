## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## The documentation's code runs: every %!demo block of the package's
## functions, through Octave's own demo command, and every example script in
## inst/examples/*.m, each in an octave-cli child (as a user runs it) that
## must exit with status 0.  The demos draw into an invisible figure, so they
## need a graphics toolkit (a run-time skip without one).

%!function d = examples_dir ()
%!  ## run_all.m sets SCALEGP_EXTDATA to inst/extdata; else run from the root
%!  x = getenv ("SCALEGP_EXTDATA");
%!  if (isempty (x))
%!    x = fullfile (pwd (), "inst", "extdata");
%!  endif
%!  d = fullfile (fileparts (x), "examples");
%!endfunction

%!function run_example (name)
%!  ## the child gets this session's path (the package, installed or built in
%!  ## the tree) and runs in a folder of its own; its output is shown on failure
%!  script = fullfile (examples_dir (), [name ".m"]);
%!  assert (exist (script, "file") == 2, "no example %s", script);
%!  d = tempname ();
%!  mkdir (d);
%!  q = @(s) ["'" strrep(s, "'", "''") "'"];
%!  p = strjoin (cellfun (@make_absolute_filename, strsplit (path (), pathsep ()),
%!                        "uniformoutput", false), pathsep ());
%!  code = sprintf ("path (%s); cd (%s); run (%s);", q (p), q (d), q (script));
%!  fid = fopen (fullfile (d, "session.m"), "w");
%!  fprintf (fid, "%s\n", code);
%!  fclose (fid);
%!  exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%!  unwind_protect
%!    [status, out] = system (sprintf ("timeout -k 5 600 '%s' --no-gui --norc --no-history '%s' 2>&1",
%!                                     exe, fullfile (d, "session.m")));
%!    if (status != 0)
%!      error ("example %s exited with status %d:\n%s", name, status, out);
%!    endif
%!  unwind_protect_cleanup
%!    confirm_recursive_rmdir (false, "local");
%!    rmdir (d, "s");
%!  end_unwind_protect
%!endfunction

## every example script is one of these tests
%!test
%! have = sort (cellfun (@(f) f(1:end-2), {dir(fullfile (examples_dir (), "*.m")).name},
%!                       "uniformoutput", false));
%! assert (have, {"getting_started", "ski_big_data", "ski_chunks", "ski_files", ...
%!                "spatial_counts", "valla_boston"});

%!test run_example ("getting_started");
%!test run_example ("ski_big_data");
%!test run_example ("ski_chunks");
%!test run_example ("ski_files");
%!test run_example ("spatial_counts");
%!test run_example ("valla_boston");

## the demos: `demo name k` for every demo block of every function of the
## package (demo itself catches an error and prints "failed")
%!testif ; ! isempty (available_graphics_toolkits ())
%! warning ("off", "Octave:gnuplot-graphics", "local");
%! tk = available_graphics_toolkits ();
%! graphics_toolkit (tk{1});
%! fig = figure ("visible", "off");
%! unwind_protect
%!   inst = fileparts (which ("gp_laplace"));
%!   names = cellfun (@(f) f(1:end-2), {dir(fullfile (inst, "*.m")).name}, "uniformoutput", false);
%!   ran = {};
%!   for i = 1:numel (names)
%!     [~, idx] = test (names{i}, "grabdemo");
%!     for k = 1:numel (idx) - 1
%!       out = evalc (sprintf ("demo ('%s', %d)", names{i}, k));
%!       assert (isempty (strfind (out, sprintf ("%s example %d: failed", names{i}, k))),
%!               "demo %s %d failed:\n%s", names{i}, k, out);
%!       ran{end+1} = sprintf ("%s %d", names{i}, k);
%!     endfor
%!   endfor
%!   ## the demos the help pages show are all there
%!   assert (all (ismember ({"gp_laplace 1", "gp_laplace 2", "ski_gsgp 1", "ski_gsgp 2"}, ran)));
%! unwind_protect_cleanup
%!   close (fig);
%! end_unwind_protect
