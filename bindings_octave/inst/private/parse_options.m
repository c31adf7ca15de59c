## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {[@var{opts}, @var{given}] =} parse_options (@var{fname}, @var{defaults}, @var{name1}, @var{value1}, @dots{})
## Private: name/value options of the scalegp front functions.
##
## @var{defaults} is a struct whose field names are the valid option names and
## whose values are the defaults.  Option names match exactly and are given
## once, as the core's options are.  @var{opts} is @var{defaults} with the
## given values filled in; @var{given} has the same fields, true where the
## caller passed the option (so the core's own defaults can be kept for the
## others).  Errors start with "@var{fname}: ".
## @end deftypefn

function [opts, given] = parse_options (fname, defaults, varargin)
  opts = defaults;
  names = fieldnames (defaults);
  given = cell2struct (num2cell (false (numel (names), 1)), names, 1);
  n = numel (varargin);
  for i = 1:2:n
    name = varargin{i};
    if (! (ischar (name) && (isrow (name) || isempty (name))))
      error ("scalegp:invalid-argument",
             "%s: options must be name/value pairs: expected an option name, got a %s",
             fname, describe_value (name));
    endif
    k = find (strcmp (name, names));
    if (! isempty (k) && given.(names{k}))
      error ("scalegp:invalid-argument", "%s: '%s' is given twice", fname, name);
    endif
    if (isempty (k))
      error ("scalegp:invalid-argument", "%s: unknown option '%s'; valid options are %s",
             fname, name, strjoin (names.', ", "));
    endif
    if (i == n)
      error ("scalegp:invalid-argument", "%s: option '%s' has no value", fname, names{k});
    endif
    opts.(names{k}) = varargin{i+1};
    given.(names{k}) = true;
  endfor
endfunction

function s = describe_value (v)
  s = sprintf ("%s of size %s", class (v), strjoin (arrayfun (@num2str, size (v), "uniformoutput", false), "x"));
endfunction
