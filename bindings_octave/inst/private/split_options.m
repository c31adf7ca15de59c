## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {[@var{front}, @var{pairs}] =} split_options (@var{fname}, @var{front_names}, @dots{})
## Private: name/value pairs split into those the front handles itself
## (@var{front_names}: data such as xtest, returned as struct fields, [] when
## not given) and the options forwarded to the core by name (@var{pairs}, a cell
## of name, value, @dots{}); the core checks names and values.
## @end deftypefn

function [front, pairs] = split_options (fname, front_names, varargin)
  front = cell2struct (repmat ({[]}, numel (front_names), 1), front_names(:), 1);
  pairs = {};
  n = numel (varargin);
  for i = 1:2:n
    name = varargin{i};
    if (! (ischar (name) && isrow (name)))
      error ("scalegp:invalid-argument",
             "%s: options after the data must be given by name (argument %d is not a name)",
             fname, i + 2);
    endif
    if (i == n)
      error ("scalegp:invalid-argument", "%s: option '%s' has no value", fname, name);
    endif
    ## names as the core's tables write them (lower case) and each once, as in
    ## R: the core words both errors for the options it is forwarded
    if (any (strcmp (name, front_names)))
      if (any (strcmp (name, varargin(1:2:i-1))))
        error ("scalegp:invalid-argument", "%s: '%s' is given twice", fname, name);
      endif
      front.(name) = varargin{i+1};
    else
      pairs(end+1:end+2) = {name, varargin{i+1}};
    endif
  endfor
endfunction
