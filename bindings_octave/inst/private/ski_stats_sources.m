## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} ski_stats_sources (@var{sources}, @var{grid}, @var{opts})
## Private: ski_stats over chunk sources (file names or function handles that
## return @code{struct ("x", @dots{}, "y", @dots{})}).  Each chunk's statistics
## are computed by @qcode{"workers"} local @command{octave-cli} processes
## (@code{ski_chunk_pool}: Ctrl-C kills them), by @code{netcellfun} over
## @qcode{"connections"} (from @code{pconnect}, parallel package) in batches of
## the connection count, else in this process, and merged by the core in chunk
## order, so the result is the same bitwise for a given set of chunks whatever
## the engine.  A failing chunk (or one whose worker died) is retried once
## here, then the error names it.  Rows of chunk k key the probes from
## (k - 1) 2^40 on (at most 8192 chunks).
## @end deftypefn

function s = ski_stats_sources (sources, grid, opts)
  fname = "ski_stats";
  if (ischar (sources))
    sources = cellstr (sources);
  endif
  sources = sources(:).';   # (a column of sources too)
  K = numel (sources);
  if (K > 8192)
    arg_error (fname, "sources", "has %d chunks; at most 8192", K);
  endif
  [own, rest] = split_source_options (opts, fname);
  grid = __sgp_call__ ("ski_grid_check", grid, fname, "grid");
  if (isempty (own.block_rows)) # a block's numbers about as many as the statistics'
    [m, S] = __sgp_call__ ("ski_shape", grid.size, grid.bounds, grid.interpolation, fname);
    own.block_rows = max (1e4, ceil (m * S / (numel (grid.size) + 1)));
  endif
  drop = any (strcmpi (rest(1:2:end), "bounds_policy")) ...
         && strcmpi (rest{find (strcmpi (rest(1:2:end), "bounds_policy"), 1) * 2}, "drop");
  tasks = cell (1, K);
  for k = 1:K
    tasks{k} = struct ("k", k, "source", {sources{k}}, "x", {own.x}, "y", {own.y},
                       "grid", grid, "opts", {rest}, "block_rows", own.block_rows,
                       "drop", drop);
  endfor
  s = [];
  labels = cellfun (@source_label, sources, num2cell (1:K), "uniformoutput", false);
  info = struct ("source", {labels}, "rows", zeros (1, K), "used", zeros (1, K),
                 "dropped", zeros (1, K));
  dropped = cell (1, K);
  pool = [];
  unwind_protect
    if (isempty (own.connections) && own.workers > 1 && K > 1)
      pool = ski_chunk_pool ("open", tasks, own.workers);
    endif
    for k = 1:K
      if (! isempty (pool))
        [pool, r] = ski_chunk_pool ("result", pool, k);
      elseif (! isempty (own.connections))
        w = numel (own.connections);
        if (mod (k - 1, w) == 0)
          batch = run_batch (own, tasks(k:min (K, k + w - 1)));
        endif
        r = batch{mod (k - 1, w) + 1};
      else
        r = ski_chunk_try (tasks{k});
      endif
      if (! r.ok)
        if (own.verbose)
          printf ("%s: chunk %d (%s) failed (%s); retried here\n", fname, k,
                  info.source{k}, r.reason);
        endif
        r = ski_chunk_try (tasks{k});   # retried once, here
      endif
      if (! r.ok)
        error ("scalegp:chunk-failed", "%s: chunk %d (%s) failed twice: %s", fname, k,
               info.source{k}, r.reason);
      endif
      if (isempty (s))
        s = r.stats;
      else
        s = ski_stats_merge (s, r.stats);
      endif
      info.rows(k) = r.rows;
      info.used(k) = r.stats.n;
      info.dropped(k) = numel (r.dropped);
      dropped{k} = r.dropped;
      if (own.verbose)
        printf ("%s: chunk %d/%d (%s): %d rows%s\n", fname, k, K, info.source{k}, r.rows,
                if_else (isempty (r.dropped), "", sprintf (", %d dropped", numel (r.dropped))));
        fflush (stdout);
      endif
    endfor
  unwind_protect_cleanup
    ski_chunk_pool ("close", pool);   # on Ctrl-C or an error: the running workers killed
  end_unwind_protect
  s.chunks = info;
  s.dropped = dropped;
endfunction

function label = source_label (src, k)
  if (ischar (src))
    label = src;
  else
    label = sprintf ("function %d", k);
  endif
endfunction

## The options of the sources call; the rest go to every block's ski_stats.
function [own, rest] = split_source_options (opts, fname)
  own = struct ("x", [], "y", [], "workers", 1, "connections", [], "block_rows", [],
                "verbose", false);
  rest = {};
  if (mod (numel (opts), 2))
    error ("scalegp:invalid-argument", "%s: options must be name/value pairs", fname);
  endif
  for i = 1:2:numel (opts)
    name = opts{i};
    if (! ischar (name))
      error ("scalegp:invalid-argument", "%s: option %d is not a name", fname, i);
    endif
    switch (lower (name))
      case {"x", "y", "connections"}
        own.(lower (name)) = opts{i+1};
      case "workers"
        own.workers = check_count (opts{i+1}, fname, "workers");
      case "block_rows"
        own.block_rows = check_count (opts{i+1}, fname, "block_rows");
        if (own.block_rows < 1)
          arg_error (fname, "block_rows", "must be a whole number >= 1 (got %g)", own.block_rows);
        endif
      case "verbose"
        own.verbose = check_flag (opts{i+1}, fname, "verbose");
      otherwise
        rest(end+1:end+2) = opts(i:i+1);
    endswitch
  endfor
endfunction

## A batch on netcellfun's connections; a failure of the engine itself fails
## every chunk of the batch (each is then retried here).
function out = run_batch (own, tasks)
  try
    out = netcellfun (own.connections, @ski_chunk_try, tasks, "UniformOutput", false);
  catch err
    out = repmat ({struct("ok", false, "reason", ["the worker failed: " err.message])}, ...
                  1, numel (tasks));
  end_try_catch
endfunction
