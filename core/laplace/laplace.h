/* laplace.h -- gp_laplace (IterNCGP; api/sgp_laplace.h cites the papers):
 * internals of the likelihoods and the IterGP inner loop with recycling/compression. The public
 * part (options, fit, predict) is api/sgp_laplace.h.
 *
 * Storage: every NC-vector is a column-major N-by-C matrix (entry (n, c) at
 * n + N*c); a block of b such vectors is one N-by-(C*b) matrix with ld = N. */
#ifndef SGP_LAPLACE_H
#define SGP_LAPLACE_H

#include "runtime/sgp_internal.h"
#include "select/select.h"
#include "kernels/kernels.h"
#include "api/sgp_options.h"

/* ------------------------------------------------------------ internal: likelihoods */

typedef struct {
  sgp_likelihood kind;    /* its ops: sgp_lik_ops_of (lik_table.h) */
  int64_t n, C;
  const double *y;        /* N (labels 1..C for softmax) */
  const double *offset;   /* N or NULL */
  const double *noise;    /* gaussian: 1 or N values */
  int64_t n_noise;
  double noise_max;
  const double *trials;   /* binomial: 1 or N values; NULL: 1 */
  int64_t n_trials;
  double par;             /* the likelihood's scalar parameter (negbin: dispersion) */
} sgp_lik;

/* Checks y (and noise/offset) for the likelihood; messages name `y`, `noise`, `offset`. */
int sgp_lik_check(sgp_ctx *ctx, const sgp_lik *lik);
/* At f (N x C): log-likelihood sum, gradient grad (NC), pseudo-target increment
 * delta = W^{-1} grad (NC) and the noise data nd (NC; W^{-1} diagonal, capped at
 * noise_max except gaussian's noise; softmax: capped 1/pi). Any output pointer may be
 * NULL except nd. */
void sgp_lik_eval(const sgp_lik *lik, const double *f, double *loglik, double *grad,
                  double *delta, double *nd);
/* Y = W^{-1} V for b NC-vectors (V, Y: NC x b with ld NC); Y may not alias V. */
void sgp_lik_winv(const sgp_lik *lik, const double *nd, int64_t b, const double *V,
                  double *Y);
/* Y += W^{-1} V. */
void sgp_lik_winv_add(const sgp_lik *lik, const double *nd, int64_t b, const double *V,
                      double *Y);
/* Y = W(f) V for b NC-vectors (V, Y: NC x b with leading dimensions ldv, ldy), W
 * the exact negative Hessian of log p(y | f) (no noise_max cap); pi: C doubles of
 * scratch. */
void sgp_lik_w_apply(const sgp_lik *lik, const double *f, int64_t b, const double *V,
                     int64_t ldv, double *Y, int64_t ldy, double *pi);
/* log sum_c exp f[c * stride] for one point's C latents, without overflow. */
double sgp_softmax_lse(const double *f, int64_t stride, int64_t C);
/* Softmax per point: out = W_n^dagger u for a C-vector u given inv_pi = 1/pi. */
void sgp_softmax_pinv_apply(int64_t C, const double *inv_pi, int64_t stride,
                            const double *u, int64_t su, double *out, int64_t so);

/* The unit of the absolute tolerances tol and inner_atol (laplace_fit.c):
 * sqrt(outputscale) for gaussian, 1 otherwise (the link fixes the latent scale). */
double sgp_laplace_latent_scale(sgp_likelihood lik, double outputscale);

/* ------------------------------------------------------------ internal: model selection */

/* Data-based initial values: one lengthscale when
 * want_ls, outputscale s, mean (1, or C for softmax) and the gaussian noise (NaN
 * otherwise). */
int sgp_laplace_initial(sgp_ctx *ctx, sgp_cmat X, const sgp_lik *lik, int want_ls, double *ls,
                        double *s, double *mean, double *noise);
/* The rows of the stochastic learning's start on a subset (laplace_select.c): idx
 * (n entries) is permuted so that its first SGP_EVS_PILOT_N are a seeded random
 * subset of the n rows, keyed by ctx->seed. */
void sgp_laplace_pilot_rows(const sgp_ctx *ctx, int64_t n, int64_t *idx);
/* The hyperparameters of a fit into h (the user's, initial or learned values, the
 * evidence and its gradient), and ro = o with them; lik's one gaussian noise value
 * is set to the one used. No evaluation starts after deadline (sgp_clock()
 * seconds; 0: none): the learning stops there and h says so. */
int  sgp_laplace_select(sgp_ctx *ctx, sgp_cmat X, sgp_lik *lik, const sgp_laplace_opts *o,
                        double deadline, sgp_laplace_opts *ro, sgp_laplace_hyper *h);
/* The policy a fit runs and its budget per Newton step (laplace_select.c), with why
 * in reason. A policy given (cg, cholesky) runs with max_iter (5 when not given).
 * "auto" with a budget given (max_iter, rank, max_total_iter, precond_rank) is cg
 * with it; else the exact Laplace (cholesky with max_iter = NC, the exact state) when
 * its dense buffers (SGP_LAPLACE_DENSE_DOUBLES NC^2 doubles) fit in the exact
 * evidence's share of mem bytes and its O(NC^3) work is that of the learning's: NC at
 * most SGP_EVIDENCE_UNASKED_MAX_N, or C = 1 with the exact evidence evaluated
 * (evidence_exact); else cg with 5. */
#define SGP_LAPLACE_DEFAULT_MAX_ITER 5
#define SGP_LAPLACE_DENSE_DOUBLES 8.0
void sgp_laplace_auto_policy(const sgp_laplace_opts *o, int64_t n, int64_t C, int evidence_exact,
                             double mem, int *policy, int *max_iter, char *reason, size_t size);

/* ------------------------------------------------------------ internal: IterGP */

typedef struct {
  int64_t n, C, NC, cap;   /* cap = allocated buffer capacity (columns) */
  int64_t B, r;            /* buffer width, rank of Q */
  double *S, *T, *Q, *G;   /* NC x cap (ld NC; S, T: + SGP_ITERGP_SPARE); G cap x cap
                            * (ld cap): Q = S G */
  double *M, *w, *work;    /* cap x cap, cap, NC x cap */
  double trace_KQ;         /* ||K Q||_F^2 (valid when kq_valid) */
  int64_t dropped;         /* eigenpairs dropped by the last virtual run */
  /* Structure that makes unit-vector actions cheap (laplace_block.c):
   * unit: every column of S is a distinct unit vector e_{idx[l]} (S = P_I), so
   * Q = P_I G has non-zero rows only at idx and Q'z = G' z[idx];
   * g_tri: G is upper triangular (Gram-Schmidt/Cholesky order, no eigenbasis);
   * kq_valid: work[:, 0..r-1] holds K Q = T G and trace_KQ is current (else both
   * are computed on demand by sgp_itergp_kq). */
  int64_t *idx;            /* cap: unit index of each column when unit */
  int unit, g_tri, kq_valid;
  /* kq_stored (the default): work holds K Q (NC x cap). Else (sgp_itergp_kq_implicit)
   * work is NC x SGP_ITERGP_CHUNK of scratch and K Q = T G is applied as such:
   * one NC x cap buffer less, for the same flops (the unit-vector paths, which use
   * work as a dense K, keep it stored). */
  int kq_stored;
  double *wb;              /* cap: scratch for G times a vector */
  /* root_lazy: G holds the lower Cholesky factor L of M = S'K^S instead of
   * L^{-T}, and Q is not formed (a Newton step that takes no action needs
   * neither); sgp_itergp_root forms them */
  int root_lazy;
} sgp_itergp;

/* Columns S and T hold beyond cap: scratch for the globalized step's basis
 * (laplace_fit.c: v_prev and v beside the last actions), never part of the state. */
#define SGP_ITERGP_SPARE 2

/* Buffer of n doubles for the solver state, on Linux with huge-page advice when
 * large (page faults and TLB misses); free() releases it. */
double *sgp_laplace_big_alloc(int64_t n);
int  sgp_itergp_init(sgp_ctx *ctx, sgp_itergp *s, int64_t n, int64_t C, int64_t cap);
void sgp_itergp_free(sgp_itergp *s);
/* Grows the buffers (geometrically, at most to cap_max columns) so that `need`
 * columns fit; keeps S, T, Q and G. Called between Newton steps, never inside
 * the solver iterations. */
int  sgp_itergp_reserve(sgp_ctx *ctx, sgp_itergp *s, int64_t need, int64_t cap_max);
/* Virtual solver run for the noise data nd: replaces S, T by the kept
 * (rotated when compressing) actions and builds Q = S G with Q'K^Q = I.
 * rank < 0: no truncation. Sets *finite to 0 when M is not finite. */
int  sgp_itergp_virtual(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd,
                        int64_t rank, double kappa, double eig_rtol, int *finite);
/* Makes trace_KQ = ||K Q||_F^2 current, and work[:, 0..r-1] = K Q = T G when
 * kq_stored. */
int  sgp_itergp_kq(sgp_ctx *ctx, sgp_itergp *s);
/* Columns of scratch in work when K Q is not stored. */
#define SGP_ITERGP_CHUNK 8
/* From now on K Q is applied as T G, not stored (see kq_stored). */
int  sgp_itergp_kq_implicit(sgp_ctx *ctx, sgp_itergp *s);
/* y += alpha K Q w (w: r doubles); the trace must be current (sgp_itergp_kq). */
int  sgp_itergp_kq_axpy(sgp_ctx *ctx, sgp_itergp *s, double alpha, const double *w, double *y);
/* rowsq[q] = sum_l (K Q)[q, l]^2 (NC), after sgp_itergp_kq. */
int  sgp_itergp_kq_rowsq(sgp_ctx *ctx, sgp_itergp *s, double *rowsq);
/* Forms the root (sgp_itergp_root) and K Q (sgp_itergp_kq). When the lazy root is the
 * Cholesky L of P'K^P for a full permutation P of unit actions (B = NC, C = 1, the
 * exact mode), it instead writes rowsq = the row sums of (K Q)^2 in O(NC^2) from
 * K Q = P (L - D L^{-T}), D = P'W^{-1}P (nd: the noise data of that K^), sets
 * *done = 1 and leaves K Q unformed (the O(NC^3) product T G is not needed). */
int  sgp_itergp_kq_exact(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd,
                         double *rowsq, int *done);
/* Re-K^-orthonormalizes the root (one Cholesky-QR pass): E = Q'K^Q = L L',
 * Q <- Q L^{-T}, G <- G L^{-T}, K Q <- K Q L^{-T}. Leaves the root unchanged
 * when E is not numerically positive definite. tmp: NC doubles. */
int  sgp_itergp_reorth(sgp_ctx *ctx, sgp_itergp *s, const sgp_lik *lik, const double *nd,
                       double *tmp);
/* Forms G = L^{-T} and Q = S G when root_lazy. */
int  sgp_itergp_root(sgp_ctx *ctx, sgp_itergp *s);
/* v = Q Q' b (NC) when r > 0, also when root_lazy (then v = P_I M^{-1} b[I]). */
int  sgp_itergp_project(sgp_ctx *ctx, sgp_itergp *s, const double *b, double *v, double *wr);

/* ------------------------------------------------------------ internal: B = I + W^1/2 K W^1/2 */

/* L L' = shift I + diag(s) A diag(s) from A's lower triangle (ld lda) into L (ld
 * ldl; L may be A). minor NULL: sgp_potrf (SGP_ENOTPD when not positive
 * definite); else sgp_potrf_minor's report. (evidence_factor.c: the exact
 * evidence's B with shift 1 and A = K.) */
int sgp_chol_scaled(sgp_ctx *ctx, int64_t n, const double *A, int64_t lda, const double *s,
                    double shift, double *L, int64_t ldl, int64_t *minor);
/* In place: A, the lower triangle of K^ = K + D with D = diag(d[idx[i]]) > 0 (idx
 * NULL: d[i]), becomes the lower Cholesky factor L of K^, computed as
 * L = D^1/2 L_B with L_B L_B' = B = D^-1/2 K^ D^-1/2 = I + W^1/2 K W^1/2 (R&W
 * Alg. 3.1): every pivot of B is >= 1, however widely d spreads, where those of
 * K^ fall to min d. *ok = 0 (A destroyed) when a pivot of B is below 1/2 or not
 * finite (rounding beyond n eps ||B||, or bad data). s: n doubles of scratch. */
int sgp_khat_cholesky(sgp_ctx *ctx, int64_t n, double *A, int64_t lda, const double *d,
                      const int64_t *idx, double *s, int *ok);

/* ------------------------------------------------------------ internal: unit-vector blocks */

/* One block of b unit-vector actions e_{idx[0..b-1]} (storage indices, all outside
 * span(S) in exact arithmetic) appended with BLAS-3 work (K e_(p,c) is
 * column p of K_x in class block c, evaluated directly). Equal, up to rounding, to
 * b one-at-a-time IterGP iterations: q_j, G, v, K Q, the trace and the residual
 * after each action are the same. Stops early (accepting j < b actions) when the
 * residual before action j is below rtol (reason SGP_STOP_RESID) or when
 * eta_j <= eta_rtol * s_j'z_j (SGP_STOP_BREAKDOWN; action j is the rejected one). */
typedef struct {
  /* in */
  const sgp_lik *lik;
  const double *nd;          /* noise data of the current problem */
  const sgp_kernel *kernel;
  const sgp_kprep *prep;     /* the training inputs, for kernel columns */
  const double *rhs;         /* b of K^ v = b */
  const int64_t *idx;        /* b storage indices p + N c */
  int64_t b;
  double rtol, eta_rtol;
  int trace;                 /* the direct path's per-action trace_KQ: 1 computed (one
                              * trtri more), 0 NaN (option history_trace = "auto"); the
                              * blocked path's incremental trace is always computed */
  double *ws;                /* workspace of sgp_unit_block_ws(NC, b, cap) doubles */
  /* in/out */
  double *v, *res;           /* weights and residual b - K^ v (updated per action) */
  double *Kv;                /* K v, updated when not NULL (recursive residual) */
  /* out: per accepted action j (arrays of b) and the stop */
  double *rho, *alpha, *eta, *trace_KQ; /* rho_{j-1}, s'res, eta, ||K Q||^2 after j */
  int64_t accepted;
  int reason;                /* SGP_STOP_NONE, _RESID or _BREAKDOWN */
} sgp_unit_block;

int64_t sgp_unit_block_ws(int64_t NC, int64_t b, int64_t cap);
int sgp_itergp_unit_block(sgp_ctx *ctx, sgp_itergp *it, sgp_unit_block *ub);
/* T[:, j] = K e_{idx_j} for the ub->b actions of ub (T: NC x b, zeroed first). */
void sgp_unit_kernel_columns(sgp_ctx *ctx, const sgp_unit_block *ub, int64_t n, int64_t NC,
                             double *T);
/* The exact mode's first solve (laplace_direct.c): all NC unit actions from an
 * empty state (B = 0, C = 1, ub->b = NC, cap >= NC) as one dense Cholesky of
 * P'K^P, with the same per-action history (rho, alpha, eta, trace) and the same
 * residual stop as NC one-at-a-time actions, in O(NC^3/3) (+ one trtri for the
 * trace when ub->trace; else the trace is NaN) instead of the blocked Gram-Schmidt
 * that keeps K Q current. Leaves the state as a virtual
 * run does (root_lazy: G holds L). *fallback = 1 (state reset to empty) when a
 * pivot breaks down: the caller then takes the blocked path. ub->ws is unused. */
int sgp_itergp_unit_direct(sgp_ctx *ctx, sgp_itergp *it, sgp_unit_block *ub, int *fallback);

/* The exact state of a full budget (span(S) = R^{NC}, so C = K^{-1}): rebuilt from
 * the NC unit vectors in natural order as the dense Cholesky of K^ (lazy root),
 * with v = K^{-1} b and Kv = K v. cols: lik, nd, kernel, prep and idx = 0..NC-1
 * with b = NC. *ok = 0 and the state unchanged when K^ has no numerically
 * positive definite factor or the buffers hold fewer than NC columns.
 * e, y: NC doubles of scratch. */
int sgp_itergp_exact_state(sgp_ctx *ctx, sgp_itergp *it, const sgp_unit_block *cols,
                           const double *b, double *v, double *Kv, double *e, double *y,
                           int *ok);

/* sgp_laplace_fit with the unit-vector block size (1 = one action at a time, the
 * reference path; sgp_laplace_fit uses SGP_LAPLACE_UNIT_BLOCK). */
#define SGP_LAPLACE_UNIT_BLOCK 256

/* Recursive residual (the default): K v is recomputed explicitly after this many
 * recursive updates (the drift bound in laplace_fit.c, solve_residual). */
#define SGP_LAPLACE_REFRESH 32
/* laplace_finite.c: SGP_EINVAL when a result holds NaN or Inf: the fit's f, var
 * (before its clamp at 0), weights and root (naming y), the predicted mean, var
 * and response, NULL data skipped (naming the offset when one was given, else
 * the fit). */
int sgp_laplace_check_fit_finite(sgp_ctx *ctx, const sgp_laplace_result *fit);
int sgp_laplace_check_pred_finite(sgp_ctx *ctx, int has_offset, sgp_mat mean, sgp_mat var,
                                  sgp_mat resp_mean, sgp_mat resp_var);

/* laplace_scale.c: the option scale. setup: the fit's centre and scale (d each,
 * allocated in fit), scaled and scale_note, from X's columns and the options.
 * standardize: *out = (X - centre) / scale column by column (n x d, the caller
 * frees it), or NULL where that is X itself (centre NULL, or all 0 and 1). */
int sgp_laplace_scale_setup(sgp_ctx *ctx, sgp_cmat X, const sgp_laplace_opts *o,
                            sgp_laplace_result *fit);
int sgp_laplace_standardize(sgp_ctx *ctx, sgp_cmat X, const double *centre, const double *scale,
                            double **out);
/* The note's words on the lengthscale of a scaled fit, once it is known. */
void sgp_laplace_scale_note_lengthscale(sgp_laplace_result *fit);

/* Test hook: sgp_laplace_fit with the solver's unit blocks of at most unit_block
 * columns (sgp_laplace_fit passes SGP_LAPLACE_UNIT_BLOCK; 1 with the cholesky
 * policy is the reference path), so that the core tests compare the blocked
 * solve with the reference one. Core-internal: not in sgp.h, and no host
 * gateway calls it. */
int sgp_laplace_fit_blocked(sgp_ctx *ctx, sgp_cmat X, sgp_cmat y, sgp_cmat prior_mean,
                            const sgp_laplace_opts *o, int unit_block,
                            sgp_laplace_result **out);

/* ------------------------------------------------------------ internal: preconditioned actions */

/* laplace_precond.c: the cg policy's actions s = P^-1 r, P = F F' + W^-1 with F F'
 * a pivoted Cholesky of K of rank <= rank (kernel columns until the remaining
 * diagonal is below 1e-4 of the outputscale). Diagonal W (C = 1) only. new builds
 * F once per fit; update refactorizes for the noise data nd (W^-1, n values) of a
 * solve; apply writes s = P^-1 r (n values, s may not alias r). */
typedef struct sgp_laplace_precond sgp_laplace_precond;
int  sgp_laplace_precond_new(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, int rank,
                             sgp_laplace_precond **out);
void sgp_laplace_precond_free(sgp_laplace_precond *p);
int  sgp_laplace_precond_update(sgp_ctx *ctx, sgp_laplace_precond *p, const double *nd);
int  sgp_laplace_precond_apply(sgp_ctx *ctx, const sgp_laplace_precond *p, const double *r,
                               double *s);

/* ------------------------------------------------------------ internal: globalized step */

/* The Newton step of a truncated inner solve (laplace_subspace.c): v maximizes
 * Psi = log p(y | m + K v) - 1/2 v'K v over span(U) (U, KU = K U: NC x k, read
 * only; scratch O(NC) beyond them), starting from the better of the columns jprev (v_prev) and jsolver
 * (the solver's v, also the v and Kv given). v, Kv stay the solver's
 * (*took_solver = 1) when its gain over v_prev is at least half the optimum's, or
 * when span(U) is numerically empty; else they become the optimum and K times it
 * (0), unless that does not ascend from v_prev after all (rounding in the basis:
 * -1, v and Kv unchanged).
 * *newton_iters: the damped Newton iterations it took. */
int sgp_laplace_subspace_step(sgp_ctx *ctx, const sgp_lik *lik, const double *m, int64_t k,
                              const double *U, const double *KU, int64_t jprev, int64_t jsolver,
                              double *v, double *Kv, int *newton_iters, int *took_solver);

/* Actions per solver iteration of a fit (laplace_fit.c): C with class actions
 * (softmax, C > 2, policy cg) where their buffers fit in a quarter of mem bytes
 * (0: unknown), else 1. */
int64_t sgp_laplace_actions_per_iteration(const sgp_laplace_opts *o, int64_t C, int64_t NC,
                                          double mem);

#endif
