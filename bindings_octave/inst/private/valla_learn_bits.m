## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private (valla): the learn cell array as SGP_VALLA_LEARN_* bits.
function bits = valla_learn_bits (learn, fname)
  names = {"A", "inducing", "prior_var", "noise"};
  if (ischar (learn) && (isrow (learn) || isempty (learn)))
    if (isempty (learn))
      learn = {};
    else
      learn = {learn};
    endif
  endif
  if (! iscellstr (learn) && ! (iscell (learn) && isempty (learn)))
    arg_error (fname, "learn", "must be a cell array of strings out of %s ({} freezes all)",
               strjoin (strcat ("\"", names, "\""), ", "));
  endif
  bad = unique (setdiff (learn, names), "stable");   # the same text as R's
  if (! isempty (bad))
    arg_error (fname, "learn", "has unknown entries %s; use any of %s",
               strjoin (strcat ("\"", bad, "\""), ", "), strjoin (strcat ("\"", names, "\""), ", "));
  endif
  bits = 0;
  for i = 1:numel (learn)
    bits = bitor (bits, 2 ^ (find (strcmp (learn{i}, names)) - 1));
  endfor
endfunction
