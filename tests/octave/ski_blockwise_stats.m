## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## s = ski_blockwise_stats (x, y, g, idx, B, ...): the oracle of chunk sources,
## ski_stats of the same blocks of B rows with the same keys, each chunk's
## (idx{k}) blocks merged in order, then the chunks in order (as R's
## ski_blockwise in tests/testthat/helper-ski.R).

function s = ski_blockwise_stats (x, y, g, idx, B, varargin)
  s = [];
  for k = 1:numel (idx)
    r = idx{k}; c = [];
    for o = 0:B:numel (r) - 1
      b = r(o+1:min (numel (r), o + B));
      t = ski_stats (x(b, :), y(b), g, "first_row", (k - 1) * 2^40 + o, varargin{:});
      if (isempty (c)) c = t; else c = ski_stats_merge (c, t); endif
    endfor
    if (isempty (s)) s = c; else s = ski_stats_merge (s, c); endif
  endfor
endfunction
