## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{r} =} ski_chunk_try (@var{task})
## Private: one chunk's statistics (run by a worker): its row blocks, each
## with its own @qcode{"first_row"} key, merged in order; @var{r}.ok false
## with @var{r}.reason when anything failed.
## @end deftypefn

function r = ski_chunk_try (task)
  r = struct ("ok", false, "reason", "", "stats", [], "rows", 0, "dropped", []);
  try
    [r.stats, r.rows, r.dropped] = chunk_stats (task);
    r.ok = true;
  catch err
    r.reason = err.message;
  end_try_catch
endfunction

function [acc, rows, dropped] = chunk_stats (task)
  src = task.source;
  acc = [];
  rows = 0;
  dropped = zeros (0, 1);
  if (is_function_handle (src))
    c = src ();
    if (! isstruct (c) || ! all (isfield (c, {"x", "y"})))
      error ("the function must return struct (\"x\", <inputs>, \"y\", <responses>)");
    endif
    [acc, rows, dropped] = add_block (task, acc, rows, dropped, c.x, c.y);
  elseif (! ischar (src) || ! exist (src, "file"))
    error ("cannot read the file (it does not exist)");
  elseif (regexpi (src, '\.(h5|hdf5)$'))
    [acc, rows, dropped] = hdf5_blocks (task);
  else
    [acc, rows, dropped] = csv_blocks (task);
  endif
  if (isempty (acc))
    error ("the chunk has no rows");
  endif
endfunction

## HDF5 read in row blocks, each a hyperslab of the datasets (__sgp_call__ ("h5_rows")):
## one block in memory at a time, as for CSV.
function [acc, rows, dropped] = hdf5_blocks (task)
  if (! ischar (task.x) || ! ischar (task.y))
    error ("for HDF5 files, 'x' and 'y' name datasets");
  endif
  acc = [];
  rows = 0;
  dropped = zeros (0, 1);
  n = __sgp_call__ ("h5_rows", task.source, task.x, task.y);
  while (rows < n)
    [x, y] = __sgp_call__ ("h5_rows", task.source, task.x, task.y, rows, task.block_rows);
    [acc, rows, dropped] = add_block (task, acc, rows, dropped, x, y);
  endwhile
endfunction

## CSV read in row blocks from one open file (fscanf continues where it
## stopped); a field that does not parse is an error naming its row.
function [acc, rows, dropped] = csv_blocks (task)
  acc = [];
  rows = 0;
  dropped = zeros (0, 1);
  if (isempty (task.x) || isempty (task.y))
    error ("files need 'x' (input columns) and 'y' (the response column)");
  endif
  fid = fopen (task.source, "r");
  if (fid < 0)
    error ("cannot open the file");
  endif
  unwind_protect
    header = strtrim (strrep (strsplit (fgetl (fid), ","), '"', ""));
    xi = columns_of (task.x, header, "x");
    yi = columns_of (task.y, header, "y");
    if (numel (yi) != 1)
      error ("'y' must name one column");
    endif
    nc = numel (header);
    fmt = [repmat("%f,", 1, nc - 1), "%f"];   # fscanf rounds correctly (textscan does not)
    while (true)
      [data, count] = fscanf (fid, fmt, [nc, task.block_rows]);
      got = floor (count / nc);
      if (mod (count, nc) || (got < task.block_rows && ! feof (fid)))
        error ("row %d does not parse as numbers", rows + got + 2);
      endif
      if (got == 0)
        break;
      endif
      data = data(:, 1:got).';
      [acc, rows, dropped] = add_block (task, acc, rows, dropped, data(:, xi), data(:, yi));
      if (got < task.block_rows)
        break;
      endif
    endwhile
  unwind_protect_cleanup
    fclose (fid);
  end_unwind_protect
endfunction

function idx = columns_of (sel, header, arg)
  if (ischar (sel) || iscellstr (sel))
    [ok, idx] = ismember (cellstr (sel), header);
  else
    idx = sel(:).';
    ok = idx >= 1 & idx <= numel (header) & idx == round (idx);
  endif
  if (isempty (idx) || ! all (ok))
    bad = find (! ok, 1);
    if (iscell (sel) || ischar (sel))
      what = cellstr (sel){bad};
    else
      what = num2str (sel(bad));
    endif
    error ("'%s' names a column the file does not have (%s); it has %s", arg, what,
           strjoin (header, ", "));
  endif
endfunction

function [acc, rows, dropped] = add_block (task, acc, rows, dropped, x, y)
  g = task.grid;
  s = ski_stats (x, y, g, task.opts{:}, "first_row", (task.k - 1) * 2^40 + rows,
                 "verbose", false);
  if (task.drop)
    dropped = [dropped; rows + __sgp_call__("ski_outside", x, g.size, g.bounds, g.interpolation)];
  endif
  if (isempty (acc))
    acc = s;
  else
    acc = ski_stats_merge (acc, s);
  endif
  rows += size (x, 1);
endfunction
