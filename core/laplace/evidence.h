/* evidence.h -- gp_laplace's exact Laplace evidence log q(y | theta) and its
 * gradient. Dense: the
 * kernel matrix and the factors are n x n, so this is the exact mode's
 * estimator, O(n^3) per evaluation. */
#ifndef SGP_EVIDENCE_H
#define SGP_EVIDENCE_H

#include "laplace/laplace.h"

/* The coordinates of theta, in this order: log lengthscale (n_ls values), log
 * outputscale, the prior mean (n_mean: 1, or C for softmax), log noise variance
 * (gaussian only, one value), log of the likelihood's scalar parameter (has_par:
 * negbin's dispersion), log alpha (has_alpha: the kernels that read it). */
typedef struct { int64_t n_ls, n_mean, has_noise, has_par, has_alpha; } sgp_ev_layout;
static inline int64_t sgp_ev_noise_at(const sgp_ev_layout *l) { return l->n_ls + 1 + l->n_mean; }
static inline int64_t sgp_ev_par_at(const sgp_ev_layout *l)
{ return sgp_ev_noise_at(l) + (l->has_noise ? 1 : 0); }
static inline int64_t sgp_ev_alpha_at(const sgp_ev_layout *l)
{ return sgp_ev_par_at(l) + (l->has_par ? 1 : 0); }
static inline int64_t sgp_ev_size(const sgp_ev_layout *l)
{ return sgp_ev_alpha_at(l) + (l->has_alpha ? 1 : 0); }

/* B = I + W^1/2 K W^1/2 at a point f. Diagonal W (bernoulli, poisson, gaussian):
 * one Cholesky L. Softmax (W = D - Pi Pi'): per class V_c = L_c^-1 D_c^1/2 and
 * E_c = V_c' V_c with L_c L_c' = I + D_c^1/2 K D_c^1/2, and M M' = sum_c E_c
 * (R&W Alg. 3.3). R = W^1/2 B^-1 W^1/2 = (W^-1 + K)^-1 in both cases. */
typedef struct {
  int64_t n, C;
  int softmax;
  double *sw;          /* diagonal: W^1/2 (n) */
  double *L;           /* diagonal: the Cholesky factor of B (n x n) */
  double *V, *E;       /* softmax: C blocks of n x n each */
  double *M;           /* softmax: n x n */
  double half_logdet;  /* 1/2 log |B| */
} sgp_ev_factor;

typedef struct {
  sgp_lik lik;          /* y, offset; gaussian: its noise */
  sgp_cmat X;
  sgp_kernel kernel;
  const double *mean;   /* layout.n_mean values */
  sgp_ev_layout layout;
} sgp_ev_problem;

/* Kept across evaluations: the mode of the last one is the next warm start. */
typedef struct {
  int64_t n, C;
  double *K;            /* n x n */
  double *f, *a;        /* n x C: the mode and a = K^-1 (f - m) */
  double *w, *g, *d3;   /* n x C at f: W (diagonal) or pi (softmax), grad log p, and
                           the third derivative (diagonal) */
  double *b, *kb, *da, *kda, *ft, *at; /* n x C scratch */
  int warm;
  sgp_ev_factor fac;
} sgp_ev_ws;

/* dense: with K and the factors (n x n); 0: the vectors only (the matrix-free
 * estimator, evidence_stochastic.c). */
int  sgp_ev_ws_init(sgp_ctx *ctx, sgp_ev_ws *ws, int64_t n, int64_t C, int dense);
void sgp_ev_ws_free(sgp_ev_ws *ws);

/* log q(y | theta) at the problem's hyperparameters and, when grad is not NULL,
 * its gradient in the layout's coordinates. Fails (SGP_ENOTPD, message says why)
 * when the mode is not found to full accuracy: an evidence away from the mode is
 * not the evidence. */
int sgp_evidence(sgp_ctx *ctx, const sgp_ev_problem *p, sgp_ev_ws *ws, double *loglik,
                 double *grad);

/* ---- evidence_factor.c */
/* Factorizes B at f; ws->w holds W (diagonal) or pi (softmax) at f. */
int  sgp_ev_factorize(sgp_ctx *ctx, sgp_ev_factor *fac, const double *K, const double *w);
/* out = R Z for an n x C block Z (out may not alias Z). */
int  sgp_ev_apply_r(sgp_ctx *ctx, const sgp_ev_factor *fac, const double *Z, double *out);
/* Q = sum_c R_cc (n x n, the trace weight of tr(R (I_C x dK))) and the per-point
 * posterior covariance blocks S (n x C x C, S[i + n (c + C c')] = Sigma_i[c, c'];
 * diagonal W: n values Sigma_ii). Q may hold scratch space of n x n on entry. */
int  sgp_ev_cov_parts(sgp_ctx *ctx, const sgp_ev_factor *fac, const double *K, double *Q,
                      double *S);
void sgp_ev_factor_free(sgp_ev_factor *fac);

/* ---- evidence_blocked.c: the dense steps in blocks of bounded work, polling
 * the interrupt hook between them (SGP_EINTERRUPT); lower triangles, column-major. */
/* A = L L' in place; *minor > 0 (the leading minor, 1-based) when A is not
 * positive definite, as dpotrf's info. */
int sgp_ev_potrf(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, int64_t *minor);
/* L^-1 in place (dtrtri), and L' L in place for a lower L (dlauum). */
int sgp_ev_trtri(sgp_ctx *ctx, int64_t n, double *A, int64_t lda);
int sgp_ev_lauum(sgp_ctx *ctx, int64_t n, double *A, int64_t lda);
/* The lower triangle of (L L')^-1 from the Cholesky factor L, in place (dpotri). */
int sgp_ev_potri(sgp_ctx *ctx, int64_t n, double *A, int64_t lda);
/* B = op(A)^-1 B and B = op(A) B for a triangular m x m A and B m x n (no unit
 * diagonal), in column panels. */
int sgp_ev_trsm_left(sgp_ctx *ctx, char uplo, char trans, int64_t m, int64_t n,
                     const double *A, int64_t lda, double *B, int64_t ldb);
int sgp_ev_trmm_left(sgp_ctx *ctx, char uplo, char trans, int64_t m, int64_t n,
                     const double *A, int64_t lda, double *B, int64_t ldb);
/* C = A B (m x k by k x n), in column panels. */
int sgp_ev_gemm_nn(sgp_ctx *ctx, int64_t m, int64_t n, int64_t k, const double *A, int64_t lda,
                   const double *B, int64_t ldb, double *C, int64_t ldc);
/* Q -= Y' Y for Y k x n and a symmetric n x n Q, both triangles written. */
int sgp_ev_syrk_sub(sgp_ctx *ctx, int64_t n, int64_t k, const double *Y, int64_t ldy, double *Q,
                    int64_t ldq);

/* ---- evidence_mode.c */
/* How the mode reaches K and R = (W^-1 + K)^-1: the dense K and the factors of B
 * (exact), or the kernel operator and CG solves on B (evidence_stochastic.c). */
typedef struct {
  int (*apply_k)(sgp_ctx *ctx, void *data, const double *v, double *out);  /* K v, n x C */
  int (*factorize)(sgp_ctx *ctx, void *data, const double *w);             /* B at W (pi) */
  int (*apply_r)(sgp_ctx *ctx, void *data, const double *z, double *out);  /* R z */
  /* optional: out = R z and kout = K out together (NULL: apply_r, then apply_k) */
  int (*apply_rk)(sgp_ctx *ctx, void *data, const double *z, double *out, double *kout);
  void *data;
  /* > 0: near the mode, Newton steps keep the last factorization (chord steps,
   * O(n^2) each where a factorization is O(n^3)) once a step (the warm start's
   * too) moved f by at most this times 1 + max|f - m|; the mode is still
   * refactorized where it ends. Letters, n = 2000, ARD learning: 141
   * factorizations in 45 evaluations with 0.1, 256 without chord steps. */
  double chord_tol;
} sgp_ev_ops;
/* A chord step (W frozen at an iterate within chord_tol of the mode) contracts the
 * distance to the mode by |(K^-1 + W_old)^-1 (W - W_old)|, about chord_tol times
 * the likelihood's third derivative: it must gain at least this factor a step, or
 * the next step refactorizes. */
#define SGP_EV_CHORD_RATE 0.1
/* Converged when a full Newton step moves f by at most this times 1 + max|f - m|;
 * the step is then taken, leaving an error of about its square. */
#define SGP_EV_MODE_STEP_TOL 1e-9
/* Newton iterations to the mode at mean m (n x C), warm-started from the last mode;
 * leaves ws->f, ws->a, ws->w (and the factors through ops) at the mode. */
int  sgp_ev_mode(sgp_ctx *ctx, const sgp_ev_ops *ops, const sgp_lik *lik, const double *m,
                 sgp_ev_ws *ws, double *logp);
/* log p(y | f) summed, its gradient g, and W and d3 (diagonal) or pi (softmax). */
double sgp_ev_lik_derivs(const sgp_lik *lik, const double *f, double *g, double *w, double *d3);

/* ---- evidence_stochastic.c: the matrix-free estimator, diagonal W only.
 * Nothing n x n is stored: K is the kernel operator (tiles, or its cache when
 * cache_bytes allows, as in the fit), the mode is found by Newton with CG solves
 * on B, log|B| = log|P| + log|P^-1/2 B P^-1/2| with P the preconditioner below,
 * the second term by stochastic Lanczos quadrature from the preconditioned CG
 * coefficients of t probes z ~ (0, P) whose random parts are kept for the whole
 * optimization (common random numbers). */
typedef struct {
  sgp_ev_ws ev;          /* the mode's vectors (C = 1) and its warm start */
  int64_t n;
  int t;                 /* probes */
  double *Z;             /* n x t Rademacher parts of the probes, fixed at init */
  double *E;             /* SGP_EVS_SOLVE_RANK x t Rademacher parts, fixed at init */
  int64_t *piv;          /* SGP_EVS_SOLVE_RANK pivots, chosen at the first evaluation
                          * and kept (so that it, and the probes, are smooth in theta) */
  int64_t npiv;          /* 0 until chosen */
  size_t cache_bytes;
  int tile;
  int64_t cg_iterations; /* operator products of the last evaluation's solves */
} sgp_evs_ws;

int  sgp_evs_ws_init(sgp_ctx *ctx, sgp_evs_ws *ws, int64_t n, int probes, uint64_t seed,
                     size_t cache_bytes, int tile);
void sgp_evs_ws_free(sgp_evs_ws *ws);
/* evidence_precond.c: Q = I + S F F' S ~ B, F F' a pivoted Cholesky of K of rank
 * up to SGP_EVS_SOLVE_RANK (built once per evaluation, refactorized per W). It
 * preconditions the solves (Newton, adjoint, the probes'), is the probes'
 * covariance and is the control variate of the traces, whose exact parts cost k
 * more columns in every pass of the gradient. n = 20000, d = 16: Newton CG
 * iterations 65 -> 27 and adjoint 20 -> 10 with 100 -> 600 columns, at O(n k^2)
 * a refactorization. A control variate of only the first 100 columns left the
 * gradient's noise, mostly the implicit term's (diag(Sigma) per point), too large
 * to locate the optimum: at n = 20000, lengthscale 3.09, outputscale 7.33 the
 * d/dlog(lengthscale) of two probe seeds went from 612 and -884 (100) to 231 and
 * 161 (512; n = 5000: a spread of 180 to 40 over four seeds) for the same time
 * per evaluation (105 s), the extra columns' passes being a few seconds against
 * a minute of Newton and probe solves. */
#define SGP_EVS_SOLVE_RANK 512
/* Stochastic learning starts from the exact evidence's maximizer on a seeded
 * subset of this many points when n is at least twice as large
 * (laplace_select.c). */
#define SGP_EVS_PILOT_N 2000
typedef struct {
  int64_t n, k;
  int64_t ldm;           /* leading dimension of M (k) */
  double *F, *SF;        /* n x k: F, and S F at the last factorization */
  double *M;             /* k x k: the Cholesky factor of I + F' W F */
  double *T;             /* k x SGP_EVS_APPLY_COLS: apply's scratch */
} sgp_evs_precond;
/* Columns sgp_evs_precond_apply takes at once (its scratch is allocated once, at
 * build, not in every CG iteration). */
#define SGP_EVS_APPLY_COLS 32
/* piv (rank entries; NULL with npiv NULL: chosen, not kept): *npiv = 0 chooses the pivots (largest remaining diagonal) and
 * writes them with their count; *npiv > 0 takes those pivots in that order (a
 * Nyström factor, smooth in the kernel's hyperparameters), stopping early only
 * where a pivot's remaining diagonal is no longer positive. */
int  sgp_evs_precond_build(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, int rank,
                           int64_t *piv, int64_t *npiv, sgp_evs_precond *pc);
/* log|P| = log|I + F' W F| at the last factorization. */
double sgp_evs_precond_logdet(const sgp_evs_precond *pc);
int  sgp_evs_precond_factorize(sgp_ctx *ctx, sgp_evs_precond *pc, const double *sw);
/* Y = P^-1 V (an sgp_op apply; op->state is the sgp_evs_precond) */
int  sgp_evs_precond_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx);
void sgp_evs_precond_free(sgp_evs_precond *pc);

/* The estimate of log q(y | theta), its standard error (that of -1/2 log|B| over
 * the probes) and, when grad is not NULL, the estimated gradient. Fails like
 * sgp_evidence when the mode or a solve does not converge. */
int sgp_evidence_stochastic(sgp_ctx *ctx, const sgp_ev_problem *p, sgp_evs_ws *ws,
                            double *loglik, double *se, double *grad);

#endif
