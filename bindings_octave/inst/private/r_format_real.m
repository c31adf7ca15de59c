## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private: the strings R's format(x, digits = digits) gives a double vector
## (R's formatReal with scipen 0): each value rounded to at most `digits`
## significant digits; one fixed format with as many decimals as the value
## needing most, unless the scientific one (as many significant digits as the
## value needing most) is narrower; all of one width, right-justified.
## Non-finite values as R's NaN, Inf, -Inf.
function s = r_format_real (x, digits)
  fin = isfinite (x);
  neg = any (x(fin) < 0);
  [kpow, nsig, widens] = arrayfun (@(v) scientific (v, digits), x(fin));
  w = 0; d = 0; e = 0;
  if (any (fin))
    left = kpow + 1 - widens;
    sleft = (x(fin) < 0) + max (left, 1);
    rgt = max ([nsig - left; 0]);
    mxsl = max (sleft);
    if (max (left) < 0)
      mxsl = 1 + neg;
    endif
    wf = mxsl + rgt + (rgt != 0);
    e = 1 + (max (kpow) >= 100 || min (kpow) <= -99);
    d = max (nsig) - 1;
    w = neg + (d > 0) + d + 4 + e;
    if (wf <= w)
      e = 0; d = rgt; w = wf;
    endif
  endif
  if (any (isnan (x)) || any (x == Inf))
    w = max (w, 3);
  endif
  if (any (x == -Inf))
    w = max (w, 4);
  endif
  s = cell (numel (x), 1);
  for i = 1:numel (x)
    if (isnan (x(i)))
      s{i} = sprintf ("%*s", w, "NaN");
    elseif (isinf (x(i)))
      s{i} = sprintf ("%*s", w, if_else (x(i) > 0, "Inf", "-Inf"));
    elseif (e > 0)
      s{i} = sprintf ("%*.*e", w, d, x(i));
    else
      s{i} = sprintf ("%*.*f", w, d, x(i));
    endif
  endfor
endfunction

## R's scientific(): the power of ten of x rounded to `digits` significant
## digits, how many of those are needed (trailing zeros dropped) and whether
## the rounding adds a digit to the left of the point (9.9996 -> 10.00).
function [kpower, nsig, widens] = scientific (x, digits)
  if (x == 0)
    kpower = 0; nsig = 1; widens = false;
    return;
  endif
  r = abs (x);
  kp = floor (log10 (r)) - digits + 1;
  rp = r / 10 ^ kp;
  if (kp < 0)
    rp = r * 10 ^ -kp;   # exact scaling where 10^-kp is exact, as R
  endif
  if (rp < 10 ^ (digits - 1))
    rp *= 10; kp -= 1;
  endif
  alpha = round (rp);
  nsig = digits;
  for j = 1:digits
    alpha /= 10;
    if (alpha == floor (alpha))
      nsig -= 1;
    else
      break;
    endif
  endfor
  if (nsig == 0)
    nsig = 1; kp += 1;
  endif
  kpower = kp + digits - 1;
  rgt = min (max (digits - kpower, 0), 22);
  widens = kpower > 0 && kpower <= 22 && r < 10 ^ kpower - 0.5 / 10 ^ rgt;
endfunction
