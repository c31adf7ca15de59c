/* laplace_run.h -- the state of one gp_laplace fit shared by the files of its
 * Newton loop (laplace_fit.c), inner solve (laplace_inner.c), damping
 * (laplace_damping.c) and defaults (laplace_defaults.c); core-internal. */
#ifndef SGP_LAPLACE_RUN_H
#define SGP_LAPLACE_RUN_H

#include "laplace/lik_table.h"

/* Everything the inner loop works with (allocated once per fit). */
typedef struct {
  const sgp_laplace_opts *o;
  const sgp_lik *lik;
  const sgp_op *op;
  sgp_kprep prep;           /* for unit-vector columns of K_x (cholesky policy, fill) */
  int64_t *perm;            /* unit policy point order */
  sgp_itergp it;
  double *res, *s, *t, *z, *d, *kd, *wr, *gw; /* NC x 6, cap x 2 */
  double *scratch;          /* NC */
  int64_t J, kappa, kprod, hist_cap, cap_max;
  double hist_scale, t0;
  double deadline;           /* sgp_clock() seconds of time_limit, 0: none */
  double tol, atol;         /* the mode's tol and inner_atol times the latent scale */
  double *zsur;             /* NC: the surrogate right-hand side (surrogate_begin) */
  sgp_rng rng_sur;          /* its random vectors: a stream keyed by the seed */
  int sur_plain;            /* a surrogate solve: actions without the preconditioner */
  double kx_rowsum;         /* max row sum of K_x (>= lambda_max), 0 until needed */
  int64_t sub_k;            /* > 0: truncated solves take the globalized step over at
                             * most sub_k of the last actions */
  /* owned by the fit's run (run_setup, run_free) */
  sgp_op op_own;
  sgp_lik lik_own;
  double *ycopy, *center, *vec;
  struct newton_vectors {
    double *fcur, *g, *grad, *delta, *nd, *b, *v, *Kv, *vprev, *ftry, *ndtry;
  } nv;                     /* the Newton loop's NC-vectors (in vec) */
  double forcing;           /* inexact Newton: residual bound for this solve, 0 = none */
  sgp_laplace_history *h;
  int newton;
  /* unit-vector blocks (laplace_block.c) */
  int64_t bmax;             /* actions per block; 0 = one at a time */
  int64_t *bidx;            /* bmax */
  double *bws, *bhist;      /* block workspace; 4 x bmax history values */
  sgp_laplace_precond *pc;  /* cg actions P^-1 r (precond_rank > 0), or NULL */
  /* class actions (option class_actions): per = C actions per solver iteration,
   * else 1; cls: the iteration's s and K s (NC each) they are cut from */
  int64_t per;
  double *cls;
} run_t;

/* The globalized step of a truncated solve works over at most this many of the
 * last actions, so that an iteration's O(NC k^2) stays within the solver's own
 * O(NC B) per action. The whole buffer was tried: no better on the mlbench sets
 * at small budgets, and slower. */
#define SUBSPACE_ACTIONS 62

/* laplace_defaults.c: a history of ni iterations and ns Newton steps. */
int sgp_laplace_history_alloc(sgp_laplace_history *h, int64_t ni, int64_t ns);
/* laplace_inner.c: softmax's x <- P x (the per-point class mean removed). */
void sgp_laplace_center_classes(int64_t n, int64_t C, double *x);
/* laplace_inner.c: one solve of K^ v = b; v, Kv, *reason, *bad (a non-finite
 * quantity appeared). */
int sgp_laplace_inner(sgp_ctx *ctx, run_t *R, const double *b, const double *nd, double *v,
                      double *Kv, int *reason, int *bad);
/* laplace_damping.c: the bound on max_n |f_n - f_mode| (see there). */
int sgp_laplace_mode_bound(sgp_ctx *ctx, run_t *R, const double *grad, const double *v,
                           const double *kv, const double *nd, int kprod, double *out);
/* laplace_damping.c: the damped step along f_i -> f_{i+1}. */
void sgp_laplace_damped_step(const sgp_lik *lik, int64_t NC, const double *m, const double *g,
                             const double *vprev, double psi, double *v, double *Kv,
                             double *ftry, double *ndtry);
/* laplace_damping.c: the globalized step over the last actions. */
int sgp_laplace_damped_subspace(sgp_ctx *ctx, run_t *R, const double *m, const double *g,
                                const double *vprev, double psi, double *v, double *Kv);

#endif
