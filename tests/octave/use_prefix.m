## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {} use_prefix (@var{prefix})
## Test helper: points Octave's package manager at a private @var{prefix}
## (packages in @var{prefix}/share and @var{prefix}/lib, package lists in
## @var{prefix}/*_packages) for this session, so test installs never touch the
## user's ~/.local/share/octave.  The system's global list stays readable (the
## installs are -local and never write it), so Debian's octave-parallel loads.  Used by
## tools/check_octave.sh (install) and tests/octave/run_all.m (load).
## @end deftypefn

function use_prefix (prefix)
  prefix = make_absolute_filename (prefix);
  pkg ("prefix", fullfile (prefix, "share"), fullfile (prefix, "lib"));
  pkg ("local_list", fullfile (prefix, "octave_packages"));
endfunction
