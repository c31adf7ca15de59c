/* skl_eig.h -- ski_laplace's eigen path (skl_eigen.c, skl_eig_newton.c,
 * skl_eig_evidence.c): the whitened latent v with u = mean + F v, F = Q
 * Lambda^1/2, and M = I + F'HF with its Jacobi preconditioner in the
 * eigenbasis. Core-internal. */
#ifndef SGP_SKL_EIG_H
#define SGP_SKL_EIG_H

#include "ski_laplace/skl.h"

typedef struct {
  sgp_ski_kron_eig ke;
  int64_t m, cols;          /* grid points; the widest block the buffers take */
  /* The basis keeps, per dimension, the eigenvectors whose factor eigenvalue is
   * above the floor (the rest are 0 in Lambda, so F drops nothing): v has mr =
   * prod ranks[j] entries, F = Q_r Lambda_r^1/2 maps them to the m grid points. */
  int64_t mr, rows[SGP_SKI_MAX_D], ranks[SGP_SKI_MAX_D];
  const double *Qr[SGP_SKI_MAX_D]; /* views on Q_j's kept columns (rows_j x ranks_j) */
  double *QQ[SGP_SKI_MAX_D];/* Q_r o Q_r (diagonals in the eigenbasis) */
  double *lamh, *lam;       /* Lambda_r^1/2, Lambda_r (mr) */
  int64_t *full;            /* mr: each kept pair's index among all m (the probes' key,
                               so that a pair keeps its probe values as the kept set
                               changes with the lengthscale: common random numbers) */
  double lmax;              /* the largest eigenvalue of K */
  double *p;                /* the preconditioner's diagonal (mr) at the last curvature */
  double *dfull;            /* the curvature on the grid (m), 0 off the observed cells */
  double *work, *tmp;       /* m x cols each */
} skl_eig;

/* 1 when the kernel is separable on the grid (or the grid has one dimension of
 * more than one point) and every m_j <= SGP_SKI_KRON_EIG_HARD_MAX. */
int skl_eig_applies(const skl_problem *p, const sgp_kernel *k);
int skl_eig_make(sgp_ctx *ctx, const skl_problem *p, const sgp_kernel *k, int64_t cols, skl_eig *e);
void skl_eig_free(skl_eig *e);
/* The curvature w at the observed cells: dfull and the preconditioner p. */
int skl_eig_curvature(sgp_ctx *ctx, const skl_problem *p, skl_eig *e, const double *w);
/* Y = F X (mr -> m), Y = F'X (m -> mr), Y = M X (mr -> mr; buf: m x cols
 * scratch) for cols <= e->cols columns. */
int skl_eig_F(sgp_ctx *ctx, skl_eig *e, int64_t cols, const double *X, double *Y);
int skl_eig_Ft(sgp_ctx *ctx, skl_eig *e, int64_t cols, const double *X, double *Y);
int skl_eig_M(sgp_ctx *ctx, skl_eig *e, int64_t cols, const double *X, double *Y, double *buf);
/* out (m) = diag(F p^-1 F') (the control variate of the posterior variances). */
int skl_eig_diag_cov(sgp_ctx *ctx, skl_eig *e, double *out);
/* PCG with the preconditioner p (skl_cg's arguments; with all_conv the true
 * residuals are checked, and max_res, when not NULL, gets the largest relative one). */
int skl_eig_pcg(sgp_ctx *ctx, skl_eig *e, int64_t cols, const double *Bm, double *X, double rtol,
                int64_t max_iter, double *ca, double *cb, int64_t *steps, int *all_conv,
                int64_t *total_steps, double *max_res);

/* Newton in v from the state's warm start (s->v); on return s->kappa = F v,
 * s->alpha = P'g (the representer weights at the mode) and the curvature in e. */
int skl_newton_eig(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, skl_eig *e,
                   const sgp_ski_laplace_opts *o, double deadline, skl_state *s);
/* The evidence and gradient at the mode in s (skl_evidence_slq's outputs). */
int skl_evidence_eig(sgp_ctx *ctx, const skl_problem *p, const skl_prior *pr, skl_eig *e,
                     const skl_state *s, const sgp_ski_laplace_opts *o, uint64_t seed,
                     double *loglik, double *se, double *grad, skl_varmap *map);

#endif
