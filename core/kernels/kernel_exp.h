/* kernel_exp.h -- the exponential of the kernel tiles, inline so that the tile
 * transform (and the kernel benchmark's exp rate) vectorize it (core-internal). */
#ifndef SGP_KERNEL_EXP_H
#define SGP_KERNEL_EXP_H

#include <stdint.h>
#include <string.h>

/* exp(x) for x <= 0 in a form the compiler vectorizes (no libm call): range
 * reduction by ln 2 (Cody-Waite) and a degree-13 Taylor polynomial on
 * |r| <= ln2/2, accurate to about 2 ulp; inputs below -708 give ~1e-308. */
static inline double exp_nonpositive(double x)
{
  const double log2e = 1.4426950408889634074, ln2_hi = 6.93145751953125e-1,
               ln2_lo = 1.42860682030941723212e-6, shifter = 0x1.8p52;
  x = x < -708.0 ? -708.0 : x;
  double t = x * log2e + shifter;
  double kd = t - shifter;
  double r = (x - kd * ln2_hi) - kd * ln2_lo;
  double p = 1.0 / 6227020800.0;
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  uint64_t bits;
  memcpy(&bits, &t, sizeof bits);
  bits = (bits + 1023u) << 52; /* low mantissa bits of t hold k */
  double scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

#endif
