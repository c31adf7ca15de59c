/* skl_fit_predict.c -- predictions from a ski_laplace fit given back as plain
 * data (R's predict.ski_laplace, Octave's scalegp_predict): the options (table
 * "ski_laplace_predict"), their rules against the fit, and the predictions from
 * the fit read back (skl_fit_read.c). The curvature at the observed cells is
 * recomputed from the fit's f with the likelihood, so the same code as the fit's
 * xtest runs on the same numbers and gives the same predictions. */
#include "ski_laplace/skl.h"
#include "host/value_out.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define OFF(field) offsetof(sgp_ski_laplace_predict_opts, field)

/* type: the index of its choice */
static const char *const type_names[] = {"list", "response", "link", NULL};
static const char *const variance_names[] = {"none", "exact", NULL};

static const sgp_opt_spec specs[] = {
  {"type", SGP_OPT_CHOICE, "\"list\"", 0, 0, 0, type_names, OFF(type), SGP_STORE_INT, 0,
   "\"list\" (latent mean and variance and the response's), \"response\" (the response's "
   "mean: a rate or a probability) or \"link\" (the latent mean)"},
  {"variance", SGP_OPT_CHOICE, "\"exact\"", 0, 0, 0, variance_names, OFF(variance),
   SGP_STORE_INT, 0, "latent variances: \"exact\" (one solve per point) or \"none\""},
  {"offset", SGP_OPT_VECTOR, "NULL", 0, 0, 0, NULL, OFF(offset), SGP_STORE_DOUBLE, 0,
   "log exposure at the new points, for the likelihoods with a log link (NULL: 0)"},
};

const sgp_verb_table sgp_ski_laplace_predict_table = {"ski_laplace_predict", specs,
                                                      (int)(sizeof specs / sizeof specs[0]), 0};

void sgp_ski_laplace_predict_opts_default(sgp_ski_laplace_predict_opts *o)
{
  o->type = 0;
  o->variance = SGP_SKL_VARIANCE_EXACT;
  o->offset = sgp_cmat_of(NULL, 0, 0);
}

/* The options against the fit and the new points. */
static int predict_check(sgp_ctx *ctx, const skl_fit *F, const sgp_ski_laplace_predict_opts *o,
                         sgp_cmat Xs)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(F->o.likelihood);
  const int64_t ns = Xs.rows, no = o->offset.data ? o->offset.rows * o->offset.cols : 0;
  char list[160];
  if (Xs.cols != F->p.grid.d)
    return sgp_fail(ctx, SGP_EDIM, "xtest: has %lld columns; the grid has %d dimensions",
                    (long long)Xs.cols, F->p.grid.d);
  if (o->offset.data && !ops->takes_offset)
    return sgp_fail(ctx, SGP_EINVAL, "offset: is only used with likelihood = %s",
                    sgp_lik_list(SGP_LIK_FACT_OFFSET, 1, list, sizeof list));
  if (o->offset.data && no != ns)
    return sgp_fail(ctx, SGP_EDIM, "offset: must be %lld finite numbers, one per new point "
                    "(got %lld)", (long long)ns, (long long)no);
  for (int64_t i = 0; i < no; i++)
    if (!isfinite(o->offset.data[i]))
      return sgp_fail(ctx, SGP_EINVAL, "offset: must be %lld finite numbers, one per new point "
                      "(element %lld is %g)", (long long)ns, (long long)(i + 1),
                      o->offset.data[i]);
  return SGP_OK;
}

/* sw = sqrt(curvature) at the fit's f, as the fit's Newton left it. */
static int curvature_at(sgp_ctx *ctx, const skl_fit *F, double *sw)
{
  const int64_t n1 = F->p.n > 0 ? F->p.n : 1;
  skl_state s;
  memset(&s, 0, sizeof s);
  s.f = sgp_alloc(n1); s.g = sgp_alloc(n1); s.w = sgp_alloc(n1); s.d3 = sgp_alloc(n1);
  s.sw = sw;
  int st = !s.f || !s.g || !s.w || !s.d3 ? sgp_fail(ctx, SGP_ENOMEM, "out of memory") : SGP_OK;
  if (!st) {
    memcpy(s.f, F->f, (size_t)F->p.n * sizeof(double));
    skl_lik_at(&F->p, &s);
  }
  free(s.f); free(s.g); free(s.w); free(s.d3);
  return st;
}

static int predict_write(sgp_ctx *ctx, const skl_fit *F, const sgp_ski_laplace_predict_opts *o,
                         sgp_cmat Xs, sgp_value_arena *a, sgp_value *out)
{
  static const char *const names[] = {"mean", "var", "response", "response_var"};
  const int64_t ns = Xs.rows, want_var = o->variance == SGP_SKL_VARIANCE_EXACT;
  sgp_value v[4] = {sgp_vo_real(a, ns, NULL, 0, 0),
                    want_var ? sgp_vo_real(a, ns, NULL, 0, 0) : sgp_vo_null(),
                    sgp_vo_real(a, ns, NULL, 0, 0), sgp_vo_real(a, ns, NULL, 0, 0)};
  if (sgp_value_arena_failed(a)) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  double *mean = (double *)v[0].real, *var = want_var ? (double *)v[1].real : NULL;
  double *sw = sgp_alloc(F->p.n > 0 ? F->p.n : 1);
  skl_prior pr;
  memset(&pr, 0, sizeof pr);
  int st = sw ? SGP_OK : sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  if (!st && want_var) st = curvature_at(ctx, F, sw);
  if (!st && want_var)
    st = skl_prior_of(ctx, &F->p, &F->o.kernel, F->ls, F->o.kernel.n_lengthscale,
                      F->o.kernel.outputscale, F->mean, &pr);
  if (!st) st = skl_predict(ctx, &F->p, &pr.K, F->weights, sw, &F->o, Xs, mean, var);
  if (!st)
    skl_response(F->o.likelihood, F->o.noise, ns, mean, var, o->offset.data, (double *)v[2].real,
                 (double *)v[3].real);
  if (want_var) skl_prior_free(&pr);
  free(sw);
  if (st) return st;
  *out = sgp_predict_result_plain(sgp_vo_list(a, 4, names, v), type_names[o->type], a);
  return sgp_value_arena_failed(a) ? sgp_fail(ctx, SGP_ENOMEM, "out of memory") : SGP_OK;
}

int sgp_ski_laplace_predict_plain(sgp_ctx *ctx, const sgp_value *fit, const char *arg,
                                  const char *sep, const sgp_ski_laplace_predict_opts *o,
                                  sgp_cmat Xs, sgp_value_arena *a, sgp_value *out)
{
  skl_fit F;
  *out = sgp_vo_null();
  int st = skl_fit_read(ctx, fit, arg, sep, &F);
  if (!st && Xs.data) st = predict_check(ctx, &F, o, Xs);
  if (!st && Xs.data) st = predict_write(ctx, &F, o, Xs, a, out);
  skl_fit_free(&F);
  return st;
}
