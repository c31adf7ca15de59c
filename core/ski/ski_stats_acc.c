/* ski_stats_acc.c -- the running accumulator of the sufficient statistics
 * (sgp_ski_stats_acc): chunk sources add every block of every chunk to one
 * accumulator per process, in data order. A chunk then costs what its rows
 * cost; statistics of their own per chunk would cost the S m stencil each
 * (allocated, zeroed, copied out and merged) whatever their rows.
 *
 * Bits: both passes give every entry its terms in data order whatever the
 * split into calls (ski_stats.c, ski_moments.c), so the adds equal one
 * sgp_ski_stats_compute over the same rows when the pass is the same. The
 * pass is chosen once, from the first call's rows, as sgp_ski_stats_compute
 * chooses it: a later switch would mix the passes' roundings. */
#include "ski/ski.h"

#include <stdlib.h>
#include <string.h>

struct sgp_ski_stats_acc {
  sgp_ski_opts o;        /* interpolation, bounds_policy, probes, seed (pointers cleared) */
  sgp_ski_stats *st;
  sgp_ski_moments *mo;   /* the moment pass's moments (NULL: the tap pass) */
  double *L;             /* the tap pass's half buffer (sgp_ski_stats_accumulate_half;
                            NULL: none, D directly) */
  sgp_ski_pass pass;     /* AUTO until the first add */
  int broken;            /* an add failed: the statistics are no sum of rows */
  int64_t probes;        /* probe sketches (0: none) */
  double *uz, rhoz;
};

void sgp_ski_stats_acc_free(sgp_ski_stats_acc *acc)
{
  if (!acc) return;
  sgp_ski_stats_free(acc->st);
  sgp_ski_moments_free(acc->mo);
  free(acc->L);
  free(acc->uz);
  free(acc);
}

int sgp_ski_stats_acc_create(sgp_ctx *ctx, const sgp_ski_grid *g, const sgp_ski_opts *o,
                             sgp_ski_stats_acc **out)
{
  int code;
  if (!out || !o) return sgp_fail(ctx, SGP_EINVAL, "stats: output or options missing");
  *out = NULL;
  if (o->probes < 0)
    return sgp_fail(ctx, SGP_EINVAL, "probes: must be >= 0 (got %lld)", (long long)o->probes);
  sgp_ski_stats_acc *acc = (sgp_ski_stats_acc *)calloc(1, sizeof *acc);
  if (!acc) return sgp_fail(ctx, SGP_ENOMEM, "stats: out of memory");
  acc->o = *o;
  acc->o.grid_bounds = NULL; /* not kept: the caller's */
  acc->pass = SGP_SKI_PASS_AUTO;
  acc->probes = o->probes;
  if ((code = sgp_ski_stats_create(ctx, g, o->interpolation, &acc->st))) {
    sgp_ski_stats_acc_free(acc);
    return code;
  }
  if (acc->probes > 0 && !(acc->uz = sgp_calloc(acc->st->m * acc->probes))) {
    sgp_ski_stats_acc_free(acc);
    return sgp_fail(ctx, SGP_ENOMEM, "probes: out of memory for %lld probe sketches",
                    (long long)o->probes);
  }
  *out = acc;
  return SGP_OK;
}

/* The pass of the first add: sgp_ski_stats_compute's choice for its rows (the
 * moment pass falls back to taps when its moments do not fit in memory). */
static void choose_pass(sgp_ctx *ctx, sgp_ski_stats_acc *acc, int64_t n)
{
  acc->pass = sgp_ski_stats_pass_choice(&acc->st->grid, acc->o.bounds_policy, n);
  if (acc->pass == SGP_SKI_PASS_MOMENTS && sgp_ski_moments_create(ctx, acc->st, &acc->mo))
    acc->pass = SGP_SKI_PASS_TAP;
  /* taps: one half buffer for all calls (else each call would pay the full
   * stencil's scattered rows, or S m copies and a mirror) */
  if (acc->pass == SGP_SKI_PASS_TAP && acc->st->T <= 4096)
    acc->L = sgp_calloc((acc->st->S + 1) / 2 * acc->st->m);
}

int sgp_ski_stats_acc_add(sgp_ctx *ctx, sgp_ski_stats_acc *acc, sgp_cmat X, sgp_cmat y,
                          int64_t first_row, int64_t *n)
{
  int code;
  if (!acc) return sgp_fail(ctx, SGP_EINVAL, "stats: accumulator missing");
  if (acc->broken)
    return sgp_fail(ctx, SGP_EINVAL, "stats: an earlier block failed; start again");
  const sgp_ski_stats *st = acc->st;
  if (X.cols != st->grid.d)
    return sgp_fail(ctx, SGP_EDIM, "x: has %lld columns but the grid has %d dimensions",
                    (long long)X.cols, st->grid.d);
  if (acc->pass == SGP_SKI_PASS_AUTO && X.rows > 0) choose_pass(ctx, acc, X.rows);
  if (acc->mo)
    code = sgp_ski_moments_accumulate(ctx, acc->mo, X, y, first_row, acc->o.bounds_policy);
  else if (acc->L)
    code = sgp_ski_stats_accumulate_half(ctx, acc->st, acc->L, X, y, first_row,
                                         acc->o.bounds_policy);
  else
    code = sgp_ski_stats_accumulate(ctx, acc->st, X, y, first_row, acc->o.bounds_policy);
  if (!code && acc->probes > 0 && X.rows > 0)
    code = sgp_ski_probe_sketch(ctx, &st->grid, acc->o.interpolation, acc->o.bounds_policy, X,
                                first_row, acc->o.seed, acc->probes, acc->uz, &acc->rhoz);
  if (code) {
    acc->broken = 1;
    return code;
  }
  if (n) *n = st->n + (acc->mo ? sgp_ski_moments_points(acc->mo) : 0);
  return SGP_OK;
}

int sgp_ski_stats_acc_export(sgp_ctx *ctx, sgp_ski_stats_acc *acc, sgp_ski_stats_data *out)
{
  int code;
  if (!acc || !out) return sgp_fail(ctx, SGP_EINVAL, "stats: accumulator missing");
  if (acc->broken)
    return sgp_fail(ctx, SGP_EINVAL, "stats: an earlier block failed; start again");
  if (acc->mo && sgp_ski_moments_points(acc->mo) > 0 &&
      (code = sgp_ski_moments_flush(ctx, acc->mo, acc->st)))
    return code; /* an interrupt: both unchanged */
  if (acc->L) sgp_ski_stats_half_finish(ctx, acc->st, acc->L);
  if ((code = sgp_ski_stats_check_values(ctx, acc->st)) ||
      (code = sgp_ski_stats_export(ctx, acc->st, out)))
    return code;
  out->probes = acc->probes;
  out->probe_seed = acc->o.seed;
  out->rhoz = acc->rhoz;
  out->uz = acc->probes > 0 ? acc->uz : NULL;
  return SGP_OK;
}
