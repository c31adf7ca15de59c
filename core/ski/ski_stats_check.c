/* ski_stats_check.c -- ski_stats given back as plain data (an R list or an
 * Octave struct: from a worker, a file or a user) are read and checked here, once
 * for both hosts, before ski_stats_merge, ski_gsgp(stats = ) or a fit's checks
 * use them: the grid, the shapes against the grid's stencil, finiteness; the
 * errors name the user's argument ('b', '...1', 'stats'). The values' own rules
 * (B's diagonal, zeros outside the grid) are sgp_ski_stats_import's.
 * A grid given as plain data (ski_stats' grid argument, the grid of statistics or
 * of a fit) is read here too (sgp_ski_grid_read), its errors naming the field in
 * the host's syntax: "'grid$size' ..." (R), "'grid.size' ..." (Octave). */
#include "ski/ski.h"
#include "host/fit_data.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *const interpolation_names[] = {"cubic", "linear", NULL}; /* SGP_SKI_* */

/* size: 1 to SGP_SKI_MAX_D whole numbers in 1..INT_MAX (both hosts' integers) */
static int read_size(const sgp_fd *f, const sgp_value *size, sgp_ski_opts *o)
{
  if (!sgp_fd_is_numeric(size)) return sgp_fd_bad(f, "size", "must be whole numbers >= 1");
  if (size->len < 1 || size->len > SGP_SKI_MAX_D)
    return sgp_fd_bad(f, "size", "must have 1 to %d values, one per dimension (got %lld)",
                      SGP_SKI_MAX_D, (long long)size->len);
  for (int64_t j = 0; j < size->len; j++) {
    const double m = size->real[j];
    if (!(m >= 1) || m != floor(m))
      return sgp_fd_bad(f, "size", "must be whole numbers >= 1 (got %g)", m);
    if (m > 2147483647.0)
      return sgp_fd_bad(f, "size", "must be at most 2147483647 per dimension (got %.15g)", m);
    o->grid_size[j] = (int64_t)m;
  }
  o->n_grid_size = size->len;
  return SGP_OK;
}

/* bounds: d x 2 finite (a plain vector of 2 when d = 1), lower < upper where the
 * size is above 1 */
static int read_bounds(const sgp_fd *f, int64_t nd, const sgp_ski_opts *o, const double **out)
{
  const sgp_value *b = sgp_fd_elt(f->fit, "bounds");
  sgp_cmat v;
  int st;
  if (nd == 1 && sgp_fd_is_numeric(b) && !b->rows && !b->cols && b->len == 2) {
    if (!sgp_fd_finite(b)) return sgp_fd_bad(f, "bounds", "contains NaN, NA or Inf");
    v = sgp_cmat_of(b->real, 1, 2);
  } else if ((st = sgp_fd_matrix(f, "bounds", nd, 2, &v))) {
    return st;
  }
  for (int64_t j = 0; j < nd; j++)
    if (o->grid_size[j] > 1 && !(v.data[j + v.ld] > v.data[j]))
      return sgp_fd_bad(f, "bounds", "row %lld must have lower < upper (got %g, %g)",
                        (long long)j + 1, v.data[j], v.data[j + v.ld]);
  *out = v.data;
  return SGP_OK;
}

int sgp_ski_grid_read(sgp_ctx *ctx, const sgp_value *g, const char *arg, const char *sep,
                      sgp_ski_grid_data *out)
{
  char sub[96];
  int st, interp = 0;
  memset(out, 0, sizeof *out);
  /* ski_stats or a ski_gsgp fit: its grid */
  if (g && g->type == SGP_VAL_LIST && !sgp_fd_has(g, "size") &&
      sgp_fd_elt(g, "grid")->type == SGP_VAL_LIST) {
    snprintf(sub, sizeof sub, "%s%sgrid", arg, sep);
    arg = sub;
    g = sgp_fd_elt(g, "grid");
  }
  if (!g || g->type != SGP_VAL_LIST || !sgp_fd_has(g, "size") || !sgp_fd_has(g, "bounds") ||
      !sgp_fd_has(g, "interpolation"))
    return sgp_fail(ctx, SGP_EINVAL, "'%s' must be a grid from ski_grid (or ski_stats or a "
                    "ski_gsgp fit)", arg);
  const sgp_fd f = sgp_fd_of(ctx, g, arg, sep, NULL);
  sgp_ski_opts o;
  sgp_ski_opts_default(&o);
  if ((st = read_size(&f, sgp_fd_elt(g, "size"), &o)) ||
      (st = read_bounds(&f, o.n_grid_size, &o, &out->bounds)) ||
      (st = sgp_fd_string(&f, "interpolation", interpolation_names, &interp)))
    return st;
  o.interpolation = (sgp_ski_interpolation)interp;
  o.grid_bounds = out->bounds;
  out->interpolation = o.interpolation;
  /* the grid itself: spacing in doubles, statistics that fit in memory */
  return sgp_ski_grid_from_range(ctx, sgp_cmat_of(out->bounds, o.n_grid_size, 2), 0, &o, &out->grid);
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

int sgp_ski_stats_check(sgp_ctx *ctx, const sgp_value *s, const char *arg, const char *sep,
                        sgp_ski_stats_data *d)
{
  static const char *const need[] = {"grid", "n", "yty", "ysum", "Wty", "Wt1", "WtW", "probes",
                                     "probe_seed", "rhoz", "Wtz"};
  sgp_fd f = sgp_fd_of(ctx, s, arg, sep, NULL);
  sgp_ski_grid_data g;
  char sub[96];
  int st;
  memset(d, 0, sizeof *d);
  int ok = s && s->type == SGP_VAL_LIST;
  for (size_t i = 0; ok && i < sizeof need / sizeof need[0]; i++)
    ok = sgp_fd_elt(s, need[i])->type != SGP_VAL_NULL;
  if (!ok)
    return sgp_fail(ctx, SGP_EINVAL, "'%s' must be ski_stats (from ski_stats or ski_stats_merge)",
                    arg);
  snprintf(sub, sizeof sub, "%s%sgrid", arg, sep);
  if ((st = sgp_ski_grid_read(ctx, sgp_fd_elt(s, "grid"), sub, sep, &g))) return st;
  d->grid = g.grid;
  d->interpolation = g.interpolation;
  if ((st = sgp_ski_stats_shape(ctx, &d->grid, d->interpolation, &d->m, &d->S)))
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
