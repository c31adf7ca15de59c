/* lik_table.c -- the likelihoods of gp_laplace, one row each (lik_table.h): the
 * enum's value, the name (the ops are sgp_lik_<name>_ops, in lik/lik_<name>.c),
 * whether valla offers it, and the option doc's phrase. The `likelihood`
 * option's choices and doc, valla's choices and every fit check read them here. */
#include "laplace/lik_table.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define LIK_ROWS(X)                                                                         \
  X(SGP_LIK_GAUSSIAN, gaussian, 1, "identity link, variance noise")                         \
  X(SGP_LIK_BERNOULLI, bernoulli, 1, "logit link, y 0 or 1")                                \
  X(SGP_LIK_POISSON, poisson, 0, "log link, counts, log exposure offset")                   \
  X(SGP_LIK_SOFTMAX, softmax, 1, "y 1..n_class, one latent function per class")            \
  X(SGP_LIK_BINOMIAL, binomial, 0, "logit link, y successes in 0..trials")                 \
  X(SGP_LIK_NEGBIN, negbin, 0,                                                             \
    "log link, counts with variance mu + mu^2/dispersion, log exposure offset")

#define DECLARE(kind, name, valla, doc) extern const sgp_lik_ops sgp_lik_##name##_ops;
LIK_ROWS(DECLARE)

#define COUNT(kind, name, valla, doc) +1
enum { LIK_COUNT = 0 LIK_ROWS(COUNT) };

#define OPS_ROW(kind, name, valla, doc) [kind] = &sgp_lik_##name##_ops,
static const sgp_lik_ops *const rows[LIK_COUNT] = {LIK_ROWS(OPS_ROW)};

#define NAME_ROW(kind, name, valla, doc) [kind] = #name,
const char *const sgp_lik_names[LIK_COUNT + 1] = {LIK_ROWS(NAME_ROW)[LIK_COUNT] = NULL};

#define VALLA_ROW(kind, name, valla, doc) [kind] = (valla) ? #name : "",
const char *const sgp_lik_valla_names[LIK_COUNT + 1] = {LIK_ROWS(VALLA_ROW)[LIK_COUNT] = NULL};

#define DOC_ROW(kind, name, valla, doc) "\"" #name "\": " doc "; "
const char sgp_lik_doc[] = LIK_ROWS(DOC_ROW) "labels are checked against it";

const sgp_lik_ops *sgp_lik_ops_of(sgp_likelihood kind)
{
  return (int)kind >= 0 && (int)kind < LIK_COUNT ? rows[kind] : NULL;
}

int sgp_lik_valla(sgp_likelihood kind)
{
  return sgp_lik_ops_of(kind) && sgp_lik_valla_names[kind][0];
}

/* a parameter the evidence learns is "not given" (NaN) by default, as the
 * kernel's; the others take their default */
/* a classes likelihood without the block W has two (the logit's 0 and 1) */
int sgp_lik_label_coding(sgp_likelihood kind, int *classes, int *n_classes, int *first)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(kind);
  if (!ops) return 0;
  *classes = ops->classes;
  *n_classes = ops->classes && !ops->multiclass ? 2 : 0;
  *first = ops->classes ? ops->first_class : 0;
  return 1;
}

void sgp_lik_par_defaults(sgp_laplace_opts *o)
{
  for (int k = 0; k < LIK_COUNT; k++)
    if (rows[k]->par_name)
      *(double *)((char *)o + rows[k]->par_offset) =
        rows[k]->par_derivs ? NAN : rows[k]->par_default;
}

double sgp_lik_par_given(const sgp_laplace_opts *o)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(o->likelihood);
  return ops && ops->par_name ? *(const double *)((const char *)o + ops->par_offset) : NAN;
}

double sgp_lik_par_of(const sgp_laplace_opts *o)
{
  const sgp_lik_ops *ops = sgp_lik_ops_of(o->likelihood);
  const double v = sgp_lik_par_given(o);
  return ops && ops->par_name && isnan(v) ? ops->par_default : v;
}

/* "a", "a" or "b", "a", "b" or "c": the names of the likelihoods with a fact */
const char *sgp_lik_list(sgp_lik_fact fact, int quote, char *buf, size_t size)
{
  int k, count = 0, seen = 0;
  for (k = 0; k < LIK_COUNT; k++) count += sgp_lik_has(rows[k], fact);
  buf[0] = '\0';
  for (k = 0; k < LIK_COUNT; k++) {
    if (!sgp_lik_has(rows[k], fact)) continue;
    const size_t used = strlen(buf);
    snprintf(buf + used, size - used, quote ? "%s\"%s\"" : "%s%s",
             !seen ? "" : seen == count - 1 ? " or " : ", ", sgp_lik_names[k]);
    seen++;
  }
  return buf;
}
