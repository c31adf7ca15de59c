/* sgp_select.h -- the public C API of model selection, shared by gp_laplace
 * and ski_gsgp: what is learned and the hyperparameters a fit used with their trace. */
#ifndef SGP_SELECT_PUBLIC_H
#define SGP_SELECT_PUBLIC_H

#include "api/sgp_runtime.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What is learned by maximizing the evidence; AUTO: every hyperparameter not given.
 * Bit i is choice i of gp_laplace's `learn` (DISPERSION: negbin's, ALPHA: rq's). */
enum {
  SGP_LEARN_LENGTHSCALE = 1u, SGP_LEARN_OUTPUTSCALE = 2u, SGP_LEARN_MEAN = 4u,
  SGP_LEARN_NOISE = 8u, SGP_LEARN_AUTO = 16u, SGP_LEARN_DISPERSION = 32u, SGP_LEARN_ALPHA = 64u
};

/* The hyperparameters a fit used, and its model selection (gp_laplace, and
 * ski_gsgp with its one constant mean: n_mean 1): the evidence and its gradient in the coordinates theta = (log lengthscale(s), log outputscale, mean(s),
 * log noise, log dispersion, log alpha; each of the last three where the model has
 * it), and the optimizer's trace. */
typedef struct sgp_hyper {
  double *lengthscale;     /* n_lengthscale */
  int64_t n_lengthscale;
  double outputscale;
  double *mean;            /* n_mean: 1, or C (softmax) */
  int64_t n_mean;
  double noise;            /* gaussian with one noise value (NaN otherwise) */
  double dispersion;       /* the likelihood's scalar parameter (negbin), with has_dispersion */
  double alpha;            /* the kernel's shape parameter (rq), with has_alpha */
  int has_dispersion, has_alpha; /* theta has their coordinates (0: absent, as memset leaves) */
  unsigned requested;      /* SGP_LEARN_* bits asked for (learn, AUTO resolved) */
  unsigned learned;        /* SGP_LEARN_* bits that were optimized */
  int64_t n_theta;         /* coordinates of grad */
  double loglik;           /* the evidence (gp_laplace: exact Laplace or the matrix-free
                            * estimate; ski_gsgp: SLQ estimate); NaN when not computed
                            * (note says why) */
  double loglik_se;        /* the estimate's standard error; 0 when exact */
  double *grad;            /* n_theta, or NULL with loglik */
  int64_t n_eval;          /* optimizer evaluations (rows of the trace) */
  double *tr_loglik, *tr_gradnorm, *tr_seconds; /* n_eval each */
  double *tr_theta;        /* n_eval x n_theta (ld n_eval): the values evaluated, on the
                            * user's scale (lengthscale, outputscale, mean, noise) */
  int optim_converged;
  int optim_timed_out;     /* the learning stopped at the time limit */
  int optim_interrupted;   /* always 0: an interrupted learning ends the call (SGP_EINTERRUPT) */
  char optim_message[256];
  char note[256];          /* "" or why the hyperparameters were not learned / loglik is NaN */
  /* the lengthscales the plain data's hyper shows where they are not theta's
   * (gp_laplace on standardized inputs: on the inputs' own scale); NULL: lengthscale */
  const double *ls_report;
  int64_t n_ls_report;
} sgp_hyper;
typedef sgp_hyper sgp_laplace_hyper;
/* The name of coordinate k of theta ("lengthscale" or "lengthscale1".., "outputscale",
 * "mean" or "mean1".., "noise", "dispersion", "alpha"). */
void sgp_hyper_theta_name(const sgp_hyper *h, int64_t k, char *buf, size_t size);
void sgp_hyper_free(sgp_hyper *h);

#ifdef __cplusplus
}
#endif
#endif /* SGP_SELECT_PUBLIC_H */
