/* laplace_options.c -- gp_laplace's options: names, kinds, defaults, ranges and
 * docs, defined once (sgp_options.h). The defaults here are what
 * sgp_laplace_opts_default stores; a test checks that the two agree. */
#include "laplace/evidence.h"
#include "laplace/laplace.h"
#include "api/sgp_options.h"

#include <math.h>
#include <stddef.h>

#define OFF(field) offsetof(sgp_laplace_opts, field)
/* the subset size of the stochastic learning's start, in the option's text */
#define TEXT_OF(x) #x
#define TEXT_OF_VALUE(x) TEXT_OF(x)
#define PILOT_N_TEXT TEXT_OF_VALUE(SGP_EVS_PILOT_N)

static const char *const policy_names[] = {"cg", "cholesky", "auto", NULL}; /* SGP_POLICY_* */
static const char *const residual_names[] = {"explicit", "recursive", NULL}; /* SGP_RESIDUAL_* */
static const char *const history_trace_names[] = {"auto", "always", NULL}; /* SGP_HISTORY_TRACE_* */
static const char *const evidence_names[] = {"auto", "exact", "stochastic", NULL}; /* SGP_EVIDENCE_* */
/* bit i of sgp_laplace_opts.learn (SGP_LEARN_*) */
static const char *const learn_names[] = {"lengthscale", "outputscale", "mean", "noise", "auto",
                                          "dispersion", "alpha", NULL};

static const sgp_opt_spec specs[] = {
  {"likelihood", SGP_OPT_CHOICE, "\"bernoulli\"", 0, 0, 0, sgp_lik_names, OFF(likelihood),
   SGP_STORE_INT, 0, sgp_lik_doc},
  SGP_KERNEL_OPTION_ROWS_ALPHA(sgp_laplace_opts, kernel, "NULL", "NULL", SGP_OPT_NULL_OK,
                               "; not given: learned (1 when learn leaves it out)", "NULL",
                               SGP_OPT_NULL_OK, "; not given: learned (1 when learn leaves "
                               "it out)"),
  {"mean", SGP_OPT_VECTOR, "NULL", 0, 0, SGP_OPT_PTR, NULL, OFF(mean), SGP_STORE_DOUBLE, OFF(n_mean),
   "constant prior mean: 1 value, or one per class (softmax); not given: learned (0 when learn "
   "leaves it out)"},
  {"noise", SGP_OPT_VECTOR, "NULL", 0, 0, 0, NULL, OFF(noise), SGP_STORE_DOUBLE, 0,
   "gaussian: noise variance, 1 or n values; not given: learned (1 when learn leaves it out)"},
  {"learn", SGP_OPT_SUBSET, "\"auto\"", 0, 0, 0, learn_names, OFF(learn), SGP_STORE_INT, 0,
   "maximize the evidence over these of \"lengthscale\", \"outputscale\", \"mean\", \"noise\", "
   "\"dispersion\" (negbin), \"alpha\" (kernels with alpha) (\"auto\": those not given; "
   "character(0) / {}: none)"},
  {"optim_max_iter", SGP_OPT_COUNT, "100", 1, 2147483647.0, 0, NULL, OFF(optim_max_iter),
   SGP_STORE_INT, 0, "evidence evaluations of the optimizer at most"},
  {"restarts", SGP_OPT_COUNT, "0", 0, 1000, 0, NULL, OFF(restarts), SGP_STORE_INT, 0,
   "extra optimizer starts from seeded random values"},
  {"evidence", SGP_OPT_CHOICE, "\"auto\"", 0, 0, 0, evidence_names, OFF(evidence), SGP_STORE_INT, 0,
   "\"exact\" (dense, O(n^3)), \"stochastic\" (matrix-free estimate with a standard error, "
   "learned from the exact optimum on a seeded subset of " PILOT_N_TEXT " points when n is "
   "at least twice that; "
   "not softmax) or \"auto\" (exact when its (5 + 3C) n^2 doubles fit in a quarter of the memory)"},
  {"probes", SGP_OPT_COUNT, "32", 2, 100000, 0, NULL, OFF(probes), SGP_STORE_INT, 0,
   "stochastic evidence: probes, preconditioned, their random parts fixed during learning (the seed's)"},
  {"offset", SGP_OPT_VECTOR, "NULL", 0, 0, 0, NULL, OFF(offset), SGP_STORE_DOUBLE, 0,
   "log exposure per point, for the likelihoods with a log link (none given: 0)"},
  {"trials", SGP_OPT_VECTOR, "NULL", 0, 0, 0, NULL, OFF(trials), SGP_STORE_DOUBLE, 0,
   "binomial: trials per point (y successes in 0..trials), 1 or n whole numbers >= 1 "
   "(none given: 1)"},
  {"dispersion", SGP_OPT_REAL, "NULL", 0, INFINITY, SGP_OPT_LO_OPEN | SGP_OPT_NULL_OK, NULL,
   OFF(dispersion), SGP_STORE_DOUBLE, 0, "negbin: r of the variance mu + mu^2/r (Poisson as "
   "r -> Inf); not given: learned (1 when learn leaves it out)"},
  {"policy", SGP_OPT_CHOICE, "\"auto\"", 0, 0, 0, policy_names, OFF(policy), SGP_STORE_INT, 0,
   "solver actions: \"cg\" (residuals), \"cholesky\" (unit vectors: subset of data) or "
   "\"auto\": the exact Laplace (cholesky with max_iter = n C) where its dense factor (8 (n C)^2 "
   "doubles) fits in a quarter of the memory and n C <= 3000 or the learning used the exact "
   "evidence (C = 1), else cg; cg when max_iter, rank, max_total_iter or precond_rank is given. "
   "The fit's policy and policy_reason say which ran and why"},
  {"residual", SGP_OPT_CHOICE, "\"recursive\"", 0, 0, 0, residual_names, OFF(residual),
   SGP_STORE_INT, 0,
   "K v of the solver: \"recursive\" (updated from each action's product: one kernel "
   "product per iteration, recomputed every 32) or \"explicit\" (recomputed: two)"},
  {"max_newton", SGP_OPT_COUNT, "20", 1, 2147483647.0, 0, NULL, OFF(max_newton), SGP_STORE_INT, 0,
   "Newton steps at most"},
  {"max_iter", SGP_OPT_COUNT, "NULL", 1, 2147483647.0, SGP_OPT_NULL_OK, NULL, OFF(max_iter),
   SGP_STORE_INT, 0,
   "solver iterations per Newton step (the budget; C actions each with class_actions); NULL: 5 "
   "(n C on policy auto's exact path)"},
  {"precond_rank", SGP_OPT_COUNT, "0", 0, 2147483647.0, 0, NULL, OFF(precond_rank),
   SGP_STORE_INT, 0,
   "policy cg: rank of a pivoted-Cholesky preconditioner of K + W^-1 that picks the actions "
   "(0: none; not softmax)"},
  {"class_actions", SGP_OPT_FLAG, "TRUE", 0, 0, 0, NULL, OFF(class_actions), SGP_STORE_INT, 0,
   "softmax with C > 2, policy cg: each action's C class blocks (centred per point) are C "
   "actions from its one kernel product (where their buffers fit in a quarter of the memory)"},
  {"rank", SGP_OPT_COUNT, "Inf", 0, 9007199254740992.0, SGP_OPT_INF_NONE, NULL, OFF(rank),
   SGP_STORE_INT64, 0, "compression rank of the recycled actions (Inf: none)"},
  {"tol", SGP_OPT_REAL, "1e-06", 0, INFINITY, 0, NULL, OFF(tol), SGP_STORE_DOUBLE, 0,
   "converged when the bound on max |f - mode| is at most tol, in units of the latent scale: "
   "sqrt(outputscale) for gaussian (y's scale), 1 for the others (the link's)"},
  {"n_class", SGP_OPT_COUNT, "0", 0, 2147483647.0, 0, NULL, OFF(n_class), SGP_STORE_INT, 0,
   "softmax: number of classes (0: the largest label)"},
  {"recycle", SGP_OPT_FLAG, "TRUE", 0, 0, 0, NULL, OFF(recycle), SGP_STORE_INT, 0,
   "reuse the solver's actions across Newton steps"},
  {"damping", SGP_OPT_FLAG, "TRUE", 0, 0, 0, NULL, OFF(damping), SGP_STORE_INT, 0,
   "globalized Newton steps that never lower the Laplace objective"},
  {"max_total_iter", SGP_OPT_COUNT, "Inf", 0, 9007199254740992.0, SGP_OPT_INF_NONE, NULL,
   OFF(max_total_iter), SGP_STORE_INT64, 0,
   "cap on the total number of solver actions (one per iteration; C with class_actions)"},
  {"random_order", SGP_OPT_FLAG, "FALSE", 0, 0, 0, NULL, OFF(random_order), SGP_STORE_INT, 0,
   "cholesky policy: visit the points in a seeded random order"},
  {"time_limit", SGP_OPT_REAL, "Inf", 0, INFINITY, SGP_OPT_INF_NONE, NULL, OFF(time_limit),
   SGP_STORE_DOUBLE, 0, "seconds after which the call stops learning and Newton steps (the fit says so)"},
  {"inner_atol", SGP_OPT_REAL, "1e-05", 0, INFINITY, 0, NULL, OFF(inner_atol), SGP_STORE_DOUBLE,
   0, "solver residual tolerance in units of the latent scale (as tol); the larger of it and "
   "inner_rtol's applies"},
  {"inner_rtol", SGP_OPT_REAL, "1e-05", 0, INFINITY, 0, NULL, OFF(inner_rtol), SGP_STORE_DOUBLE,
   0, "solver residual tolerance, relative to the norm of the right-hand side"},
  {"noise_max", SGP_OPT_REAL, "1e+12", 0, INFINITY, SGP_OPT_LO_OPEN, NULL, OFF(noise_max),
   SGP_STORE_DOUBLE, 0, "cap on the pseudo-noise W^-1 (1/pi for softmax) of confident points (not gaussian's noise)"},
  {"history_trace", SGP_OPT_CHOICE, "\"auto\"", 0, 0, 0, history_trace_names, OFF(history_trace),
   SGP_STORE_INT, 0,
   "the history's trace column (a metric): \"auto\": where it is cheap (NA in the exact "
   "mode's dense first solve, where it costs as much as the solve), \"always\": everywhere"},
  {"scale", SGP_OPT_FLAG, "TRUE", 0, 0, 0, NULL, OFF(scale), SGP_STORE_INT, 0,
   "standardize each input column for the kernel (centre: mean, scale: sd; a constant column "
   "keeps scale 1) where the lengthscale is learned or defaulted; the fit reports lengthscales "
   "on the inputs' own scale (one learned isotropic value becomes one per column, times its sd). "
   "A given lengthscale is on the inputs' own scale: centring only. The fit's scaling says "
   "which, with centre and scale, which predict applies to new inputs"},
  {"kernel_cache_bytes", SGP_OPT_REAL, "2147483648", 0, INFINITY, 0, NULL,
   OFF(kernel_cache_bytes), SGP_STORE_SIZE, 0,
   "keep the kernel matrix when its 8 n^2 bytes fit (else matrix-free)"},
};

const sgp_verb_table sgp_laplace_table = {"gp_laplace", specs, (int)(sizeof specs / sizeof specs[0]), 0};
