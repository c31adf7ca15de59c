## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {} warn_stop (@var{fname}, @var{res})
## Private: warns (identifier @qcode{"scalegp:diverged"}) when a training
## diverged or made its loss worse: @var{res} has the core's @code{advice}
## ("" when nothing went wrong) and @code{diverged_at}.
## @end deftypefn

function warn_stop (fname, res)
  if (! isempty (res.advice))
    at = "";
    if (res.diverged_at > 0)
      at = sprintf (" (iteration %d)", res.diverged_at);
    endif
    warning ("scalegp:diverged", "%s: %s%s", fname, res.advice, at);
  endif
endfunction
