## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: an error naming the first of the fields @var{need} (a cellstr)
## that @var{fit} lacks: "'fit' has no field 'x' (not a <method> result?)".
function check_fit_fields (fit, need, method, fname)
  for i = 1:numel (need)
    if (! isfield (fit, need{i}))
      arg_error (fname, "fit", "has no field '%s' (not a %s result?)", need{i}, method);
    endif
  endfor
endfunction
