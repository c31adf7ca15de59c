/* skl_options.c -- ski_laplace's options (names, kinds, defaults, ranges,
 * docs; api/sgp_options.h), defined once for both hosts. The defaults here are
 * what sgp_ski_laplace_opts_default stores; a test checks that they agree. */
#include "ski_laplace/skl.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define OFF(field) offsetof(sgp_ski_laplace_opts, field)
#define INTMAX 2147483647.0

static const char *const layout_names[] = {"auto", "cells", "points", "binned", "scattered", NULL};
/* index = sgp_ski_interpolation, then SGP_SKL_INTERPOLATION_AUTO */
static const char *const interpolation_names[] = {"cubic", "linear", "auto", NULL};
/* index = sgp_ski_bounds_policy (ski_gsgp's names; truncate is refused) */
static const char *const bounds_names[] = {"error", "truncate", "clamp", "drop", NULL};
static const char *const loglik_method_names[] = {"auto", "exact", "slq", "eigen", NULL};
static const char *const variance_names[] = {"none", "exact", "stochastic", NULL};
/* bit i of learn (SGP_LEARN_*); noise is not learned here (an error) */
static const char *const learn_names[] = {"lengthscale", "outputscale", "mean", "noise", "auto",
                                          NULL};

static const sgp_opt_spec specs[] = {
  {"likelihood", SGP_OPT_CHOICE, "\"poisson\"", 0, 0, 0, sgp_lik_names, OFF(likelihood),
   SGP_STORE_INT, 0, "the observation model per cell (softmax is not supported)"},
  {"layout", SGP_OPT_CHOICE, "\"auto\"", 0, 0, 0, layout_names, OFF(layout), SGP_STORE_INT, 0,
   "\"cells\": y has one value per grid cell, no x; \"points\": x is a point pattern, no y "
   "(a log-Gaussian Cox process); \"binned\": x, y summed into the nearest cells; "
   "\"scattered\": x, y per observation at its own location (the latent interpolated "
   "there, no binning); \"auto\" picks cells, points or binned from the arguments"},
  {"grid_size", SGP_OPT_COUNTS, "NULL", 1, INTMAX, SGP_OPT_NULL_OK, NULL, OFF(grid_size),
   SGP_STORE_INT64, OFF(n_grid_size),
   "grid points per dimension (cells: dim(y); else 64 per dimension)"},
  {"grid_bounds", SGP_OPT_VECTOR, "NULL", 0, 0, SGP_OPT_PTR, NULL, OFF(grid_bounds),
   SGP_STORE_DOUBLE, OFF(n_grid_bounds),
   "d x 2 range of the cell centres (cells: 1..dim(y); else the data's range plus grid_pad)"},
  {"grid_pad", SGP_OPT_COUNT, "1", 0, INTMAX, 0, NULL, OFF(grid_pad), SGP_STORE_INT, 0,
   "cells added beyond the data's range on each side (points, binned)"},
  {"interpolation", SGP_OPT_CHOICE, "\"auto\"", 0, 0, 0, interpolation_names,
   OFF(interpolation), SGP_STORE_INT, 0,
   "weights of a location on the grid: \"cubic\", \"linear\" or \"auto\" (cubic for the "
   "scattered layout, else linear; the points layout takes linear: its counts stay >= 0)"},
  {"bounds_policy", SGP_OPT_CHOICE, "\"error\"", 0, 0, 0, bounds_names, OFF(bounds_policy),
   SGP_STORE_INT, 0, "scattered: rows of x outside the grid's valid range: \"error\", "
   "\"clamp\" (to the nearest valid position) or \"drop\" (the observation; a warning "
   "counts them)"},
  SGP_KERNEL_OPTION_ROWS_AS(sgp_ski_laplace_opts, kernel, "NULL", "NULL", SGP_OPT_NULL_OK,
                            " (learned when not given)"),
  {"mean", SGP_OPT_REAL, "NULL", -INFINITY, INFINITY, SGP_OPT_NULL_OK, NULL, OFF(mean),
   SGP_STORE_DOUBLE, 0, "constant prior mean of the latent field (learned when not given)"},
  {"noise", SGP_OPT_REAL, "1", 0, INFINITY, SGP_OPT_LO_OPEN, NULL, OFF(noise), SGP_STORE_DOUBLE,
   0, "gaussian likelihood: the noise variance (fixed)"},
  {"dispersion", SGP_OPT_REAL, "1", 0, INFINITY, SGP_OPT_LO_OPEN, NULL, OFF(dispersion),
   SGP_STORE_DOUBLE, 0, "negbin likelihood: r of the variance mu + mu^2 / r (fixed)"},
  {"learn", SGP_OPT_SUBSET, "\"auto\"", 0, 0, 0, learn_names, OFF(learn), SGP_STORE_INT, 0,
   "hyperparameters learned by the Laplace evidence (\"auto\": those not given)"},
  {"optim_max_iter", SGP_OPT_COUNT, "100", 1, INTMAX, 0, NULL, OFF(optim_max_iter),
   SGP_STORE_INT, 0, "evidence evaluations of the learning at most"},
  {"restarts", SGP_OPT_COUNT, "0", 0, 1000, 0, NULL, OFF(restarts), SGP_STORE_INT, 0,
   "extra seeded starts of the learning"},
  {"max_newton", SGP_OPT_COUNT, "20", 1, INTMAX, 0, NULL, OFF(max_newton), SGP_STORE_INT, 0,
   "Newton steps at most"},
  {"tol", SGP_OPT_REAL, "1e-06", 0, INFINITY, SGP_OPT_LO_OPEN, NULL, OFF(tol), SGP_STORE_DOUBLE,
   0, "converged when the bound on the mode's error |u - u^| is at most tol"},
  {"damping", SGP_OPT_FLAG, "TRUE", 0, 0, 0, NULL, OFF(damping), SGP_STORE_INT, 0,
   "halve Newton steps until the objective does not fall"},
  {"inner_rtol", SGP_OPT_REAL, "1e-08", 0, 1, SGP_OPT_LO_OPEN, NULL, OFF(inner_rtol),
   SGP_STORE_DOUBLE, 0, "relative residual of the solves near the mode"},
  {"max_iter", SGP_OPT_COUNT, "1000", 1, INTMAX - 1, 0, NULL, OFF(max_iter), SGP_STORE_INT64, 0,
   "conjugate-gradient steps per solve at most"},
  {"loglik", SGP_OPT_FLAG, "NULL", 0, 0, SGP_OPT_NULL_OK, NULL, OFF(loglik), SGP_STORE_INT, 0,
   "compute the Laplace evidence (default: when learning, or on the exact path)"},
  {"loglik_method", SGP_OPT_CHOICE, "\"auto\"", 0, 0, 0, loglik_method_names, OFF(loglik_method),
   SGP_STORE_INT, 0,
   "\"exact\": dense on the observed cells; \"slq\": stochastic Lanczos quadrature with "
   "probes; \"eigen\": preconditioned slq in a separable kernel's eigenbasis (at most 1024 "
   "points per dimension; cells, points and binned layouts); \"auto\": exact up to 512 "
   "observed cells (or observations), else eigen where it applies, else slq"},
  {"probes", SGP_OPT_COUNT, "NULL", 2, 100000, SGP_OPT_NULL_OK, NULL, OFF(probes), SGP_STORE_INT64,
   0, "slq and eigen: Rademacher probes of the log-determinant, traces and variances "
   "(default 10 on the eigen path, whose preconditioned probes vary less, 60 on slq)"},
  {"slq_max_iter", SGP_OPT_COUNT, "100", 1, INTMAX, 0, NULL, OFF(slq_max_iter), SGP_STORE_INT64,
   0, "slq: Lanczos steps per probe at most"},
  {"variance", SGP_OPT_CHOICE, "\"exact\"", 0, 0, 0, variance_names, OFF(variance),
   SGP_STORE_INT, 0, "latent variances: \"exact\" one solve per xtest point, and per "
   "observed cell (var) up to 512 of them; \"stochastic\" at every grid point from the "
   "probes (grid_var, grid_var_se, and var; no solve per point)"},
  {"time_limit", SGP_OPT_REAL, "Inf", 0, INFINITY, SGP_OPT_INF_NONE, NULL, OFF(time_limit),
   SGP_STORE_DOUBLE, 0, "seconds for the whole call (learning included)"},
};

const sgp_verb_table sgp_ski_laplace_table = {"ski_laplace", specs,
                                              (int)(sizeof specs / sizeof specs[0]), 0};

void sgp_ski_laplace_opts_default(sgp_ski_laplace_opts *o)
{
  memset(o, 0, sizeof *o);
  o->likelihood = SGP_LIK_POISSON;
  o->layout = SGP_SKL_LAYOUT_AUTO;
  o->grid_pad = 1;
  o->interpolation = (sgp_ski_interpolation)SGP_SKL_INTERPOLATION_AUTO;
  o->bounds_policy = SGP_SKI_BOUNDS_ERROR;
  sgp_kernel_opts k;
  sgp_kernel_opts_default(&k);
  o->kernel = k.kernel;
  o->kernel.lengthscale = NULL;
  o->kernel.n_lengthscale = 0;
  o->kernel.outputscale = NAN;
  o->mean = NAN;
  o->noise = 1.0;
  o->dispersion = 1.0;
  o->learn = SGP_LEARN_AUTO;
  o->optim_max_iter = 100;
  o->max_newton = 20;
  o->tol = 1e-6;
  o->damping = 1;
  o->inner_rtol = 1e-8;
  o->max_iter = 1000;
  o->loglik = -1;
  o->loglik_method = SGP_SKL_LOGLIK_AUTO;
  o->probes = 0; /* by the path: SKL_EIG_PROBES, SKL_SLQ_PROBES */
  o->slq_max_iter = 100;
  o->variance = SGP_SKL_VARIANCE_EXACT;
  o->time_limit = -1.0;
}
