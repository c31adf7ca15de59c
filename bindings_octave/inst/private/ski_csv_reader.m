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
    [rd, h, ~, nul] = take (rd, 1);
    if (isempty (h))
      error ("%s: the file is empty", path);
    elseif (! isempty (nul))
      error ("%s: line 1 (the header) contains a NUL byte", path);
    endif
    h = h{1};
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
  text = {};
  line = [];
  while (numel (text) < block_rows)
    [rd, t, first, nul, blank] = take (rd, block_rows - numel (text));
    if (isempty (t))
      break;
    endif
    if (! isempty (nul))   # the lines before it first: the first fault in the file is named
      i = nul(1);
      keep = ! blank(1:i-1);
      text = [text, t(keep)];
      line = [line, first - 1 + find(keep)];
      parse (text, line, rd.nc, rd.rows, rd.path);
      error ("%s: line %d (data row %d) contains a NUL byte", rd.path, first + i - 1,
             rd.rows + numel (text) + 1);
    endif
    text = [text, t(! blank)];
    line = [line, first - 1 + find(! blank)];
  endwhile
  if (isempty (text) && rd.rows == 0)
    error ("%s: the file has no data rows (only the header)", rd.path);
  endif
  v = parse (text, line, rd.nc, rd.rows, rd.path);
  rd.rows += numel (text);
  x = v(:, rd.xi);
  y = v(:, rd.yi);
endfunction

## The next (at most) n lines, their first line number, the lines (of these)
## holding a NUL byte and the blank ones (nothing but spaces and tabs, after
## a "\r" before the newline is removed).
function [rd, text, first, nul, blank] = take (rd, n)
  first = rd.done + 1;
  nl = find (rd.buf == "\n");
  while (numel (nl) < n && ! rd.eof)
    more = fread (rd.fid, max (65536, ceil (1.25 * (n - numel (nl)) * rd.bpl)), "uint8=>char").';
    if (isempty (more))
      rd.eof = true;
    else
      nl = [nl, numel(rd.buf) + find(more == "\n")];
      rd.buf = [rd.buf, more];
    endif
  endwhile
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
  text = {};
  nul = blank = [];
  if (k == 0)
    return;
  endif
  blk = rd.buf(1:last);
  rd.buf = rd.buf(last+1:end);
  rd.bpl = last / k;
  rd.done += k;
  s = [1, nl(1:k-1) + 1];
  e = nl(1:k) - 1;
  cr = e >= s & blk(max (e, 1)) == "\r";
  e(cr) -= 1;
  if (blk(end) == "\n")   # (else ostrsplit gives an empty line after it)
    blk = blk(1:end-1);
  endif
  text = {""};   # (ostrsplit gives no line for "")
  if (! isempty (blk))
    text = ostrsplit (blk, "\n")(1:k);
  endif
  for i = find (cr)
    text{i} = text{i}(1:end-1);
  endfor
  z = find (blk == char (0));
  if (! isempty (z))
    nul = unique (lookup ([0, nl(1:k-1)], z));
  endif
  nonws = [0, cumsum(blk != " " & blk != "\t")];
  blank = nonws(e + 1) - nonws(s) == 0;
endfunction

## Lines as an n-by-nc matrix: sscanf (which rounds correctly) when every line
## is exactly nc numbers, else the strict reading line by line, which names
## the first line that is not.
function v = parse (text, line, nc, rows, path)
  n = numel (text);
  v = zeros (0, nc);
  if (n == 0)
    return;
  endif
  ## a line of zeros after the last: text after its last number stops sscanf early
  txt = [strjoin(text, "\n"), "\n", repmat("0,", 1, nc - 1), "0"];
  nlp = find (txt == "\n");
  commas = diff ([0, cumsum(txt == ",")(nlp)]);
  [vals, count] = sscanf (txt, [repmat("%f,", 1, nc - 1), "%f"]);
  if (count == nc * (n + 1) && all (commas == nc - 1)
      && ! any (txt == "\r" | txt == "\v" | txt == "\f"))
    v = reshape (vals(1:nc*n), nc, n).';
    return;
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
