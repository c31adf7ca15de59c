/* target_clones.h -- the x86-64 clones of the core's hot loops (kernels.c,
 * kernel_tile_products.c) and the floating-point contraction they are compiled
 * with. On x86-64 Linux with GCC a function marked SGP_TARGET_CLONES is built
 * for AVX-512, AVX2/FMA and the baseline, and the widest clone the CPU runs is
 * picked at load time.
 *
 * Whether a * b + c becomes one fused multiply-add (one rounding instead of
 * two) is the core's arithmetic, not a build's: GCC contracts by default in
 * its GNU C modes (how R compiles the package) and never under -std=c99 (an
 * ISO mode: how the Octave package and the C tests compiled the core), so the
 * clones that have FMA gave kernel values an ulp apart in the two hosts, a
 * 1e-12 difference in ski_gsgp's first log-likelihood that the optimizer
 * carried to 2e-8 in the learned values. Including this header pins the
 * contraction for the rest of the file: the same kernel values (and speed)
 * from every build on one machine, whatever -std it uses. Clang contracts
 * within an expression in every mode and ignores GCC's pragma. */
#ifndef SGP_TARGET_CLONES_H
#define SGP_TARGET_CLONES_H

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("fp-contract=fast")
#endif

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define SGP_TARGET_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SGP_TARGET_CLONES
#endif

#endif
