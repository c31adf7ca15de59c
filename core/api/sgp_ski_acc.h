/*
 * sgp_ski_acc.h -- a running accumulator of SKI sufficient statistics: the
 * blocks of many chunks added in place, in data order, so that a pass over
 * files costs what its rows cost (no statistics per chunk, no merge per chunk).
 */
#ifndef SGP_SKI_ACC_H
#define SGP_SKI_ACC_H

#include "api/sgp_ski.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sgp_ski_stats_acc sgp_ski_stats_acc;

/* Empty statistics on grid g with o's interpolation, bounds_policy and probe
 * sketches (o->probes, o->seed); o is copied (its pointers are not kept).
 * Errors name grid_size, interpolation, probes. */
int sgp_ski_stats_acc_create(sgp_ctx *ctx, const sgp_ski_grid *g, const sgp_ski_opts *o,
                             sgp_ski_stats_acc **out);
/* Adds the rows of X (n-by-d), y (n) keyed from first_row (the probes; the rows
 * in messages), with the errors and words of sgp_ski_stats_compute. The pass
 * (moments or taps) is the one sgp_ski_stats_compute would choose for the
 * rows of the first call that has any, kept for the later ones. Bits: the
 * result of the adds equals that of one sgp_ski_stats_compute over all rows
 * in the same order when both use the same pass (each pass is bitwise
 * independent of how the rows are split). After an error the accumulator is
 * unusable (every later call fails). *n (may be NULL) receives the points
 * accumulated so far. */
int sgp_ski_stats_acc_add(sgp_ctx *ctx, sgp_ski_stats_acc *acc, sgp_cmat X, sgp_cmat y,
                          int64_t first_row, int64_t *n);
/* Views of the statistics (valid until the next add or free), the probe
 * sketch fields included (uz NULL when probes = 0). The moment pass's
 * moments are turned into statistics here (later adds go on from them). */
int sgp_ski_stats_acc_export(sgp_ctx *ctx, sgp_ski_stats_acc *acc, sgp_ski_stats_data *out);
void sgp_ski_stats_acc_free(sgp_ski_stats_acc *acc);

#ifdef __cplusplus
}
#endif

#endif
