/* ski_stats_check.c -- ski_stats given back as plain data (an R list or an
 * Octave struct: from a worker, a file or a user) are read and checked here, once
 * for both hosts, before ski_stats_merge, ski_gsgp(stats = ) or a fit's checks
 * use them: the grid, the shapes against the grid's stencil, finiteness; the
 * errors name the user's argument ('b', '...1', 'stats'). The values' own rules
 * (B's diagonal, zeros outside the grid) are sgp_ski_stats_import's. */
#include "ski.h"
#include "../fit_data.h"

#include <math.h>
#include <string.h>

static const char *const interpolation_names[] = {"cubic", "linear", NULL}; /* SGP_SKI_* */

int sgp_ski_grid_value(sgp_ctx *ctx, const sgp_value *g, const char *arg, int of_stats,
                       sgp_ski_stats_data *d)
{
  const sgp_fd fd = {ctx, g, arg, "$", NULL}, *f = &fd;
  const sgp_value *size = sgp_fd_elt(g, "size"), *bounds = sgp_fd_elt(g, "bounds");
  const sgp_fd gf = {f->ctx, g, f->arg, f->sep, NULL};
  const int64_t nd = size->len;
  int ok = g->type == SGP_VAL_LIST && sgp_fd_is_numeric(size) && nd >= 1 && nd <= SGP_SKI_MAX_D &&
           sgp_fd_is_numeric(bounds) && sgp_fd_rows(bounds) == nd && sgp_fd_cols(bounds) == 2 &&
           sgp_fd_finite(bounds);
  for (int64_t j = 0; ok && j < nd; j++)
    ok = size->real[j] >= 1 && size->real[j] <= 9007199254740992.0 &&
         size->real[j] == floor(size->real[j]);
  int interp = 0;
  if (!ok || sgp_fd_string(&gf, "interpolation", interpolation_names, &interp))
    return sgp_fail(f->ctx, SGP_EINVAL, "'%s' must %s a grid from ski_grid (size: 1 to %d whole "
                    "numbers >= 1, bounds: d-by-2 finite, interpolation \"cubic\" or \"linear\")",
                    f->arg, of_stats ? "have" : "be", SGP_SKI_MAX_D);
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  o.interpolation = (sgp_ski_interpolation)interp;
  for (int64_t j = 0; j < nd; j++) o.grid_size[j] = (int64_t)size->real[j];
  o.n_grid_size = nd;
  o.grid_bounds = bounds->real;
  d->interpolation = o.interpolation;
  return sgp_ski_make_grid(f->ctx, sgp_cmat_of(bounds->real, nd, 2), 0, &o, &d->grid);
}

static int scalar(const sgp_value *v, double *out)
{
  if (v->type != SGP_VAL_REAL || v->len != 1 || !isfinite(v->real[0])) return 0;
  *out = v->real[0];
  return 1;
}

/* n, yty, ysum, probes, probe_seed, rhoz: finite scalars */
static int read_scalars(const sgp_fd *f, sgp_ski_stats_data *d)
{
  double n, probes, seed;
  const sgp_value *s = f->fit;
  if (!scalar(sgp_fd_elt(s, "n"), &n) || !scalar(sgp_fd_elt(s, "yty"), &d->yy) ||
      !scalar(sgp_fd_elt(s, "ysum"), &d->ysum) || !scalar(sgp_fd_elt(s, "probes"), &probes) ||
      !scalar(sgp_fd_elt(s, "probe_seed"), &seed) || !scalar(sgp_fd_elt(s, "rhoz"), &d->rhoz))
    return sgp_fail(f->ctx, SGP_EINVAL, "'%s' must have finite scalars n, yty, ysum, probes, "
                    "probe_seed, rhoz", f->arg);
  d->n = (int64_t)n;
  d->probes = probes > 0 ? (int64_t)probes : 0;
  d->probe_seed = seed > 0 ? (uint64_t)seed : 0;
  return SGP_OK;
}

int sgp_ski_stats_check(sgp_ctx *ctx, const sgp_value *s, const char *arg, sgp_ski_stats_data *d)
{
  static const char *const need[] = {"grid", "n", "yty", "ysum", "Wty", "Wt1", "WtW", "probes",
                                     "probe_seed", "rhoz", "Wtz"};
  sgp_fd f = {ctx, s, arg, "$", NULL};
  int st;
  memset(d, 0, sizeof *d);
  int ok = s && s->type == SGP_VAL_LIST;
  for (size_t i = 0; ok && i < sizeof need / sizeof need[0]; i++)
    ok = sgp_fd_elt(s, need[i])->type != SGP_VAL_NULL;
  if (!ok)
    return sgp_fail(ctx, SGP_EINVAL, "'%s' must be ski_stats (from ski_stats or ski_stats_merge)",
                    arg);
  if ((st = sgp_ski_grid_value(ctx, sgp_fd_elt(s, "grid"), arg, 1, d)) ||
      (st = sgp_ski_stats_shape(ctx, &d->grid, d->interpolation, &d->m, &d->S)))
    return st;
  const sgp_value *D = sgp_fd_elt(s, "WtW"), *uy = sgp_fd_elt(s, "Wty"), *u1 = sgp_fd_elt(s, "Wt1"),
                  *uz = sgp_fd_elt(s, "Wtz");
  if (!sgp_fd_is_numeric(D) || sgp_fd_rows(D) != d->m || sgp_fd_cols(D) != d->S)
    return sgp_fail(ctx, SGP_EINVAL, "'%s' has a 'WtW' that is not the %lld-by-%lld stencil of "
                    "its grid", arg, (long long)d->m, (long long)d->S);
  if (!sgp_fd_finite(D)) return sgp_fail(ctx, SGP_EINVAL, "'%s' has a 'WtW' with NaN or Inf", arg);
  if (!sgp_fd_is_numeric(uy) || uy->len != d->m || !sgp_fd_finite(uy) || !sgp_fd_is_numeric(u1) ||
      u1->len != d->m || !sgp_fd_finite(u1))
    return sgp_fail(ctx, SGP_EINVAL, "'%s' must have finite 'Wty' and 'Wt1' of length %lld (the "
                    "grid points)", arg, (long long)d->m);
  if ((st = read_scalars(&f, d))) return st;
  if (!sgp_fd_is_numeric(uz) || uz->len != d->m * d->probes)
    return sgp_fail(ctx, SGP_EINVAL, "'%s' has a 'Wtz' that is not %lld-by-probes", arg,
                    (long long)d->m);
  if (!sgp_fd_finite(uz)) return sgp_fail(ctx, SGP_EINVAL, "'%s' has a 'Wtz' with NaN or Inf", arg);
  d->D = D->real;
  d->uy = uy->real;
  d->u1 = u1->real;
  d->uz = d->probes > 0 ? uz->real : NULL;
  return SGP_OK;
}
