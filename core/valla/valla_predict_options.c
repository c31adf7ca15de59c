/* valla_predict_options.c -- the options of valla's predictions (R's
 * predict.valla, Octave's scalegp_predict) and their rules against the fit's
 * likelihood, defined once (sgp_options.h); seed and threads are the context's. */
#include "valla/valla.h"
#include "api/sgp_options.h"

#include <stddef.h>

#define OFF(field) offsetof(sgp_valla_predict_opts, field)

static const char *const type_names[] = {"list", "response", "class", NULL}; /* SGP_PREDICT_* */
static const char *const prob_names[] = {"probit", "mc", NULL};

static const sgp_opt_spec specs[] = {
  {"type", SGP_OPT_CHOICE, "\"list\"", 0, 0, 0, type_names, OFF(type), SGP_STORE_INT, 0,
   "\"list\" (mean, var and, for classes, prob), \"response\" or \"class\""},
  {"full_cov", SGP_OPT_FLAG, "FALSE", 0, 0, 0, NULL, OFF(full_cov), SGP_STORE_INT, 0,
   "also the C-by-C latent covariance of each point"},
  {"prob_method", SGP_OPT_CHOICE, "\"probit\"", 0, 0, 0, prob_names, OFF(mc), SGP_STORE_INT, 0,
   "class probabilities: \"probit\" or \"mc\" (Monte-Carlo)"},
  {"mc_samples", SGP_OPT_COUNT, "2048", 1, 9007199254740992.0, 0, NULL, OFF(mc_samples),
   SGP_STORE_INT64, 0, "Monte-Carlo samples per point of prob_method \"mc\""},
};

const sgp_verb_table sgp_valla_predict_table = {"valla_predict", specs,
                                                (int)(sizeof specs / sizeof specs[0]), 0};

void sgp_valla_predict_opts_default(sgp_valla_predict_opts *o)
{
  o->type = SGP_PREDICT_LIST;
  o->full_cov = 0;
  o->mc = 0;
  o->mc_samples = 2048;
}

int sgp_valla_predict_check(sgp_ctx *ctx, sgp_likelihood likelihood,
                            const sgp_valla_predict_opts *o)
{
  if (likelihood != SGP_LIK_GAUSSIAN) return SGP_OK;
  if (o->type == SGP_PREDICT_CLASS)
    return sgp_fail(ctx, SGP_EINVAL, "type: \"class\" needs a classification fit");
  if (o->mc) return sgp_fail(ctx, SGP_EINVAL, "prob_method: \"mc\" needs a classification fit");
  return SGP_OK;
}
