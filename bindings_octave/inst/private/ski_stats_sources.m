## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{s} =} ski_stats_sources (@var{sources}, @var{grid}, @var{opts})
## Private: ski_stats over chunk sources (file names or function handles that
## return @code{struct ("x", @dots{}, "y", @dots{})}).  The chunks are cut
## into as many groups of consecutive chunks as there are workers
## (@qcode{"workers"} local @command{octave-cli} processes,
## @code{ski_chunk_pool}: Ctrl-C kills them; or @code{netcellfun} over
## @qcode{"connections"} from @code{pconnect}, parallel package; else one group
## in this process); a group's blocks are added in order to one running
## accumulator (@code{ski_chunk_try}) and the core merges the groups in order.
## So the result is the statistics of the rows in memory, to the bit, in one
## group, and depends on the rows and the worker count only, not on the engine.
## A group with a failing chunk (or whose worker died) is redone once here,
## then the error names the chunk.  Rows of chunk k key the probes from
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
  width = 1;
  if (! isempty (own.connections))
    width = numel (own.connections);
  elseif (own.workers > 1)
    width = own.workers;
  endif
  width = max (1, min (K, width));
  cut = round (linspace (0, K, width + 1));   # groups of consecutive chunks
  groups = cell (1, width);
  for g = 1:width
    groups{g} = struct ("tasks", {tasks(cut(g)+1:cut(g+1))}, "ks", cut(g)+1:cut(g+1));
  endfor
  pool = [];
  unwind_protect
    if (isempty (own.connections) && width > 1)
      pool = ski_chunk_pool ("open", groups, width);
    elseif (! isempty (own.connections))
      batch = run_batch (own, groups);
    endif
    for g = 1:width
      ks = groups{g}.ks;
      if (! isempty (pool))
        [pool, r] = ski_chunk_pool ("result", pool, g);
      elseif (! isempty (own.connections))
        r = batch{g};
      else
        r = ski_chunk_try (groups{g});
      endif
      if (! r.ok)
        failed = ks;
        if (isfield (r, "at") && ! isempty (r.at))
          failed = ks(r.at);
        endif
        if (own.verbose)
          for k = failed
            printf ("%s: chunk %d (%s) failed (%s); retried here\n", fname, k,
                    info.source{k}, r.reason);
          endfor
        endif
        r = ski_chunk_try (groups{g});   # the group redone once, here
      endif
      if (! r.ok)
        k = ks(r.at);
        error ("scalegp:chunk-failed", "%s: chunk %d (%s) failed twice: %s", fname, k,
               info.source{k}, r.reason);
      endif
      if (isempty (s))
        s = r.stats;
      else
        s = ski_stats_merge (s, r.stats);
      endif
      for j = 1:numel (ks)
        k = ks(j);
        c = r.chunks(j);
        info.rows(k) = c.rows;
        info.used(k) = c.used;
        info.dropped(k) = numel (c.dropped);
        dropped{k} = c.dropped;
        if (own.verbose)
          printf ("%s: chunk %d/%d (%s): %d rows%s\n", fname, k, K, info.source{k}, c.rows,
                  if_else (isempty (c.dropped), "", sprintf (", %d dropped", numel (c.dropped))));
          fflush (stdout);
        endif
      endfor
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

## The groups on netcellfun's connections; a failure of the engine itself fails
## every group (each is then redone here).
function out = run_batch (own, tasks)
  try
    out = netcellfun (own.connections, @ski_chunk_try, tasks, "UniformOutput", false);
  catch err
    out = repmat ({struct("ok", false, "at", [], "reason", ["the worker failed: " err.message])}, ...
                  1, numel (tasks));
  end_try_catch
endfunction
