## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## m = fixture_csv (name): a fixture shared with the R tests, read from the
## folder in the environment variable SCALEGP_EXTDATA (default: inst/extdata
## under the current folder).  fixture_csv () alone returns that folder.

function m = fixture_csv (name)
  d = getenv ("SCALEGP_EXTDATA");
  if (isempty (d))
    d = fullfile (pwd (), "inst", "extdata");
  endif
  if (nargin == 0)
    m = d;
  else
    m = csvread (fullfile (d, name));
  endif
endfunction
