## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## s = ski_grouped_stats (x, y, g, idx, workers, probes): the oracle of chunk
## sources (as R's ski_grouped in tests/testthat/helper-ski.R): the chunks
## (idx{k}: rows of x) cut into `workers` groups of consecutive chunks as
## ski_stats cuts them, each group's statistics those of its rows in memory,
## the groups merged in order.  Probe sketches are keyed per chunk
## ((k - 1) 2^40 on): here each chunk's own, merged (ski_stats adds a group's
## rows to one sketch, so Wtz agrees up to rounding: assert_sources_stats).

function s = ski_grouped_stats (x, y, g, idx, workers = 1, probes = 0)
  K = numel (idx);
  w = max (1, min (K, workers));
  cut = round (linspace (0, K, w + 1));
  s = [];
  for q = 1:w
    ks = cut(q)+1:cut(q+1);
    r = [idx{ks}];
    t = ski_stats (x(r, :), y(r), g);
    if (probes > 0)
      sk = [];
      for k = ks
        c = ski_stats (x(idx{k}, :), y(idx{k}), g, "first_row", (k - 1) * 2^40, "probes", probes);
        if (isempty (sk)) sk = c; else sk = ski_stats_merge (sk, c); endif
      endfor
      for f = {"probes", "probe_seed", "rhoz", "Wtz"}
        t.(f{1}) = sk.(f{1});
      endfor
    endif
    if (isempty (s)) s = t; else s = ski_stats_merge (s, t); endif
  endfor
endfunction
