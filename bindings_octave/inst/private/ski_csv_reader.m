## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {@var{rd} =} ski_csv_reader ("open", @var{path}, @var{xsel}, @var{ysel})
## @deftypefnx {} {[@var{rd}, @var{x}, @var{y}, @var{line}] =} ski_csv_reader ("next", @var{rd}, @var{block_rows})
## @deftypefnx {} {} ski_csv_reader ("close", @var{rd})
## Private: a CSV chunk read forward from one open file by bytes, so each
## line is read once, by position.  "next" gives the next @var{block_rows}
## data rows (fewer at the end, none after it) and the file line of each.
## Blank lines are skipped (never a data row); anything else that is not
## exactly the header's count of numbers is an error naming the file, the
## line (1-based, the header is line 1) and the data row (1-based, blank
## lines not counted).  R's reader (R/ski_source_csv.R) follows the same
## rules and words.
## @end deftypefn

function varargout = ski_csv_reader (cmd, varargin)
  switch (cmd)
    case "open"
      varargout{1} = csv_open (varargin{:});
    case "next"
      [varargout{1:4}] = csv_next (varargin{:});
    case "close"
      if (! isempty (varargin{1}) && varargin{1}.fid >= 0)
        fclose (varargin{1}.fid);
      endif
  endswitch
endfunction

function rd = csv_open (path, xsel, ysel)
  fid = fopen (path, "rb");
  if (fid < 0)
    error ("%s: cannot open the file", path);
  endif
  rd = struct ("fid", fid, "path", path, "buf", "", "eof", false, "done", 0, "bpl", 64,
               "rows", 0, "nc", 0, "xi", [], "yi", []);
  try
    [rd, t] = take (rd, 1);
    if (t.k == 0)
      error ("%s: the file is empty", path);
    elseif (! isempty (t.nul))
      error ("%s: line 1 (the header) contains a NUL byte", path);
    endif
    h = lines_of (t){1};
    if (numel (h) >= 3 && all (double (h(1:3)) == [239 187 191]))   # a UTF-8 byte order mark
      h = h(4:end);
    endif
    if (all (h == " " | h == "\t"))
      error ("%s: line 1 (the header) is blank", path);
    endif
    header = cellfun (@unquote, cellfun (@trim_st, ostrsplit (h, ","), "uniformoutput", false),
                      "uniformoutput", false);
    rd.xi = columns_of (xsel, header, "x", path);
    rd.yi = columns_of (ysel, header, "y", path);
    if (numel (rd.yi) != 1)
      error ("%s: 'y' must name one column", path);
    endif
    rd.nc = numel (header);
  catch err
    fclose (fid);
    rethrow (err);
  end_try_catch
endfunction

function [rd, x, y, line] = csv_next (rd, block_rows)
  parts = at = {};
  got = 0;
  while (got < block_rows)
    [rd, t] = take (rd, block_rows - got);
    if (t.k == 0)
      break;
    endif
    [v, ln] = take_rows (t, rd.nc, rd.rows + got, rd.path);
    parts{end+1} = v;
    at{end+1} = ln;
    got += size (v, 1);
  endwhile
  if (got == 0 && rd.rows == 0)
    error ("%s: the file has no data rows (only the header)", rd.path);
  endif
  v = zeros (0, rd.nc);
  if (! isempty (parts))
    v = vertcat (parts{:});
  endif
  line = [zeros(1, 0), at{:}];
  rd.rows += got;
  x = v(:, rd.xi);
  y = v(:, rd.yi);
endfunction

## The next (at most) n lines: t.blk, their bytes joined by "\n" (the last
## newline left out), t.k lines from line t.first, starting at t.s and ending
## at t.e (a "\r" before the newline left out), the lines holding a NUL byte
## (t.nul), the blank ones (nothing but spaces and tabs), and t.clean: no NUL,
## blank line, "\v", "\f" or "\r" but before a newline, so t.blk is k data
## lines as they are.
function [rd, t] = take (rd, n)
  t = struct ("blk", "", "k", 0, "first", rd.done + 1, "s", [], "e", [], "nul", [],
              "blank", false (1, 0), "cr", false (1, 0), "clean", true);
  nl = find (rd.buf == "\n");
  pieces = {rd.buf};
  total = numel (rd.buf);
  while (numel (nl) < n && ! rd.eof)
    want = max (65536, ceil (1.25 * (n - numel (nl)) * rd.bpl));
    more = fread (rd.fid, want, "uint8=>char").';
    rd.eof = numel (more) < want;
    nl = [nl, total + find(more == "\n")];
    pieces{end+1} = more;
    total += numel (more);
  endwhile
  if (numel (pieces) > 1)
    rd.buf = [pieces{:}];
  endif
  k = min (n, numel (nl));
  nl = nl(1:k);
  last = 0;
  if (k > 0)
    last = nl(k);
  endif
  if (k < n && rd.eof && numel (rd.buf) > last)   # the last line, without its newline
    k += 1;
    last = numel (rd.buf);
    nl(k) = last + 1;
  endif
  if (k == 0)
    return;
  endif
  blk = rd.buf(1:last);
  rd.buf = rd.buf(last+1:end);
  rd.bpl = last / k;
  rd.done += k;
  if (blk(end) == "\n")
    blk = blk(1:end-1);
  endif
  s = [1, nl(1:k-1) + 1];
  e = nl(1:k) - 1;
  cr = false (1, k);
  if (! isempty (blk))
    cr = e >= s & blk(max (e, 1)) == "\r";
  endif
  e(cr) -= 1;
  blank = e < s;
  full = find (! blank);
  for i = full(blk(s(full)) == " " | blk(s(full)) == "\t")   # (the few that start so)
    blank(i) = all (blk(s(i):e(i)) == " " | blk(s(i):e(i)) == "\t");
  endfor
  nul = [];
  if (any (blk == char (0)))
    nul = unique (lookup ([0, nl(1:k-1)], find (blk == char (0))));
  endif
  ## (a "\r" before a newline is whitespace to sscanf, as it should be)
  clean = (isempty (nul) && ! any (blank) && sum (blk == "\r") == sum (cr)
           && ! any (blk == "\v" | blk == "\f"));
  t = struct ("blk", blk, "k", k, "first", t.first, "s", s, "e", e, "nul", nul,
              "blank", blank, "cr", cr, "clean", clean);
endfunction

## A take's lines as a cellstr, without the "\r" before a newline.
function text = lines_of (t)
  text = {""};   # (ostrsplit gives no line for "")
  if (! isempty (t.blk))
    text = ostrsplit (t.blk, "\n")(1:t.k);
  endif
  for i = find (t.cr)
    text{i} = text{i}(1:end-1);
  endfor
endfunction

## One take's data rows (rows before it) as a matrix with their file lines:
## sscanf on the text as it is when it is clean, else its lines without the
## blank ones; a NUL byte is named after the lines before it are read (the
## first fault in the file is the one named).
function [v, line] = take_rows (t, nc, rows, path)
  if (t.clean)
    [v, ok] = scan_lines (t.blk, t.s, t.k, nc);
    if (ok)
      line = t.first - 1 + (1:t.k);
      return;
    endif
  endif
  text = lines_of (t);
  keep = ! t.blank;
  if (! isempty (t.nul))
    i = t.nul(1);
    before = find (keep(1:i-1));
    parse (text(before), t.first - 1 + before, nc, rows, path);
    error ("%s: line %d (data row %d) contains a NUL byte", path, t.first + i - 1,
           rows + numel (before) + 1);
  endif
  line = t.first - 1 + find (keep);
  v = parse (text(keep), line, nc, rows, path);
endfunction

## k lines in txt (lines starting at s) as a k-by-nc matrix by sscanf (which
## rounds correctly), ok only when every line has nc - 1 commas and sscanf
## reads nc k numbers (a line of zeros after the last: text after its last
## number stops sscanf early).
function [v, ok] = scan_lines (txt, s, k, nc)
  v = [];
  commas = find (txt == ",");
  before = lookup (commas, s - 0.5);   # commas before each line
  ok = all (diff ([before, numel(commas)]) == nc - 1);
  if (ok)
    [vals, count] = sscanf ([txt, "\n", repmat("0,", 1, nc - 1), "0"],
                            [repmat("%f,", 1, nc - 1), "%f"]);
    ok = count == nc * (k + 1);
    if (ok)
      v = reshape (vals(1:nc*k), nc, k).';
    endif
  endif
endfunction

## Lines (no blank one) as an n-by-nc matrix: sscanf when every line is
## exactly nc numbers, else the strict reading line by line, which names the
## first line that is not.
function v = parse (text, line, nc, rows, path)
  n = numel (text);
  v = zeros (0, nc);
  if (n == 0)
    return;
  endif
  txt = strjoin (text, "\n");
  if (! any (txt == "\r" | txt == "\v" | txt == "\f"))
    [v, ok] = scan_lines (txt, [1, find(txt == "\n") + 1], n, nc);
    if (ok)
      return;
    endif
  endif
  v = strict (text, line, nc, rows, path);
endfunction

function v = strict (text, line, nc, rows, path)
  parts = cellfun (@(t) ostrsplit (t, ","), text, "uniformoutput", false);
  nf = cellfun ("numel", parts);
  v = zeros (numel (text), nc);
  for i = 1:numel (text)
    at = sprintf ("%s: line %d (data row %d)", path, line(i), rows + i);
    if (nf(i) != nc)
      error ("%s has %d field%s; the header has %d", at, nf(i), if_else (nf(i) == 1, "", "s"), nc);
    endif
    for j = 1:nc
      f = trim_st (parts{i}{j});
      if (isempty (f))
        error ("%s, field %d is empty", at, j);
      endif
      plain = all (f >= " " & f <= "~");
      if (! plain || isempty (regexp (f, '^[+-]?(([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][+-]?[0-9]+)?|[Ii]nf|NaN|NA)$', "once")))
        if (! plain)
          error ("%s, field %d is not a number (not plain text)", at, j);
        endif
        error ("%s, field %d is not a number (\"%s\")", at, j, shown (f));
      endif
      v(i, j) = str2double (f);
    endfor
  endfor
endfunction

function s = shown (f)
  s = f;
  if (numel (f) > 40)
    s = [f(1:40) "..."];
  endif
endfunction

function s = trim_st (s)
  keep = find (s != " " & s != "\t");
  if (isempty (keep))
    s = "";
  else
    s = s(keep(1):keep(end));
  endif
endfunction

function s = unquote (s)
  if (numel (s) >= 2 && s(1) == '"' && s(end) == '"')
    s = s(2:end-1);
  endif
endfunction

function idx = columns_of (sel, header, arg, path)
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
    error ("%s: '%s' names a column the file does not have (%s); it has %s", path, arg, what,
           strjoin (header, ", "));
  endif
endfunction
