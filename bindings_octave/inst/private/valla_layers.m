## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private (valla): "layers" (data: one flag per layer of the network) as a
## column of 0/1, or empty for all layers.
function layers = valla_layers (layers, L, fname)
  if (isempty (layers))
    layers = [];
    return;
  endif
  if (! ((islogical (layers) || isnumeric (layers)) && isvector (layers)
         && numel (layers) == L && all (layers(:) == 0 | layers(:) == 1) && any (layers(:))))
    arg_error (fname, "layers", "must be %d true/false flags, one per layer, at least one true", L);
  endif
  layers = double (layers(:));
endfunction
