/* ski_plain.c -- a SKI grid and SKI statistics as plain data (sgp_ski_grid_plain,
 * sgp_ski_stats_plain; sgp_options.h): their fields written once for both hosts. */
#include "value_out.h"

sgp_value sgp_ski_grid_plain(const sgp_ski_grid *g, sgp_ski_interpolation interp,
                             const double *user_bounds, sgp_value_arena *a)
{
  const int d = g->d;
  double bounds[2 * SGP_SKI_MAX_D];
  for (int j = 0; j < d; j++) {
    /* given bounds are kept exactly (lo + (m - 1) h may round), so grids made from
     * the same bounds compare equal */
    bounds[j] = user_bounds ? user_bounds[j] : g->lo[j];
    bounds[d + j] = user_bounds ? user_bounds[d + j]
                    : g->m[j] > 1 ? g->lo[j] + (double)(g->m[j] - 1) * g->h[j] : g->lo[j];
  }
  const char *names[] = {"size", "bounds", "interpolation"};
  sgp_value v[] = {sgp_vo_int(a, d, g->m), sgp_vo_real(a, 2 * d, bounds, d, 2),
                   sgp_vo_string(a, interp == SGP_SKI_LINEAR ? "linear" : "cubic")};
  v[0].rows = SGP_VO_ROW;
  return sgp_vo_list(a, 3, names, v);
}

sgp_value sgp_ski_stats_plain(const sgp_ski_stats_data *d, const double *user_bounds,
                              sgp_value_arena *a)
{
  const int64_t m = d->m, one = 1;
  const char *names[] = {"grid", "n", "yty", "ysum", "Wty", "Wt1", "WtW", "probes",
                         "probe_seed", "rhoz", "Wtz", "version"};
  const sgp_value v[] = {
    sgp_ski_grid_plain(&d->grid, d->interpolation, user_bounds, a),
    sgp_vo_scalar(a, (double)d->n), sgp_vo_scalar(a, d->yy), sgp_vo_scalar(a, d->ysum),
    sgp_vo_real(a, m, d->uy, 0, 0), sgp_vo_real(a, m, d->u1, 0, 0),
    sgp_vo_real(a, m * d->S, d->D, m, d->S), sgp_vo_scalar(a, (double)d->probes),
    sgp_vo_scalar(a, (double)d->probe_seed), sgp_vo_scalar(a, d->rhoz),
    sgp_vo_real(a, m * d->probes, d->probes > 0 ? d->uz : NULL, m, d->probes),
    sgp_vo_int(a, 1, &one)};
  return sgp_vo_list(a, 12, names, v);
}
