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
  bits = 0;
  for i = 1:numel (learn)
    k = find (strcmp (learn{i}, names));
    if (isempty (k))
      arg_error (fname, "learn", "has an unknown entry \"%s\"; use %s", learn{i},
                 strjoin (strcat ("\"", names, "\""), ", "));
    endif
    bits = bitor (bits, 2 ^ (k - 1));
  endfor
endfunction
