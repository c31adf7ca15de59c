## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## assert_sources_stats (s, ref): s against ski_grouped_stats' ref, every
## field bitwise but the probe sketches Wtz, which sum the same n terms
## |w z| <= 1.25^d (cubic weights) in another order: their difference is at
## most 2 n^2 eps 1.25^d.

function assert_sources_stats (s, ref)
  for f = {"n", "yty", "ysum", "Wty", "Wt1", "WtW", "rhoz"}
    assert (isequal (s.(f{1}), ref.(f{1})), f{1});
  endfor
  d = numel (ref.grid.size);
  assert (max ([abs(s.Wtz(:) - ref.Wtz(:)); 0]) <= 2 * ref.n^2 * eps * 1.25^d, "Wtz");
endfunction
