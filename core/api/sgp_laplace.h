/* sgp_laplace.h -- the public C API of gp_laplace: options, fit, predict. */
#ifndef SGP_LAPLACE_PUBLIC_H
#define SGP_LAPLACE_PUBLIC_H

#include "api/sgp_kernels.h"
#include "api/sgp_likelihood.h"
#include "api/sgp_select.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------- gp_laplace */
/* IterNCGP: computation-aware Laplace inference for non-conjugate likelihoods
 * (Tatzel, Wenger, Schneider and Hennig, "Accelerating Generalized Linear Models
 * by Trading off Computation for Uncertainty", 2023; IterGP: Wenger, Pleiss,
 * Pfoertner, Hennig and Cunningham, "Posterior and Computational Uncertainty in
 * Gaussian Processes", NeurIPS 2022); docs/gp_laplace.md. Every NC-vector is a
 * column-major N-by-C matrix. */

/* AUTO (the default) is resolved before the Newton loop (sgp_laplace_auto_policy):
 * the exact Laplace (CHOLESKY with max_iter = NC) where its dense factor fits, else
 * CG; a max_iter the caller gives (> 0) means CG with that budget. */
typedef enum { SGP_POLICY_CG = 0, SGP_POLICY_CHOLESKY = 1, SGP_POLICY_AUTO = 2 } sgp_policy;
typedef enum { SGP_RESIDUAL_EXPLICIT = 0, SGP_RESIDUAL_RECURSIVE = 1 } sgp_residual;

/* Stop reasons (inner loop and outer loop). */
enum {
  SGP_STOP_NONE = 0,
  SGP_STOP_RESID = 1,      /* inner: residual below max(inner_atol, inner_rtol ||b||) */
  SGP_STOP_MAXITER = 2,    /* inner: max_iter iterations in this Newton step */
  SGP_STOP_BUDGET = 3,     /* max_total_iter reached or the buffer is full */
  SGP_STOP_BREAKDOWN = 4,  /* inner: eta <= eta_tol s'z (action in span(S)) */
  SGP_STOP_EXHAUSTED = 5,  /* inner: unit policy used all NC unit vectors */
  SGP_STOP_CONVERGED = 6,  /* outer: the mode bound at the linearization point <= tol */
  SGP_STOP_MAXNEWTON = 7,  /* outer: max_newton steps */
  SGP_STOP_DIVERGED = 8,   /* outer: non-finite latent / pseudo-targets */
  SGP_STOP_TIME = 9,       /* outer: time_limit reached */
  SGP_STOP_STALLED = 10,   /* outer: the iterates stopped moving (relative step at
                            * rounding twice) with the mode bound still above tol */
  SGP_STOP_STAGNATED = 11  /* inner: the residual stopped decreasing (20 iterations
                            * without halving): the attainable accuracy */
};
const char *sgp_laplace_stop_name(int reason);

typedef struct {
  sgp_likelihood likelihood; /* default bernoulli */
  sgp_cmat noise;            /* gaussian variance: 1x1 or Nx1; empty (default) = 1.
                              * Other likelihoods: must stay empty (SGP_EINVAL) */
  sgp_cmat offset;           /* Nx1 poisson log exposure; empty (data NULL) = 0 */
  sgp_cmat trials;           /* binomial trials: 1x1 or Nx1 whole numbers >= 1; empty = 1 */
  double dispersion;         /* negbin: r of the variance mu + mu^2 / r (> 0); NaN (default):
                              * not given, learned or 1 (sgp_laplace_opts.learn) */
  sgp_kernel kernel;         /* shared by all classes */
  sgp_policy policy;         /* default AUTO */
  int max_newton;            /* default 20 */
  int max_iter;              /* solver iterations per Newton step; 0 (default): not
                              * given, 5 for CG and CHOLESKY, NC on AUTO's exact path */
  int64_t rank;              /* compression rank R; < 0 = Inf (default) */
  double tol;                /* outer: converged when the bound on max |f_i - f_mode| at the
                              * linearization point of the returned posterior is <= tol
                              * (f_i - f_mode <= ||grad Psi(f_i)|| / curvature); 1e-6 */
  int n_class;               /* C for softmax (>= 2; 0 = the largest label, the default),
                              * ignored otherwise */
  int recycle;               /* 1: recycle S, T across Newton steps (default) */
  int64_t max_total_iter;    /* < 0 = none (default) */
  double time_limit;         /* seconds; < 0 = none (default) */
  double inner_atol, inner_rtol, eta_tol; /* 1e-5, 1e-5, 0 */
  double eig_rtol, kappa, noise_max;      /* 1e-12, 0, 1e12 */
  sgp_residual residual;     /* default recursive: one kernel product per solver
                              * iteration, K v recomputed every 32 */
  int damping;               /* 1: backtracking on Psi after each Newton step, so
                              * that truncated solves cannot diverge; 0: the paper's
                              * undamped steps; 1 */
  int random_order;          /* unit policy: seeded random permutation (default 0) */
  size_t kernel_cache_bytes; /* materialize K_x when 8 N^2 bytes fit; default 2 GiB */
  int tile;                  /* kernel tile size; default 512 */
  /* model selection. Not given: the kernel's
   * lengthscale NULL, its outputscale NaN, mean NULL, noise empty. */
  const double *mean;        /* constant prior mean: 1 value, or C (softmax); added to
                              * sgp_laplace_fit's prior_mean */
  int64_t n_mean;
  unsigned learn;            /* SGP_LEARN_* bits; default 0 (none; AUTO: those not given) */
  int optim_max_iter;        /* evidence evaluations of the optimizer at most; 100 */
  int restarts;              /* extra seeded starts of the optimizer; 0 */
  int evidence;              /* SGP_EVIDENCE_*: the exact evidence or the matrix-free
                              * estimate (diagonal W only); default AUTO: exact when it
                              * fits in memory */
  int probes;                /* stochastic evidence: Rademacher probes (ctx seed); 32 */
  int precond_rank;          /* policy cg, diagonal W: the cg actions are P^-1 r with P =
                              * F F' + W^-1, F F' a rank-k pivoted Cholesky of K (IterGP
                              * with preconditioned actions); 0 = none (default) */
  int class_actions;         /* softmax with C > 2, policy cg: each cg action's C class
                              * blocks (per point centred) are C actions, their kernel
                              * products all from the action's one product (default 1);
                              * 0: one action per iteration */
  int history_trace;         /* SGP_HISTORY_TRACE_*: the history's trace column (a metric,
                              * not used by the fit). AUTO (default): recorded where it is an
                              * incremental O(B NC) update; NaN in the exact mode's dense
                              * first solve, where it needs the inverse of a Cholesky factor
                              * (NC^3/3 flops, as much as the solve). ALWAYS: everywhere */
  int scale;                 /* 1 (default): the kernel sees each input column standardized
                              * (centre: mean, scale: sd; a constant column scale 1), the
                              * scale only where the lengthscale is not given (a given one is
                              * on the inputs' own scale: centring only). 0: inputs as given */
} sgp_laplace_opts;

enum { SGP_EVIDENCE_AUTO = 0, SGP_EVIDENCE_EXACT = 1, SGP_EVIDENCE_STOCHASTIC = 2 };
enum { SGP_HISTORY_TRACE_AUTO = 0, SGP_HISTORY_TRACE_ALWAYS = 1 };

void sgp_laplace_opts_default(sgp_laplace_opts *o);

/* History: one row per accepted solver iteration (iteration arrays) and one per
 * Newton step (step arrays). */
typedef struct {
  int64_t n_iter, n_step;
  /* per accepted iteration */
  int *it_newton, *it_iter; /* Newton step from 0; iteration within it from 1 */
  int64_t *it_total, *it_buffer, *it_rank; /* total from 1 */
  double *it_resid, *it_rel_resid, *it_alpha, *it_eta, *it_trace, *it_time;
  /* per Newton step */
  double *st_psi;     /* Psi at the linearization point f_i */
  double *st_delta;   /* relative Newton step delta_i */
  double *st_mode_err;/* bound on max |f_i - f_mode| at the linearization point f_i */
  int *st_inner_stop; /* inner stop reason */
  int64_t *st_kprod;  /* K products in this step */
  int64_t *st_dropped;/* eigenpairs dropped/truncated by the virtual run */
  double *st_time;
} sgp_laplace_history;

typedef struct sgp_laplace_result {
  int64_t n, d, C, r;      /* data points, input dimension, latents, rank of root */
  sgp_likelihood likelihood;
  sgp_kernel kernel;       /* lengthscale points into the fit's own copy */
  double *lengthscale;
  double *X;               /* N x d copy of the inputs */
  double noise;            /* gaussian scalar noise (first entry) for the response */
  double *m;               /* N x C prior mean at X */
  double *f;               /* N x C latent mode estimate f_{i+1} = m + K v */
  double *var;             /* N x C latent variances incl. computational uncertainty */
  double *weights;         /* N x C representer weights v */
  double *root;            /* NC x r, C_j = Q Q' */
  double *flin;            /* N x C linearization point f_i of the last problem */
  double *noise_data;      /* N x C W^{-1} diagonal (softmax: capped 1/pi) at flin */
  int newton_steps;
  int64_t iterations;      /* total accepted solver iterations J */
  int converged;
  int stop_reason, inner_stop_reason;
  int64_t kernel_products;
  int policy;              /* the policy that ran (SGP_POLICY_CG or _CHOLESKY) */
  int max_iter;            /* and its budget per Newton step */
  char policy_reason[160]; /* why: "given", or policy auto's choice and its reason */
  int64_t empty_class;     /* softmax: the first class in 1..C no training point has, else 0 */
  int64_t var_unresolved;  /* variances in var below what rounding resolves (warned) */
  sgp_laplace_hyper hyper; /* the hyperparameters used and their selection */
  sgp_laplace_history history;
  /* the inputs the kernel sees are (X - centre) / scale, column by column (kernel's
   * lengthscales on that scale); NULL both: X as given (a fit saved before scaling) */
  double *centre, *scale;  /* d each */
  int scaled;              /* the columns were divided by their sd (option scale, the
                            * lengthscale not given); 0: centred only or as given */
  char scale_note[256];    /* what was done to the inputs and why, for print */
} sgp_laplace_result;

/* y: N x 1 (softmax labels 1..C as doubles); prior_mean: N x C or empty (= 0). */
int sgp_laplace_fit(sgp_ctx *ctx, sgp_cmat X, sgp_cmat y, sgp_cmat prior_mean,
                    const sgp_laplace_opts *o, sgp_laplace_result **out);
/* The warnings of a fit, one wording for both hosts, one per line of buf ("" and 0
 * when none): it did not converge, a softmax class has no training point, variances
 * that rounding does not resolve, model selection fell short. ids (may be NULL) gets
 * each line's identifier ("not-converged", "empty-class", "variance-unresolved",
 * "model-selection"), one per line. Returns the count. */
#define SGP_LAPLACE_WARNING_SIZE 2048
int sgp_laplace_warning(const sgp_laplace_result *fit, const sgp_laplace_opts *o, char *buf,
                        size_t size, char *ids, size_t ids_size);
void sgp_laplace_fit_free(sgp_laplace_result *fit);
/* Latent mean / variance (Ns x C each; var may have data NULL) at Xs (with the
 * fit's constant prior mean), and the response (optional, data NULL to skip), Ns x C each:
 * bernoulli P(y=1) by the probit approximation and its Bernoulli variance;
 * softmax probabilities softmax(mu_c kappa(s2_c)) and p(1-p); poisson rate mean
 * exp(mu+o+s2/2) and variance (e^{s2}-1) e^{2(mu+o)+s2}; gaussian mu and s2+noise.
 * offset_s: Ns x 1 test log exposure (poisson) or empty. */
int sgp_laplace_predict(sgp_ctx *ctx, const sgp_laplace_result *fit, sgp_cmat Xs,
                        sgp_cmat offset_s, sgp_mat mean, sgp_mat var, sgp_mat resp_mean,
                        sgp_mat resp_var);
/* The same, counting into *unresolved the latent variances below what rounding
 * resolves (reported as computed, 0 where negative; the caller warns). */
int sgp_laplace_predict_count(sgp_ctx *ctx, const sgp_laplace_result *fit, sgp_cmat Xs,
                              sgp_cmat offset_s, sgp_mat mean, sgp_mat var, sgp_mat resp_mean,
                              sgp_mat resp_var, int64_t *unresolved);

/* A non-owning fit for predictions from plain data (a fit reloaded from R or
 * Octave): fills *fit with pointers to X (n x d), weights (n x C) and root
 * (nC x r, r may be 0), the kernel (its lengthscale array is referenced), the
 * likelihood, C, the gaussian noise and the constant prior mean (1 or C values, or
 * empty = 0; referenced). Checks shapes and finiteness; messages
 * name the field ("x", "weights", "root", ...). centre and scale stay NULL (the
 * inputs as given): a caller whose fit has them sets them (sgp_laplace_fit_check
 * does), with the kernel on the standardized inputs. Never pass the view to
 * sgp_laplace_fit_free. */
int sgp_laplace_fit_view(sgp_ctx *ctx, sgp_laplace_result *fit, sgp_cmat X, sgp_cmat weights,
                         sgp_cmat root, const sgp_kernel *kernel, sgp_likelihood likelihood,
                         double noise, sgp_cmat mean);
/* A lengthscale on the inputs the kernel sees (n_model values: 1 or d) as
 * lengthscales on the inputs' own scale: model times each column's scale (scale
 * NULL: as they are). One isotropic value becomes d per-column values where the
 * columns were scaled (scaled and d > 1). Writes *n_out values (at most d) to out. */
void sgp_laplace_lengthscale_original(const double *model, int64_t n_model, const double *scale,
                                      int scaled, int64_t d, double *out, int64_t *n_out);

#ifdef __cplusplus
}
#endif
#endif /* SGP_LAPLACE_PUBLIC_H */
