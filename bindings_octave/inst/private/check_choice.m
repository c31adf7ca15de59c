## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{value} =} check_choice (@var{value}, @var{choices}, @var{fname}, @var{arg})
## Private: one string out of the cell array @var{choices} (matched
## case-insensitively, returned as spelled in @var{choices}); the error names
## @var{arg} and lists the choices.
## @end deftypefn

function value = check_choice (value, choices, fname, arg)
  if (! (ischar (value) && (isrow (value) || isempty (value))))
    arg_error (fname, arg, "must be a string");
  endif
  k = find (strcmpi (value, choices));
  if (isempty (k))
    arg_error (fname, arg, "is unknown: \"%s\"; use one of %s", value,
               strjoin (strcat ("\"", choices, "\""), ", "));
  endif
  value = choices{k};
endfunction
