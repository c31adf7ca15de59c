## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{kernel} =} check_kernel (@var{kernel}, @var{fname})
## Private: the kernel name, one of @qcode{"rbf"}, @qcode{"matern12"},
## @qcode{"matern32"}, @qcode{"matern52"} (matched case-insensitively,
## returned in lower case).
## @end deftypefn

function kernel = check_kernel (kernel, fname)
  names = {"rbf", "matern12", "matern32", "matern52"};
  if (! (ischar (kernel) && (isrow (kernel) || isempty (kernel))))
    arg_error (fname, "kernel", "must be a string");
  endif
  k = find (strcmpi (kernel, names));
  if (isempty (k))
    arg_error (fname, "kernel", "is unknown: \"%s\"; use one of %s", kernel,
               strjoin (strcat ("\"", names, "\""), ", "));
  endif
  kernel = names{k};
endfunction
