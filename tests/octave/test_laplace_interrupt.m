## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## Ctrl-C during gp_laplace's learning stops the call within half a second and
## gives no fit, as in R. An interactive octave-cli child learns on n = 3000
## points (the exact evidence: an O(n^3) evaluation) and gets SIGINT past half of
## the third evaluation. An evaluation ended in dense factorizations (one LAPACK
## call each, seconds at this n on a small machine) that could not be stopped,
## and the learning took the interrupt for "stop learning" and went on.

%!function [stop_s, log] = interrupted_learning ()
%!  d = tempname ();
%!  mkdir (d);
%!  q = @(s) ["'" strrep(s, "'", "''") "'"];
%!  fid = fopen (fullfile (d, "session.m"), "w");
%!  fprintf (fid, "path (%s); rand ('seed', 1); randn ('seed', 1); n = 3000; x = rand (n, 2);\n", q (path ()));
%!  fprintf (fid, "y = double (sin (6 * x(:, 1)) + randn (n, 1) > 0);\n");
%!  fprintf (fid, "fit = gp_laplace (x, y, 'verbose', true, 'seed', 1); printf ('returned\\n');\n");
%!  fprintf (fid, "printf ('next %%d\\n', exist ('fit', 'var')); fflush (stdout); exit\n");
%!  fclose (fid);
%!  log = fullfile (d, "session.log");
%!  exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
%!  child = system (sprintf ("exec '%s' --no-gui --norc --no-history --interactive --no-line-editing < '%s' > '%s' 2>&1",
%!                           exe, fullfile (d, "session.m"), log), false, "async");
%!  unwind_protect
%!    ## the signal past half of the third evaluation, timed by the second, where
%!    ## an evaluation ends in its factorizations and the gradient
%!    t_seen = zeros (1, 2);
%!    t0 = tic ();
%!    for e = 1:2
%!      while (isempty (strfind (fileread_or_empty (log), sprintf ("learning: evaluation %d ", e)))
%!             && toc (t0) < 120)
%!        pause (0.01);
%!      endwhile
%!      t_seen(e) = toc (t0);
%!    endfor
%!    assert (t_seen(2) < 120, "no second evaluation within 120 s");
%!    pause (0.55 * (t_seen(2) - t_seen(1)));
%!    kill (child, 2);
%!    t1 = tic ();
%!    while (isempty (strfind (fileread_or_empty (log), "next")) && toc (t1) < 120)
%!      pause (0.01);
%!    endwhile
%!    stop_s = toc (t1);
%!    log = fileread_or_empty (log);
%!  unwind_protect_cleanup
%!    kill (child, 9);
%!    waitpid (child);
%!    confirm_recursive_rmdir (false, "local");
%!    rmdir (d, "s");
%!  end_unwind_protect
%!endfunction
%!function s = fileread_or_empty (f)
%!  s = "";
%!  if (exist (f, "file"))
%!    s = fileread (f);
%!  endif
%!endfunction

%!test
%! [stop_s, log] = interrupted_learning ();
%! assert (isempty (strfind (log, "Newton step")), log);  # the signal came during the learning
%! assert (isempty (strfind (log, "returned")), log);
%! assert (! isempty (strfind (log, "next 0")), log);      # no fit
%! ## the polls are at most about 1e9 flops apart (0.5 s is what we aim at); a
%! ## second leaves room for a loaded machine's scheduling
%! assert (stop_s < 1, sprintf ("stopped %.3f s after the signal", stop_s));
