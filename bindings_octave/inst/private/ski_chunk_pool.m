## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{pool} =} ski_chunk_pool ("open", @var{tasks}, @var{width})
## @deftypefnx {} {[@var{pool}, @var{r}] =} ski_chunk_pool ("result", @var{pool}, @var{k})
## @deftypefnx {} {} ski_chunk_pool ("close", @var{pool})
## Private: ski_stats' local worker processes.  Each task (a group of
## chunks, @code{ski_chunk_try}) runs in an @command{octave-cli} child of its
## own (@code{__sgp_chunk_worker__}), at most @var{width} at a time and at
## most 2 @var{width} tasks ahead of the one the master merges; task and result travel as binary files in a temporary
## folder.  "result" waits for chunk @var{k} by polling (@code{waitpid} with
## WNOHANG between short pauses) because parcellfun's wait is a blocking read
## that SIGINT does not end: here Ctrl-C stops the wait at once, and "close"
## (also run when "result" is left by an interrupt or an error) kills the
## running children and removes the folder.  A worker that dies gives
## @var{r}.ok false with the reason, as a chunk that fails.
## @end deftypefn

function varargout = ski_chunk_pool (cmd, varargin)
  switch (cmd)
    case "open"
      varargout{1} = pool_open (varargin{:});
    case "result"
      [varargout{1:2}] = pool_result (varargin{:});
    case "close"
      pool_close (varargin{:});
  endswitch
endfunction

function pool = pool_open (tasks, width)
  pool.dir = tempname ();
  [ok, msg] = mkdir (pool.dir);
  if (! ok)
    error ("scalegp:io", "ski_stats: cannot make a folder for the workers' files: %s", msg);
  endif
  pool.tasks = tasks;
  pool.width = width;
  pool.pid = zeros (1, numel (tasks));     # a running child, until it is reaped
  pool.state = zeros (1, numel (tasks));   # 0 waiting, 1 running, 2 ended
  pool.status = zeros (1, numel (tasks));  # waitpid's status of an ended child
  pool.reason = cell (1, numel (tasks));   # why a chunk never reached a worker
  pool.exe = fullfile (OCTAVE_HOME (), "bin", "octave-cli");
  if (! exist (pool.exe, "file"))
    pool.exe = "octave-cli";
  endif
  ## the worker runs __sgp_chunk_worker__ from this package's folder, then
  ## takes the master's path and folder (function handles, relative file names)
  pool.inst = fileparts (fileparts (mfilename ("fullpath")));
  pool.where = struct ("path", path (), "pwd", pwd ());
endfunction

function [pool, r] = pool_result (pool, k)
  done = false;
  unwind_protect
    while (pool.state(k) != 2)
      next = find (pool.state == 0, 1);
      while (! isempty (next) && sum (pool.state == 1) < pool.width
             && next < k + 2 * pool.width)
        try
          pool.pid(next) = spawn (pool, next);
          pool.state(next) = 1;
        catch err   # e.g. a function handle that cannot be saved: run here instead
          pool.state(next) = 2;
          pool.reason{next} = ["the chunk could not be handed to a worker: " err.message];
        end_try_catch
        next = find (pool.state == 0, 1);
      endwhile
      for j = find (pool.state == 1)
        [p, st] = waitpid (pool.pid(j), WNOHANG);
        if (p != 0)   # ended (or, at -1, not our child any more)
          pool.state(j) = 2;
          pool.status(j) = if_else (p == pool.pid(j), st, -1);
          pool.pid(j) = 0;
        endif
      endfor
      if (pool.state(k) != 2)
        pause (0.05);
      endif
    endwhile
    r = read_result (pool, k);
    done = true;
  unwind_protect_cleanup
    if (! done)
      pool_close (pool);
    endif
  end_unwind_protect
endfunction

function pid = spawn (pool, k)
  task = pool.tasks{k};
  where = pool.where;
  [tf, rf, lf] = files_of (pool, k);
  save ("-binary", tf, "task", "where");
  run = sprintf ("addpath (%s); __sgp_chunk_worker__ (%s, %s);", oct_quote (pool.inst),
                 oct_quote (tf), oct_quote (rf));
  pid = system (["exec " sh_quote(pool.exe) " --no-gui --norc --no-history --eval " ...
                 sh_quote(run) " >" sh_quote(lf) " 2>&1"], false, "async");
  if (pid <= 0)
    error ("cannot start %s", pool.exe);
  endif
endfunction

function r = read_result (pool, k)
  [tf, rf, lf] = files_of (pool, k);
  if (! isempty (pool.reason{k}))
    r = struct ("ok", false, "reason", pool.reason{k});
  elseif (exist (rf, "file"))
    r = load (rf).r;
  else
    st = pool.status(k);
    if (st == -1)
      why = "the worker process was lost";
    elseif (WIFSIGNALED (st))
      why = sprintf ("the worker process was killed (signal %d)", WTERMSIG (st));
    else
      why = sprintf ("the worker process ended (status %d) without a result",
                     WEXITSTATUS (st));
    endif
    log = strtrim (fileread_or_empty (lf));
    if (! isempty (log))
      why = [why ": " strtrim(strsplit (log, "\n"){end})];
    endif
    r = struct ("ok", false, "reason", why);
  endif
  unlink_quiet (tf);
  unlink_quiet (rf);
  unlink_quiet (lf);
endfunction

function pool_close (pool)
  if (isempty (pool))
    return;
  endif
  ## only a child not yet reaped (0 from waitpid) is killed: its pid cannot have
  ## been reused (a stale copy of the pool may list reaped ones)
  for p = pool.pid(pool.pid > 0)
    if (waitpid (p, WNOHANG) == 0)
      kill (p, 9);   # SIGKILL: no Octave exit handlers, no octave-workspace dump
      waitpid (p);
    endif
  endfor
  for f = glob (fullfile (pool.dir, "*")).'
    unlink_quiet (f{1});
  endfor
  [~] = rmdir (pool.dir);
endfunction

function [tf, rf, lf] = files_of (pool, k)
  tf = fullfile (pool.dir, sprintf ("task%d.bin", k));
  rf = fullfile (pool.dir, sprintf ("result%d.bin", k));
  lf = fullfile (pool.dir, sprintf ("log%d.txt", k));
endfunction

function s = fileread_or_empty (f)
  s = "";
  if (exist (f, "file"))
    s = fileread (f);
  endif
endfunction

function unlink_quiet (f)
  if (exist (f, "file"))
    [~] = unlink (f);
  endif
endfunction

function q = oct_quote (s)
  q = ["'" strrep(s, "'", "''") "'"];
endfunction

function q = sh_quote (s)
  q = ["'" strrep(s, "'", "'\\''") "'"];
endfunction
