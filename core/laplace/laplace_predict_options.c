/* laplace_predict_options.c -- the options of gp_laplace's predictions (R's
 * predict.gp_laplace, Octave's scalegp_predict) and their rules against the fit:
 * defined once, as the verbs' are (sgp_options.h). */
#include "laplace/lik_table.h"
#include "api/sgp_options.h"

#include <stddef.h>

#define OFF(field) offsetof(sgp_laplace_predict_opts, field)

/* SGP_PREDICT_* */
static const char *const type_names[] = {"list", "response", "class", "link", NULL};

static const sgp_opt_spec specs[] = {
  {"offset", SGP_OPT_VECTOR, "NULL", 0, 0, 0, NULL, OFF(offset), SGP_STORE_DOUBLE, 0,
   "log exposure at the new inputs, for the likelihoods with a log link (NULL: 0)"},
  {"type", SGP_OPT_CHOICE, "\"list\"", 0, 0, 0, type_names, OFF(type), SGP_STORE_INT, 0,
   "\"list\" (latent mean and variance and the response), \"response\", \"class\" or "
   "\"link\" (the latent mean)"},
};

const sgp_verb_table sgp_laplace_predict_table = {"gp_laplace_predict", specs,
                                                  (int)(sizeof specs / sizeof specs[0]), 0};

void sgp_laplace_predict_opts_default(sgp_laplace_predict_opts *o)
{
  o->type = SGP_PREDICT_LIST;
  o->offset = sgp_cmat_of(NULL, 0, 0);
}

int sgp_laplace_predict_check(sgp_ctx *ctx, const sgp_laplace_result *fit,
                              const sgp_laplace_predict_opts *o, int64_t m)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(fit->likelihood);
  char list[160];
  if (o->offset.data && !ops->takes_offset)
    return sgp_fail(ctx, SGP_EINVAL, "offset: is only used with likelihood = %s",
                    sgp_lik_list(SGP_LIK_FACT_OFFSET, 1, list, sizeof list));
  if (o->offset.data && o->offset.rows * o->offset.cols != m)
    return sgp_fail(ctx, SGP_EDIM, "offset: must be %lld finite numbers, one per new input "
                    "(got %lld)", (long long)m, (long long)(o->offset.rows * o->offset.cols));
  if (o->type == SGP_PREDICT_CLASS && !ops->classes)
    return sgp_fail(ctx, SGP_EINVAL, "type: \"class\" needs a %s fit",
                    sgp_lik_list(SGP_LIK_FACT_CLASSES, 0, list, sizeof list));
  return SGP_OK;
}
