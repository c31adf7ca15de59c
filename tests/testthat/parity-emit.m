## Output of the Octave side of the parity tests (helper-parity.R reads it):
## "N name v1 v2 ..." (numbers as %.17g) or "S name text" lines.
1;
function emit (fid, name, v)
  if (ischar (v))
    fprintf (fid, "S %s %s\n", name, strrep (v, "\n", " "));
  else
    fprintf (fid, "N %s", name); fprintf (fid, " %.17g", double (v(:))); fprintf (fid, "\n");
  endif
endfunction
function emit_error (fid, name, f)
  try
    f ();
    emit (fid, name, "no error");
  catch e
    emit (fid, name, e.message);
  end_try_catch
endfunction
## scalegp_summary's lines as "S <name>.summary.<i> <line>" and their count.
function emit_summary (fid, name, fit)
  lines = strsplit (scalegp_summary (fit)(1:end-1), "\n");
  emit (fid, [name ".summary.n"], numel (lines));
  for i = 1:numel (lines)
    emit (fid, sprintf ("%s.summary.%d", name, i), lines{i});
  endfor
endfunction
## Every field of a struct, nested structs and cells included: "S <name>.fields
## a,b,..." (sorted, without Octave's class field), numbers and logicals as N
## lines, strings as S lines, cell element i as <name>.<i> (helper-parity.R:
## parity_expect_fields compares them with R's list).
function emit_fields (fid, name, s)
  if (isstruct (s))
    f = sort (setdiff (fieldnames (s), {"class"}));
    emit (fid, [name ".fields"], strjoin (f(:)', ","));
    for i = 1:numel (f)
      emit_fields (fid, [name "." f{i}], s.(f{i}));
    endfor
  elseif (iscell (s))
    for i = 1:numel (s)
      emit_fields (fid, sprintf ("%s.%d", name, i), s{i});
    endfor
  else
    emit (fid, name, s);
  endif
endfunction
