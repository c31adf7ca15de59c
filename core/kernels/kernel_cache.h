/* kernel_cache.h -- the cached kernel matrix of the dense operator, kept as its
 * lower triangle (core-internal).
 *
 * K is symmetric, so only the lower triangle (i >= j) of the n-by-n column-major
 * array is written and read. The strictly upper part is never touched: its pages
 * are never faulted in, so the cache costs about half of 8 n^2 bytes of resident
 * memory (n = 20000: ~1.6 GB instead of 3.2 GB), and the product reads K once
 * for both of its uses (K[i,j] and K[j,i]) instead of twice. */
#ifndef SGP_KERNEL_CACHE_H
#define SGP_KERNEL_CACHE_H

#include "kernels/kernels.h"

/* Uninitialized n-by-n array (free with free()); on Linux advised against
 * transparent huge pages, which would fault in the untouched upper triangle. */
double *sgp_kcache_alloc(int64_t n);
/* Writes the lower triangle of K = k(p, p) (ld = p->n); polls interrupts between
 * blocks of tiles. */
int sgp_kcache_fill(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *p, double *K);
/* Y = K V from the lower triangle of K (n-by-n, ld n), in tile x tile blocks
 * (tile <= 0: SGP_DEFAULT_TILE) shared out to the threads. Deterministic for a
 * given thread count and tile (each thread sums into its own copy of Y, added
 * in a fixed order). In passes over column chunks of bounded work, the
 * interrupt polled before each (SGP_EINTERRUPT). */
#define SGP_KCACHE_PASS_FLOPS 2e9
#define SGP_KCACHE_PASS_MIN 16
int sgp_kcache_apply(sgp_ctx *ctx, const double *K, int64_t n, sgp_cmat V, sgp_mat Y,
                     int tile);
/* The same with the private accumulators capped at acc_doubles (the product then
 * runs in column chunks; sgp_kcache_apply uses SGP_KCACHE_ACC_DOUBLES): for tests. */
#define SGP_KCACHE_ACC_DOUBLES ((int64_t)8 << 20) /* 64 MiB */
int sgp_kcache_apply_chunked(sgp_ctx *ctx, const double *K, int64_t n, sgp_cmat V, sgp_mat Y,
                             int tile, int64_t acc_doubles);

#endif
