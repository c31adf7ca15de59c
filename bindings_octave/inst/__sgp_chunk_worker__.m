## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {} __sgp_chunk_worker__ (@var{taskfile}, @var{resultfile})
## Private (not in the INDEX): the body of one of ski_stats' worker processes
## (@command{octave-cli --eval}, started by @code{private/ski_chunk_pool}).
## Takes the master's path and folder from @var{taskfile}, computes the
## statistics of its group of chunks (@code{ski_chunk_try}: its failures
## become a result) and writes @var{resultfile} whole or not at all (written
## aside, then renamed).
## @end deftypefn

function __sgp_chunk_worker__ (taskfile, resultfile)
  ## the master kills a worker with SIGKILL; no octave-workspace files either way
  crash_dumps_octave_core (false);
  sighup_dumps_octave_core (false);
  sigterm_dumps_octave_core (false);
  where = load (taskfile, "where").where;
  path (where.path);   # before the task: its function handles may need it
  cd (where.pwd);
  task = load (taskfile, "task").task;
  r = ski_chunk_try (task);
  save ("-binary", [resultfile ".part"], "r");
  [err, msg] = rename ([resultfile ".part"], resultfile);
  if (err)
    error ("__sgp_chunk_worker__: cannot write the result: %s", msg);
  endif
endfunction
