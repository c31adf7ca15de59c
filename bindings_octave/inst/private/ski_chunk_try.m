## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{r} =} ski_chunk_try (@var{group})
## Private: the statistics of a group of consecutive chunks (run by a worker):
## every row block of every chunk (@var{group}.tasks), each with its own
## @qcode{"first_row"} key, added in order to one running accumulator
## (@code{__sgp_call__ ("ski_acc")}), so a chunk costs what its rows cost and
## the group's statistics are those of its rows in memory, to the bit.
## @var{r}.chunks has each chunk's rows, used and dropped; @var{r}.ok false
## with @var{r}.reason when chunk @var{r}.at failed (the accumulator then
## holds part of it: the group is redone as a whole).
## @end deftypefn

function r = ski_chunk_try (group)
  r = struct ("ok", false, "at", 1, "reason", "", "stats", [], "chunks", []);
  acc = struct ("h", [], "n", 0);
  unwind_protect
    try
      chunks = struct ("rows", {}, "used", {}, "dropped", {});
      for j = 1:numel (group.tasks)
        r.at = j;
        task = group.tasks{j};
        if (isempty (acc.h))
          acc.h = __sgp_call__ ("ski_acc", "new", task.grid, task.opts{:}, "verbose", false);
        endif
        before = acc.n;
        [acc, rows, dropped] = chunk_stats (task, acc);
        chunks(j) = struct ("rows", rows, "used", acc.n - before, "dropped", dropped);
      endfor
      r.stats = __sgp_call__ ("ski_acc", "stats", acc.h, task.grid, task.opts{:},
                              "verbose", false);
      r.chunks = chunks;
      r.ok = true;
    catch err
      r.reason = err.message;
    end_try_catch
  unwind_protect_cleanup
    if (! isempty (acc.h))
      __sgp_call__ ("ski_acc", "free", acc.h);
    endif
  end_unwind_protect
endfunction

function [acc, rows, dropped] = chunk_stats (task, acc)
  src = task.source;
  rows = 0;
  dropped = zeros (0, 1);
  if (is_function_handle (src))
    c = src ();
    if (! isstruct (c) || ! all (isfield (c, {"x", "y"})))
      error ("the function must return struct (\"x\", <inputs>, \"y\", <responses>)");
    endif
    where = @(r, line) sprintf ("row %d of the chunk", r);
    [acc, rows, dropped] = add_block (task, acc, rows, dropped, c.x, c.y, [], where);
  elseif (! ischar (src) || ! exist (src, "file"))
    error ("cannot read the file (it does not exist)");
  elseif (regexpi (src, '\.(h5|hdf5)$'))
    [acc, rows, dropped] = hdf5_blocks (task, acc);
  else
    [acc, rows, dropped] = csv_blocks (task, acc);
  endif
  if (rows == 0)
    error ("the chunk has no rows");
  endif
endfunction

## HDF5 read in row blocks, each a hyperslab of the datasets (__sgp_call__ ("h5_rows")):
## one block in memory at a time, as for CSV.
function [acc, rows, dropped] = hdf5_blocks (task, acc)
  if (! ischar (task.x) || ! ischar (task.y))
    error ("for HDF5 files, 'x' and 'y' name datasets");
  endif
  rows = 0;
  dropped = zeros (0, 1);
  where = @(r, line) sprintf ("row %d of %s", r, task.source);
  n = __sgp_call__ ("h5_rows", task.source, task.x, task.y);
  while (rows < n)
    [x, y] = __sgp_call__ ("h5_rows", task.source, task.x, task.y, rows, task.block_rows);
    [acc, rows, dropped] = add_block (task, acc, rows, dropped, x, y, [], where);
  endwhile
endfunction

## CSV read in blocks of data rows from one open file (ski_csv_reader).
function [acc, rows, dropped] = csv_blocks (task, acc)
  rows = 0;
  dropped = zeros (0, 1);
  if (isempty (task.x) || isempty (task.y))
    error ("files need 'x' (input columns) and 'y' (the response column)");
  endif
  where = @(r, line) sprintf ("data row %d (line %d of %s)", r, line, task.source);
  rd = ski_csv_reader ("open", task.source, task.x, task.y);
  unwind_protect
    while (true)
      [rd, x, y, line] = ski_csv_reader ("next", rd, task.block_rows);
      if (isempty (line))
        break;
      endif
      [acc, rows, dropped] = add_block (task, acc, rows, dropped, x, y, line, where);
    endwhile
  unwind_protect_cleanup
    ski_csv_reader ("close", rd);
  end_unwind_protect
endfunction

## A block added to the accumulator; an error names its row in the source: the
## front's checks count a block's rows from 1, the core from the block's key
## (first_row: (k - 1) 2^40 + the rows before, a number no user knows).
function [acc, rows, dropped] = add_block (task, acc, rows, dropped, x, y, line, where)
  g = task.grid;
  key = (task.k - 1) * 2^40 + rows;
  try
    x = check_input_matrix (x, "ski_stats", "x");
    y = ski_check_y (y, size (x, 1), "ski_stats");
  catch err
    block_error (err, 0, rows, line, where);
  end_try_catch
  try
    acc.n = __sgp_call__ ("ski_acc", "add", acc.h, x, y, key);
  catch err
    block_error (err, key, rows, line, where);
  end_try_catch
  if (task.drop)
    dropped = [dropped; rows + __sgp_call__("ski_outside", x, g.size, g.bounds, g.interpolation)];
  endif
  rows += size (x, 1);
endfunction

function block_error (err, offset, rows, line, where)
  msg = err.message;
  [tok, s, e] = regexp (msg, '(row |first at )(\d+)', "tokens", "start", "end", "once");
  if (! isempty (tok))
    i = str2double (tok{2}) - offset;
    if (i >= 1 && (isempty (line) || i <= numel (line)))
      li = [];
      if (! isempty (line))
        li = line(i);
      endif
      lab = where (rows + i, li);
      if (strcmp (tok{1}, "first at "))
        lab = ["first at " lab];
      endif
      msg = [msg(1:s-1), lab, msg(e+1:end)];
    endif
  endif
  if (isempty (err.identifier))
    error ("%s", msg);
  endif
  error (err.identifier, "%s", msg);
endfunction
