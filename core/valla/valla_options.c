/* valla_options.c -- valla's options: names, kinds, defaults, ranges and docs,
 * defined once (sgp_options.h). The data (model, x, y, inducing locations and
 * their tags, validation, xtest, layers) stay with the fronts. The defaults
 * here are what sgp_valla_opts_default stores; a test checks that they agree. */
#include "api/sgp.h"
#include "api/sgp_options.h"
#include "runtime/sgp_internal.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>

#define OFF(field) offsetof(sgp_valla_opts, field)
#define MAX_COUNT 2147483647.0 /* counts as R's integers (and Octave's) */

static const char *const method_names[] = {"valla", "lla", "ella", NULL};
/* bit i = SGP_VALLA_LEARN_* */
static const char *const learn_names[] = {"A", "inducing", "prior_var", "noise", NULL};
static const char *const init_names[] = {"identity", "closed_form", NULL};
static const char *const noise_fit_names[] = {"validation", "adam", NULL}; /* SGP_VALLA_NOISE_* */

static const sgp_opt_spec specs[] = {
  {"likelihood", SGP_OPT_CHOICE, "NULL", 0, 0, SGP_OPT_NULL_OK, sgp_lik_valla_names,
   OFF(likelihood), SGP_STORE_INT, 0,
   "\"gaussian\", \"softmax\" or \"bernoulli\" (NULL: the network's, else gaussian for one "
   "output and softmax for more)"},
  {"method", SGP_OPT_CHOICE, "\"valla\"", 0, 0, 0, method_names, OFF(method), SGP_STORE_INT, 0,
   "\"valla\", \"lla\" (exact, n C at most lla_max) or \"ella\" (Nystrom)"},
  {"inducing", SGP_OPT_COUNT, "NULL", 1, MAX_COUNT, SGP_OPT_NULL_OK, NULL, OFF(n_inducing),
   SGP_STORE_INT64, 0,
   "number M of inducing points (k-means; NULL: 100, or all the rows left after the "
   "val_frac hold-out when fewer); a matrix gives their locations"},
  {"prior_var", SGP_OPT_REAL, "1", 0, INFINITY, SGP_OPT_LO_OPEN, NULL, OFF(prior_var),
   SGP_STORE_DOUBLE, 0, "initial prior variance of the weights (sigma0^2)"},
  {"noise", SGP_OPT_REAL, "NULL", 0, INFINITY, SGP_OPT_LO_OPEN | SGP_OPT_NULL_OK, NULL,
   OFF(noise), SGP_STORE_DOUBLE, 0,
   "initial gaussian noise variance (NULL: exp(-5) times the variance of y)"},
  {"learn", SGP_OPT_SUBSET, "c(\"A\", \"inducing\", \"prior_var\", \"noise\")", 0, 0, 0,
   learn_names, OFF(learn), SGP_STORE_INT, 0,
   "what Adam optimizes: any of \"A\", \"inducing\", \"prior_var\", \"noise\" (none: frozen)"},
  {"closed_form", SGP_OPT_FLAG, "FALSE", 0, 0, 0, NULL, OFF(closed_form), SGP_STORE_INT, 0,
   "set A to its optimum instead of learning it (method \"valla\")"},
  {"iterations", SGP_OPT_COUNT, "20000", 0, MAX_COUNT, 0, NULL, OFF(iterations),
   SGP_STORE_INT64, 0, "Adam iterations"},
  {"batch_size", SGP_OPT_COUNT, "100", 1, MAX_COUNT, 0, NULL, OFF(batch_size), SGP_STORE_INT64,
   0, "minibatch size"},
  {"lr", SGP_OPT_REAL, "0.001", 0, INFINITY, SGP_OPT_LO_OPEN, NULL, OFF(lr), SGP_STORE_DOUBLE, 0,
   "Adam step size"},
  {"alpha", SGP_OPT_REAL, "1", 0, 1, 0, NULL, OFF(alpha), SGP_STORE_DOUBLE, 0,
   "alpha of the objective (1: the log predictive density; 0: the ELBO; below 1 gaussian only)"},
  {"eval_every", SGP_OPT_COUNT, "100", 1, MAX_COUNT, 0, NULL, OFF(eval_every), SGP_STORE_INT64,
   0, "iterations between validation checks (after 1, 1 + eval_every, ... and the last)"},
  {"patience", SGP_OPT_COUNT, "1", 1, MAX_COUNT, 0, NULL, OFF(patience), SGP_STORE_INT64, 0,
   "checks without improvement before stopping"},
  {"restore_best", SGP_OPT_FLAG, "TRUE", 0, 0, 0, NULL, OFF(restore_best), SGP_STORE_INT, 0,
   "keep the checked state with the lowest validation NLL"},
  {"beta1", SGP_OPT_REAL, "0.9", 0, 1, SGP_OPT_HI_OPEN, NULL, OFF(beta1), SGP_STORE_DOUBLE, 0,
   "Adam's first-moment decay"},
  {"beta2", SGP_OPT_REAL, "0.999", 0, 1, SGP_OPT_HI_OPEN, NULL, OFF(beta2), SGP_STORE_DOUBLE, 0,
   "Adam's second-moment decay"},
  {"adam_eps", SGP_OPT_REAL, "1e-08", 0, INFINITY, SGP_OPT_LO_OPEN, NULL, OFF(adam_eps),
   SGP_STORE_DOUBLE, 0, "Adam's epsilon"},
  {"init_A", SGP_OPT_CHOICE, "\"identity\"", 0, 0, 0, init_names, OFF(init_A), SGP_STORE_INT, 0,
   "initial A: \"identity\" or \"closed_form\""},
  {"standardize_y", SGP_OPT_FLAG, "TRUE", 0, 0, 0, NULL, OFF(standardize_y), SGP_STORE_INT, 0,
   "standardize regression targets"},
  {"noise_fit", SGP_OPT_CHOICE, "\"validation\"", 0, 0, 0, noise_fit_names, OFF(noise_fit),
   SGP_STORE_INT, 0,
   "a learned gaussian noise: \"validation\" (the variance that minimizes the validation "
   "NLL at each check; honest when the network did not see those data) or \"adam\" "
   "(learned on x with the other parameters, as in the paper)"},
  {"folds", SGP_OPT_COUNT, "5", 0, MAX_COUNT, 0, NULL, OFF(folds), SGP_STORE_INT64, 0,
   "gaussian, without validation: out-of-fold residuals of this many refits of the network "
   "(refit; R: an nnet fit refits from its call) are the validation data; 0 or no refit: "
   "the val_frac hold-out, which the network was trained on"},
  {"kmeans_iter", SGP_OPT_COUNT, "10", 0, MAX_COUNT, 0, NULL, OFF(kmeans_iter), SGP_STORE_INT64,
   0, "k-means iterations for the inducing points"},
  {"kmeans_max", SGP_OPT_COUNT, "50000", 1, MAX_COUNT, 0, NULL, OFF(kmeans_max),
   SGP_STORE_INT64, 0, "points k-means uses at most"},
  {"jitter", SGP_OPT_REAL, "1e-08", 0, INFINITY, 0, NULL, OFF(jitter), SGP_STORE_DOUBLE, 0,
   "closed form with fewer inducing points than weights: K_ZZ + jitter mean(diag K_ZZ) I"},
  {"cache_max_bytes", SGP_OPT_REAL, "2147483648", 0, INFINITY, 0, NULL, OFF(cache_max_bytes),
   SGP_STORE_SIZE, 0, "cache the training kernels while the inducing points are fixed when "
   "they fit"},
  {"val_frac", SGP_OPT_REAL, "0.1", 0, 1, SGP_OPT_HI_OPEN, NULL, OFF(val_frac),
   SGP_STORE_DOUBLE, 0, "fraction of x held out for early stopping without validation"},
  {"val_max", SGP_OPT_COUNT, "10000", 1, MAX_COUNT, SGP_OPT_INF_NONE, NULL, OFF(val_max),
   SGP_STORE_INT64, 0, "validation points per check (a seeded subsample; Inf: all)"},
  {"lla_max", SGP_OPT_COUNT, "5000", 1, MAX_COUNT, 0, NULL, OFF(lla_max), SGP_STORE_INT64, 0,
   "method \"lla\": n C at most this"},
  {"ella_rank", SGP_OPT_COUNT, "20", 1, MAX_COUNT, 0, NULL, OFF(ella_rank), SGP_STORE_INT64, 0,
   "method \"ella\": eigenpairs kept"},
};

const sgp_verb_table sgp_valla_table = {"valla", specs, (int)(sizeof specs / sizeof specs[0]), 0};

/* mlp_fit's options (the layer widths `hidden` and the `activation` stay with
 * the fronts: they shape the network, not the training). */
#define MOFF(field) offsetof(sgp_valla_mlp_fit_opts, field)
static const sgp_opt_spec mlp_specs[] = {
  {"likelihood", SGP_OPT_CHOICE, "\"gaussian\"", 0, 0, 0, sgp_lik_valla_names, MOFF(likelihood),
   SGP_STORE_INT, 0, "\"gaussian\" (squared error, one output), \"softmax\" or \"bernoulli\""},
  {"iterations", SGP_OPT_COUNT, "2000", 0, MAX_COUNT, 0, NULL, MOFF(iterations), SGP_STORE_INT64,
   0, "Adam steps"},
  {"batch_size", SGP_OPT_COUNT, "100", 1, MAX_COUNT, 0, NULL, MOFF(batch_size), SGP_STORE_INT64,
   0, "minibatch size"},
  {"lr", SGP_OPT_REAL, "0.001", 0, INFINITY, SGP_OPT_LO_OPEN, NULL, MOFF(lr), SGP_STORE_DOUBLE, 0,
   "Adam step size"},
  {"weight_decay", SGP_OPT_REAL, "0", 0, INFINITY, 0, NULL, MOFF(weight_decay), SGP_STORE_DOUBLE,
   0, "L2 penalty, added as weight_decay * theta to the gradient"},
};

const sgp_verb_table sgp_mlp_fit_table = {"mlp_fit", mlp_specs,
                                          (int)(sizeof mlp_specs / sizeof mlp_specs[0]), 0};

int sgp_valla_opts_check(sgp_ctx *ctx, const sgp_valla_opts *o)
{
  if (o->noise > 0 && o->likelihood != SGP_LIK_GAUSSIAN)
    return sgp_fail(ctx, SGP_EINVAL, "noise: is only used with likelihood = \"gaussian\"");
  if (o->folds == 1)
    return sgp_fail(ctx, SGP_EINVAL, "folds: must be 0 or at least 2 (got 1)");
  if (o->closed_form && o->method != SGP_VALLA_METHOD_VALLA)
    return sgp_fail(ctx, SGP_EINVAL, "closed_form: is for method = \"valla\"");
  return SGP_OK;
}

int sgp_valla_stop_warning(sgp_valla_stop stop, int64_t diverged_at, char *buf, size_t size)
{
  const char *advice = sgp_valla_stop_advice(stop);
  if (size > 0) buf[0] = '\0';
  if (!advice[0]) return 0;
  if (diverged_at > 0)
    snprintf(buf, size, "%s (iteration %lld)", advice, (long long)diverged_at);
  else
    snprintf(buf, size, "%s", advice);
  return 1;
}
