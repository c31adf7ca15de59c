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
