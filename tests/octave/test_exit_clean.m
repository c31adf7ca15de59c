## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## An octave-cli session that calls the oct-file (kernels, the three fits,
## threads, FFTW plans) exits cleanly: status 0 and nothing on stderr.
## Octave 7 itself prints "error: ignoring const execution_exception& while
## preparing to exit" when it cannot save its command history at exit (its
## folder, $XDG_DATA_HOME/octave or ~/.local/share/octave, missing), in any
## session, scalegp or not: the children here get a HOME and XDG_DATA_HOME of
## their own, with the history's folder, and once without it but with
## --no-history.

%!function err = child_stderr (with_history)
%!  d = tempname ();
%!  mkdir (d);
%!  data = fullfile (d, "share");
%!  if (with_history)
%!    mkdir (fullfile (data, "octave"));
%!  endif
%!  q = @(s) ["'" strrep(s, "'", "''") "'"];
%!  p = strjoin (cellfun (@make_absolute_filename, strsplit (path (), pathsep ()),
%!                        "uniformoutput", false), pathsep ());
%!  fid = fopen (fullfile (d, "session.m"), "w");
%!  fprintf (fid, "path (%s);\n", q (p));
%!  fprintf (fid, "gp_kernel (rand (3, 1));\n");
%!  fprintf (fid, "x = linspace (0, 1, 50)'; y = sin (6 * x);\n");
%!  fprintf (fid, "f = gp_laplace (x, double (y > 0), 'learn', {}, 'verbose', false);\n");
%!  fprintf (fid, "s = ski_gsgp (x, y, 'lengthscale', 0.2, 'noise', 0.01, 'verbose', false);\n");
%!  fprintf (fid, "k = ski_laplace ([], [1 2 0; 3 1 2], 'lengthscale', 1, 'outputscale', 1, 'mean', 0, 'verbose', false);\n");
%!  fprintf (fid, "disp ('done');\n");
%!  fclose (fid);
%!  exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%!  unwind_protect
%!    env = sprintf ("HOME='%s' XDG_DATA_HOME='%s'", d, data);
%!    [status, out] = system (sprintf ("%s timeout -k 5 120 '%s' --no-gui --norc %s '%s' 2>'%s'",
%!                                     env, exe, if_else (with_history, "", "--no-history"),
%!                                     fullfile (d, "session.m"), fullfile (d, "stderr")));
%!    err = fileread (fullfile (d, "stderr"));
%!    assert (status == 0, "the child failed (status %d):\n%s%s", status, out, err);
%!    assert (strtrim (out), "done");
%!  unwind_protect_cleanup
%!    confirm_recursive_rmdir (false, "local");
%!    rmdir (d, "s");
%!  end_unwind_protect
%!endfunction
%!function r = if_else (c, a, b)
%!  if (c) r = a; else r = b; endif
%!endfunction

%!test
%! err = child_stderr (true);
%! assert (isempty (strfind (err, "ignoring")), "stderr: %s", err);
%! assert (strtrim (err), "");
%!test
%! err = child_stderr (false);
%! assert (isempty (strfind (err, "ignoring")), "stderr: %s", err);
%! assert (strtrim (err), "");
