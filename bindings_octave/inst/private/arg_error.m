## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {} arg_error (@var{fname}, @var{arg}, @var{template}, @dots{})
## Private: raises "@var{fname}: '@var{arg}' <message>" (the same wording as the
## R package), with identifier @qcode{"scalegp:invalid-argument"}.
## @end deftypefn

function arg_error (fname, arg, template, varargin)
  error ("scalegp:invalid-argument", "%s: '%s' %s", fname, arg,
         sprintf (template, varargin{:}));
endfunction
