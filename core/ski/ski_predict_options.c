/* ski_predict_options.c -- the options of ski_gsgp's predictions (R's
 * predict.ski_gsgp, Octave's scalegp_predict), their defaults from the fit and
 * their rule against it, defined once (sgp_options.h); the prediction from a
 * checked fit. */
#include "ski/ski.h"
#include "api/sgp_options.h"

#include <stddef.h>

static const char *const variance_names[] = {"none", "lanczos", "exact", NULL};

static const sgp_opt_spec specs[] = {
  {"variance", SGP_OPT_CHOICE, "NULL", 0, 0, SGP_OPT_NULL_OK, variance_names,
   offsetof(sgp_ski_predict_opts, variance), SGP_STORE_INT, 0,
   "\"none\", \"lanczos\" (needs a fit made with it) or \"exact\" (NULL: the fit's)"},
};

const sgp_verb_table sgp_ski_predict_table = {"ski_gsgp_predict", specs, 1, 0};

int sgp_ski_predict_opts_default(sgp_ctx *ctx, const sgp_ski_fit_view *v, sgp_ski_predict_opts *o)
{
  static const char *const backends[] = {"auto", "cpu", "cuda"};
  o->variance = v->variance;
  if (v->backend < 0) return SGP_OK;
  const sgp_value b = {SGP_VAL_STRING, 1, NULL, backends[v->backend], NULL, 0, 0, NULL};
  return sgp_ctx_opt_set(ctx, "backend", &b, NULL);
}

int sgp_ski_fit_predict(sgp_ctx *ctx, const sgp_ski_fit_view *v, const sgp_ski_predict_opts *o,
                        sgp_cmat Xs, double *mean, double *var, sgp_ski_predict_info *info)
{
  const int lanczos = o->variance == SGP_SKI_VARIANCE_LANCZOS;
  if (lanczos && !v->love_Ft)
    return sgp_fail(ctx, SGP_EINVAL, "variance: \"lanczos\" needs a fit made with variance = "
                    "\"lanczos\"");
  sgp_ski_opts so = v->o;
  so.method = SGP_SKI_METHOD_GSGP;
  so.variance = (sgp_ski_variance)o->variance;
  so.rank = 0;
  so.loglik = 0;
  so.slq_max_iter = 100;
  const int code = sgp_ski_predict(ctx, &v->stats, &so, v->weights,
                                   lanczos ? v->love_Ft : NULL, lanczos ? v->love_c0 : NULL,
                                   lanczos ? v->love_rank : 0, Xs, mean,
                                   o->variance != SGP_SKI_VARIANCE_NONE ? var : NULL, info);
  /* LOVE variances are as good as the fit's check of its cache says (fits made
   * before the check have none: not known) */
  if (!code && lanczos && info) {
    info->var_error = v->love_error;
    info->converged = !(v->love_error > SGP_SKI_RTOL);
  }
  return code;
}
