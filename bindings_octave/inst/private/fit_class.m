## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: the class of a scalegp fit struct ("gp_laplace", "ski_gsgp",
## "ski_laplace" or "valla"), for the functions that dispatch on it; anything else is an error
## naming 'fit'.
function cls = fit_class (fit, fname)
  if (! (isstruct (fit) && isscalar (fit) && isfield (fit, "class") && ischar (fit.class)))
    arg_error (fname, "fit", "must be a result of gp_laplace, ski_gsgp, ski_laplace or valla");
  endif
  cls = fit.class;
  if (! any (strcmp (cls, {"gp_laplace", "ski_gsgp", "ski_laplace", "valla"})))
    arg_error (fname, "fit", "has an unknown class \"%s\"", cls);
  endif
endfunction
