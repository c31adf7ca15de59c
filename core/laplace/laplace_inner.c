/* laplace_inner.c -- gp_laplace's inner solve: one IterGP solve of
 * K^ v = b (K^ = K + W^-1) with the actions of its policy (residual,
 * preconditioned, class or unit-vector actions), its stopping rules, the
 * surrogate right-hand side, and the fill that makes a full budget exact. The
 * method is IterGP (Wenger, Pleiss, Pfoertner, Hennig, Cunningham:
 * "Posterior and Computational Uncertainty in Gaussian Processes", NeurIPS
 * 2022) inside a Newton loop (laplace_fit.c); docs/gp_laplace.md. */
#define _POSIX_C_SOURCE 200809L
#include "laplace/laplace_run.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
/* Iterations without halving the residual that end a cg solve as stagnated (a
 * benchmark counting unpreconditioned iterations to a tolerance raises it). */
#ifndef SGP_LAPLACE_STAGNATION
#define SGP_LAPLACE_STAGNATION 20
#endif

static double nrm2(int64_t n, const double *x) { return sgp_nrm2(n, x); }

static void record(run_t *R, int64_t j, double rho, double bnorm, double alpha, double eta,
                   double trace_KQ)
{
  sgp_laplace_history *h = R->h;
  const int64_t row = h->n_iter;
  h->it_newton[row] = R->newton;
  h->it_iter[row] = (int)j;
  h->it_total[row] = R->J + 1;
  h->it_buffer[row] = R->it.B;
  h->it_rank[row] = R->it.r;
  h->it_resid[row] = rho;
  h->it_rel_resid[row] = bnorm > 0 ? rho / bnorm : rho;
  h->it_alpha[row] = alpha;
  h->it_eta[row] = eta;
  h->it_trace[row] = R->hist_scale - trace_KQ;
  h->it_time[row] = sgp_clock() - R->t0;
  h->n_iter++;
  R->J++;
}

/* No room for another action: the buffer, the history or max_total_iter is full. */
static int budget_spent(const run_t *R)
{
  const int64_t cap_total = R->o->max_total_iter;
  return R->it.B >= R->it.cap || R->J >= R->hist_cap || (cap_total >= 0 && R->J >= cap_total);
}

/* Unit-vector action number k (class-fastest over points) -> storage index. */
static int64_t unit_index(const run_t *R, int64_t k, int permuted)
{
  const int64_t C = R->it.C, p = permuted ? R->perm[k / C] : k / C;
  return p + R->it.n * (k % C);
}

/* All NC unit actions of an empty state at once (sgp_itergp_unit_direct), with one
 * history row per action as the blocked path records them (the trace NaN unless
 * history_trace = "always": it would cost a second O(NC^3/3) pass). *fallback = 1: a pivot
 * broke down, nothing was taken (the caller goes on block by block). */
static int direct_solve(sgp_ctx *ctx, run_t *R, const double *b, const double *nd, double *v,
                        double *Kv, double rtol, double bnorm, int64_t *j, int *fallback)
{
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC;
  const int recursive = R->o->residual == SGP_RESIDUAL_RECURSIVE;
  int st;
  int64_t *idx = (int64_t *)malloc((size_t)NC * sizeof(int64_t));
  double *hist = sgp_alloc(4 * NC);
  if (!idx || !hist) {
    free(idx); free(hist);
    return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  }
  for (int64_t q = 0; q < NC; q++) idx[q] = unit_index(R, q, 1);
  sgp_unit_block ub;
  memset(&ub, 0, sizeof ub);
  ub.lik = R->lik; ub.nd = nd; ub.kernel = &R->o->kernel; ub.prep = &R->prep; ub.rhs = b;
  ub.idx = idx; ub.b = NC; ub.rtol = rtol; ub.eta_rtol = R->o->eta_tol;
  ub.trace = R->o->history_trace == SGP_HISTORY_TRACE_ALWAYS;
  ub.v = v; ub.res = R->res; ub.Kv = recursive ? Kv : NULL;
  ub.rho = hist; ub.alpha = hist + NC; ub.eta = hist + 2 * NC; ub.trace_KQ = hist + 3 * NC;
  st = sgp_itergp_unit_direct(ctx, it, &ub, fallback);
  if (!st && !*fallback) {
    const int64_t acc = ub.accepted;
    it->B = it->r = 0; /* history rows show the buffer after each action */
    for (int64_t q = 0; q < acc; q++) {
      it->B++; it->r++;
      record(R, *j + q, ub.rho[q], bnorm, ub.alpha[q], ub.eta[q], ub.trace_KQ[q]);
    }
    *j += acc;
    R->kappa += acc;
  }
  free(idx);
  free(hist);
  return st;
}

/* Softmax: x <- P x, the per-point class mean removed. In exact arithmetic every
 * CG residual has zero per-point sums already (W^+ = P W^+ P and K commute with
 * P); on the sums K^ = K is ill-conditioned, so rounding left there
 * makes actions nearly dependent (breakdowns, a stalled mode). */
void sgp_laplace_center_classes(int64_t n, int64_t C, double *x)
{
  for (int64_t i = 0; i < n; i++) {
    double mu = 0.0;
    for (int64_t c = 0; c < C; c++) mu += x[i + c * n];
    mu /= (double)C;
    for (int64_t c = 0; c < C; c++) x[i + c * n] -= mu;
  }
}

/* Second Gram-Schmidt pass of the CG iteration (I12), taken when the first one
 * cancelled most of s: d = s - Q w is K^-orthogonal to span(Q) only up to
 * cond(K^) eps times that cancellation after one pass (classical Gram-Schmidt), and
 * softmax's K^ (W^+ up to 1/pi) is far from well conditioned: the lost
 * orthogonality showed as breakdowns and a mode that drifted. K^ d = z - K Q w
 * - W^{-1} (s - d) needs no K product; w2 = Q'K^ d, d -= Q w2, w += w2. kd is
 * scratch here (recomputed before its next use). */
static int reorthogonalize(sgp_ctx *ctx, run_t *R, const double *nd)
{
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC, r = it->r;
  int st;
  if ((st = sgp_itergp_kq(ctx, it))) return st;
  memset(R->kd, 0, (size_t)NC * sizeof(double));
  if ((st = sgp_itergp_kq_axpy(ctx, it, 1.0, R->wr, R->kd))) return st; /* K Q w */
  double *e = R->scratch;
  for (int64_t i = 0; i < NC; i++) e[i] = R->s[i] - R->d[i];       /* Q w */
  sgp_lik_winv_add(R->lik, nd, 1, e, R->kd);                        /* K^ Q w */
  for (int64_t i = 0; i < NC; i++) e[i] = R->z[i] - R->kd[i];       /* K^ d */
  if ((st = sgp_gemm(ctx, 'T', 'N', r, 1, NC, 1.0, it->Q, NC, e, NC, 0.0, R->gw, r)))
    return st;
  if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, r, -1.0, it->Q, NC, R->gw, r, 1.0, R->d, NC)))
    return st;
  for (int64_t l = 0; l < r; l++) R->wr[l] += R->gw[l];
  return SGP_OK;
}

/* The full budget's end (policy cg, max_iter >= NC): the exact state
 * (sgp_itergp_exact_state). *ok = 0: the state is unchanged and the caller
 * fills span(S) with unit vectors instead. */
static int full_exact(sgp_ctx *ctx, run_t *R, const double *b, const double *nd, double *v,
                      double *Kv, int *ok)
{
  const int64_t NC = R->it.NC;
  int64_t *idx = (int64_t *)malloc((size_t)NC * sizeof(int64_t));
  if (!idx) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  for (int64_t q = 0; q < NC; q++) idx[q] = q;
  sgp_unit_block cols;
  memset(&cols, 0, sizeof cols);
  cols.lik = R->lik; cols.nd = nd; cols.kernel = &R->o->kernel; cols.prep = &R->prep;
  cols.idx = idx; cols.b = NC;
  const int st = sgp_itergp_exact_state(ctx, &R->it, &cols, b, v, Kv, R->s, R->t, ok);
  free(idx);
  return st;
}

/* One IterGP solve of K^ v = b, in phases that share solve_t. On exit
 * v, Kv = K v (u in recursive mode), *reason; *bad = 1 when a non-finite
 * quantity appeared.
 * Full budget [X]: with policy cg and max_iter >= NC, a converged residual (or a
 * breakdown of the residual actions) does not end the solve: the remaining
 * budget takes unit-vector actions outside span(S) ("fill"), so that span(S)
 * reaches R^{NC} and C_j = K^{-1} -- the exact Laplace variance, not only the
 * mean. Unit vectors already (numerically) in span(S) are skipped. */
typedef struct {
  const double *b, *nd;
  double *v, *Kv;
  int recursive, full, blocked;   /* the solve's mode */
  int filling, resid_met, v_changed, direct_tried, vzero;
  int surrogate, restart;         /* surrogate_begin: in its phase; the residual changed */
  int64_t j_draw;                 /* j when the surrogate right-hand side was drawn */
  const double *b_user;           /* the true right-hand side while S->b is the surrogate */
  int64_t kfill, since_best, j;   /* j: the next action's number (1-based) */
  int64_t iters;                  /* class actions: solver iterations taken */
  int64_t j_fresh;                /* recursive: j when K v was last computed explicitly */
  double rho_best, rtol, bnorm;
} solve_t;

/* I1 virtual run, room for this step's actions, I2 v = Q (Q'b) (recursive:
 * u = T G (Q'b)) and the residual tolerance. */
static int solve_begin(sgp_ctx *ctx, run_t *R, solve_t *S, int *bad)
{
  const sgp_laplace_opts *o = R->o;
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC;
  double *v = S->v, *Kv = S->Kv;
  const double *b = S->b;
  int st, finite;
  if ((st = sgp_itergp_virtual(ctx, it, R->lik, S->nd, o->recycle ? o->rank : 0, o->kappa,
                               o->eig_rtol, &finite)))
    return st;
  if (!finite) { *bad = 1; return SGP_OK; }
  /* the only place the buffers grow */
  if ((st = sgp_itergp_reserve(ctx, it, it->B + o->max_iter * R->per, R->cap_max))) return st;
  const int64_t ldg = it->cap;
  S->vzero = it->r == 0;
  if (S->vzero) {
    memset(v, 0, (size_t)NC * sizeof(double));
    memset(Kv, 0, (size_t)NC * sizeof(double));
  } else {
    if ((st = sgp_itergp_project(ctx, it, b, v, R->wr))) return st;
    if (S->recursive && it->root_lazy) { /* u = T v[I] */
      if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, it->B, 1.0, it->T, NC, R->wr, it->B, 0.0, Kv,
                         NC)))
        return st;
    } else if (S->recursive) {
      if ((st = sgp_gemm(ctx, 'T', 'N', it->r, 1, NC, 1.0, it->Q, NC, b, NC, 0.0, R->wr, it->r)))
        return st;
      if ((st = sgp_gemm(ctx, 'N', 'N', it->B, 1, it->r, 1.0, it->G, ldg, R->wr, it->r, 0.0,
                         R->gw, it->B)))
        return st;
      if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, it->B, 1.0, it->T, NC, R->gw, it->B, 0.0, Kv,
                         NC)))
        return st;
    }
  }
  if (R->pc && (st = sgp_laplace_precond_update(ctx, R->pc, S->nd))) return st;
  S->bnorm = nrm2(NC, b);
  S->rtol = R->atol > o->inner_rtol * S->bnorm ? R->atol : o->inner_rtol * S->bnorm;
  if (!S->full && R->forcing > 0.0 && R->forcing < S->rtol) S->rtol = R->forcing; /* full: exact */
  return SGP_OK;
}

/* I4 Kv and I5 res = b - Kv - W^{-1} v, *rho = |res|. Explicit mode: Kv = K v
 * every iteration (a second kernel product beside K s). Recursive mode (the
 * default): Kv += (alpha/eta) K d with K d = t - T (G w) from the action's own
 * product, so one product per iteration. Each update adds a rounding error of
 * at most ~ c eps ||K|| ||step d|| (backward-stable products, c a small multiple
 * of the terms summed), so after j updates |Kv - K v| grows like j eps ||K||
 * max ||step d||, the residual gap of recursive CG (Greenbaum 1997). Replacing
 * Kv by K v every SGP_LAPLACE_REFRESH updates keeps j <= 32: the gap stays below
 * ~32 c eps ||K|| ||v|| (1e-13 relative for c <= 10), far below the solver
 * tolerances (1e-5) and the mode's tol (1e-6), at 1/32 product per iteration. */
static int solve_residual(sgp_ctx *ctx, run_t *R, solve_t *S, double *rho)
{
  const int64_t n = R->it.n, C = R->it.C, NC = R->it.NC;
  int st;
  const int refresh = S->recursive && S->j - S->j_fresh >= SGP_LAPLACE_REFRESH;
  if ((!S->recursive || refresh) && !S->vzero && S->v_changed) {
    if ((st = R->op->apply(R->op, sgp_cmat_of(S->v, n, C), sgp_mat_of(S->Kv, n, C), ctx)))
      return st;
    R->kprod++;
    S->j_fresh = S->j;
  }
  S->v_changed = 0;
  sgp_lik_winv(R->lik, S->nd, 1, S->v, R->res);
  for (int64_t i = 0; i < NC; i++) R->res[i] = S->b[i] - S->Kv[i] - R->res[i];
  *rho = nrm2(NC, R->res);
  return SGP_OK;
}

/* A solve whose right-hand side meets the tolerance before any action (b = 0:
 * a gaussian y that equals the prior mean; or |b| below inner_atol) would end
 * with the prior as its posterior, though the budget could buy variance. Any
 * actions S give a valid IterGP posterior (mean C b, covariance K - K C K with
 * C = S (S'K^S)^{-1} S' <= K^{-1}: its variance is never below the exact one),
 * so the budget is spent on actions chosen without b, and the mean stays C b =
 * Q Q'b (surrogate_end), the Galerkin solution of the true system.
 * cg: the CG actions of a surrogate system K^ x = z with z = K xi, xi a seeded
 * standard normal vector (centred per point for softmax, as every cg action).
 * The variance reduction along an eigenvector u of K is lambda^2 / (lambda +
 * W^{-1}): it lies in K's top eigenspace, and CG's Krylov space from z finds
 * it faster when z is already weighted by lambda (the randomized range
 * finder's sample K xi, Halko et al. 2011), at one kernel product; xi alone
 * puts the budget's first action on the flat directions, and so would a
 * preconditioner P ~ K^ (P^-1 K xi ~ xi): the surrogate's actions are plain
 * residuals. A surrogate solved before the budget is spent is followed by
 * another (surrogate_draw).
 * cholesky: the policy's unit actions do not depend on b; they go on (in the
 * policy's order) without the residual stop, v staying their Galerkin solution.
 * The solve then ends as converged (SGP_STOP_RESID): the true system's residual
 * is met; the history rows of a cg surrogate show its residual, relative to |z|. */
static int surrogate_draw(sgp_ctx *ctx, run_t *R, solve_t *S);

static int surrogate_begin(sgp_ctx *ctx, run_t *R, solve_t *S)
{
  S->surrogate = 1;
  S->b_user = S->b;
  sgp_rng_seed(&R->rng_sur, ctx->seed ^ (0x5ec0a7e5b1d5ull + (uint64_t)R->newton));
  if (R->o->policy != SGP_POLICY_CG) { S->restart = 1; return SGP_OK; }
  R->sur_plain = 1;
  return surrogate_draw(ctx, R, S);
}

/* cg: a (next) surrogate z = K xi, its solve started at the Galerkin solution
 * v = Q Q'z on the actions so far (none at first), K v. A surrogate solved
 * before the budget is spent (Krylov spaces of a strong preconditioner are
 * small) draws another: its residual is a new direction of K's range. */
static int surrogate_draw(sgp_ctx *ctx, run_t *R, solve_t *S)
{
  const int64_t n = R->it.n, C = R->it.C, NC = R->it.NC;
  double *xi = R->s;
  int st;
  for (int64_t q = 0; q < NC; q++) xi[q] = sgp_rng_normal(&R->rng_sur);
  if (sgp_lik_multiclass(R->lik->kind)) sgp_laplace_center_classes(n, C, xi);
  if ((st = R->op->apply(R->op, sgp_cmat_of(xi, n, C), sgp_mat_of(R->zsur, n, C), ctx)))
    return st;
  R->kprod++;
  S->b = R->zsur;
  S->bnorm = nrm2(NC, R->zsur);
  S->rtol = R->o->inner_rtol * S->bnorm;
  S->rho_best = INFINITY;
  S->since_best = 0;
  S->restart = 1;
  S->j_draw = S->j;
  S->v_changed = 1;
  S->vzero = R->it.r == 0;
  if (S->vzero) return SGP_OK; /* v = K v = 0 */
  if ((st = sgp_itergp_root(ctx, &R->it))) return st;
  if ((st = sgp_itergp_project(ctx, &R->it, S->b, S->v, R->wr))) return st;
  if ((st = R->op->apply(R->op, sgp_cmat_of(S->v, n, C), sgp_mat_of(S->Kv, n, C), ctx)))
    return st;
  R->kprod++;
  S->j_fresh = S->j;
  S->v_changed = 0;
  return SGP_OK;
}

/* The end of a surrogate phase: the solve is converged on the true system, and
 * (cg) v = Q Q'b with K v for the true b (0 when b is). */
static int surrogate_end(sgp_ctx *ctx, run_t *R, solve_t *S, int *reason)
{
  sgp_itergp *it = &R->it;
  const int64_t n = it->n, C = it->C, NC = it->NC;
  int st;
  *reason = SGP_STOP_RESID;
  R->sur_plain = 0;
  if (S->b == S->b_user) return SGP_OK; /* cholesky: v is already that */
  S->b = S->b_user;
  S->bnorm = nrm2(NC, S->b);
  if (S->bnorm == 0.0 || it->r == 0) {
    memset(S->v, 0, (size_t)NC * sizeof(double));
    memset(S->Kv, 0, (size_t)NC * sizeof(double));
    S->vzero = 1;
    return SGP_OK;
  }
  if ((st = sgp_itergp_root(ctx, it))) return st;
  if ((st = sgp_itergp_project(ctx, it, S->b, S->v, R->wr))) return st;
  if ((st = R->op->apply(R->op, sgp_cmat_of(S->v, n, C), sgp_mat_of(S->Kv, n, C), ctx)))
    return st;
  R->kprod++;
  return SGP_OK;
}

/* I6, I7 and the other ends of a solve: *stop = 1 with *reason. A converged
 * residual at a full budget goes on filling span(S) unless the exact state
 * (full_exact) is available. */
static int solve_stop(sgp_ctx *ctx, run_t *R, solve_t *S, double rho, int *reason, int *stop)
{
  const sgp_laplace_opts *o = R->o;
  const sgp_itergp *it = &R->it;
  const int64_t NC = it->NC;
  int st;
  *stop = 1;
  if (!S->filling && !S->surrogate && (rho < S->rtol || rho == 0.0)) {
    if (!S->full && it->r == 0 && !budget_spent(R)) { /* nothing bought yet */
      *stop = 0;
      return surrogate_begin(ctx, R, S);
    }
    if (!S->full) { *reason = SGP_STOP_RESID; return SGP_OK; }
    int ok = 0;
    if ((st = full_exact(ctx, R, S->b, S->nd, S->v, S->Kv, &ok))) return st;
    if (ok) { *reason = SGP_STOP_RESID; return SGP_OK; }
    S->filling = S->resid_met = 1;
    S->kfill = 0;
  }
  if (S->surrogate && o->policy == SGP_POLICY_CG && rho < S->rtol) {
    if (S->j > S->j_draw && (R->per > 1 ? S->iters : S->j - 1) < o->max_iter &&
        !budget_spent(R)) {
      *stop = 0;
      return surrogate_draw(ctx, R, S);
    }
    *reason = SGP_STOP_RESID; /* the true system's residual is met */
    return SGP_OK;
  }
  if (S->filling && (S->kfill >= NC || it->B >= NC)) {
    *reason = S->resid_met ? SGP_STOP_RESID : SGP_STOP_EXHAUSTED;
    return SGP_OK;
  }
  /* a residual that has not halved in 20 iterations is at the accuracy that
   * cond(K^) eps allows (the forcing term can ask for less) */
  if (rho < 0.5 * S->rho_best) { S->rho_best = rho; S->since_best = 0; }
  else if (++S->since_best >= SGP_LAPLACE_STAGNATION && !S->filling &&
           o->policy == SGP_POLICY_CG) {
    *reason = SGP_STOP_STAGNATED;
    return SGP_OK;
  }
  if ((R->per > 1 ? S->iters : S->j - 1) >= o->max_iter) {
    int ok = 0;
    if (S->full && !S->filling && (st = full_exact(ctx, R, S->b, S->nd, S->v, S->Kv, &ok)))
      return st;
    *reason = SGP_STOP_MAXITER;
    return SGP_OK;
  }
  if (o->policy == SGP_POLICY_CHOLESKY && R->kappa >= NC) {
    *reason = SGP_STOP_EXHAUSTED;
    return SGP_OK;
  }
  if (budget_spent(R)) {
    *reason = SGP_STOP_BUDGET;
    return SGP_OK;
  }
  *stop = 0;
  return sgp_poll_interrupt(ctx);
}

/* The exact mode's first solve is possible: every action at once. */
static int solve_direct_fits(const run_t *R, const solve_t *S)
{
  const sgp_laplace_opts *o = R->o;
  const sgp_itergp *it = &R->it;
  const int64_t NC = it->NC;
  return S->blocked && !S->filling && !S->direct_tried && it->B == 0 && R->kappa == 0 &&
         it->C == 1 && (int64_t)o->max_iter - S->j + 1 >= NC && it->cap >= NC &&
         R->hist_cap - R->J >= NC && (o->max_total_iter < 0 || o->max_total_iter - R->J >= NC);
}

/* A block of unit-vector actions: one BLAS-3 sweep; *stop = 1 (with
 * *reason) when a pivot broke down outside a fill. */
static int solve_block(sgp_ctx *ctx, run_t *R, solve_t *S, int *reason, int *stop)
{
  const sgp_laplace_opts *o = R->o;
  sgp_itergp *it = &R->it;
  const int64_t n = it->n, C = it->C, NC = it->NC;
  int st;
  int64_t bb = R->bmax, left = (int64_t)o->max_iter - S->j + 1;
  const int64_t next = S->filling ? S->kfill : R->kappa;
  if (left < bb) bb = left;
  if (it->cap - it->B < bb) bb = it->cap - it->B;
  if (R->hist_cap - R->J < bb) bb = R->hist_cap - R->J;
  if (o->max_total_iter >= 0 && o->max_total_iter - R->J < bb) bb = o->max_total_iter - R->J;
  if (NC - next < bb) bb = NC - next;
  for (int64_t q = 0; q < bb; q++) R->bidx[q] = unit_index(R, next + q, !S->filling);
  sgp_unit_block ub;
  memset(&ub, 0, sizeof ub);
  ub.lik = R->lik; ub.nd = S->nd; ub.kernel = &o->kernel; ub.prep = &R->prep; ub.rhs = S->b;
  ub.idx = R->bidx; ub.b = bb;
  ub.rtol = S->filling || S->surrogate ? 0.0 : S->rtol;
  /* fill: skip directions that are numerically in span(S) (relative pivot) */
  ub.eta_rtol = S->filling ? 1e-10 : o->eta_tol;
  ub.ws = R->bws; ub.v = S->v; ub.res = R->res; ub.Kv = S->recursive ? S->Kv : NULL;
  ub.rho = R->bhist; ub.alpha = R->bhist + R->bmax; ub.eta = R->bhist + 2 * R->bmax;
  ub.trace_KQ = R->bhist + 3 * R->bmax;
  const int64_t B0 = it->B;
  if ((st = sgp_itergp_unit_block(ctx, it, &ub))) return st;
  const int64_t acc = ub.accepted;
  it->B = B0; it->r = B0; /* history rows show the buffer after each action */
  for (int64_t q = 0; q < acc; q++) {
    it->B++; it->r++;
    record(R, S->j + q, ub.rho[q], S->bnorm, ub.alpha[q], ub.eta[q], ub.trace_KQ[q]);
  }
  S->j += acc;
  if (acc > 0) { S->vzero = 0; S->v_changed = 1; }
  const int rejected = ub.reason == SGP_STOP_BREAKDOWN;
  if (S->filling) S->kfill += acc + rejected;
  else R->kappa += acc + rejected;
  *stop = 0;
  if (rejected && !S->filling) {
    if (!S->recursive && acc > 0) { /* Kv for the returned v (O7) */
      if ((st = R->op->apply(R->op, sgp_cmat_of(S->v, n, C), sgp_mat_of(S->Kv, n, C), ctx)))
        return st;
      R->kprod++;
    }
    *reason = SGP_STOP_BREAKDOWN;
    *stop = 1;
  }
  return SGP_OK;
}

/* I8 policy, I9 alpha, I10 t = K s: the next action in R->s, R->t; *uidx its
 * unit index (cholesky policy) or -1. */
static int action_choose(sgp_ctx *ctx, run_t *R, double *alpha, int64_t *uidx)
{
  const sgp_laplace_opts *o = R->o;
  const int64_t n = R->it.n, C = R->it.C, NC = R->it.NC;
  int st;
  *uidx = -1;
  if (o->policy == SGP_POLICY_CHOLESKY) {
    const int64_t p = R->perm[R->kappa / C], c = R->kappa % C;
    *uidx = p + n * c;
    R->kappa++;
    memset(R->s, 0, (size_t)NC * sizeof(double));
    R->s[*uidx] = 1.0;
    *alpha = R->res[*uidx];
    memset(R->t, 0, (size_t)NC * sizeof(double));
    sgp_kernel_tile(ctx, &o->kernel, &R->prep, 0, n, &R->prep, p, 1, R->t + n * c, n);
    return SGP_OK;
  }
  if (R->pc && !R->sur_plain) { /* preconditioned actions (laplace_precond.c) */
    if ((st = sgp_laplace_precond_apply(ctx, R->pc, R->res, R->s))) return st;
  } else {
    memcpy(R->s, R->res, (size_t)NC * sizeof(double));
  }
  if (sgp_lik_multiclass(R->lik->kind)) sgp_laplace_center_classes(n, C, R->s);
  *alpha = sgp_dot(NC, R->s, R->res);
  if ((st = R->op->apply(R->op, sgp_cmat_of(R->s, n, C), sgp_mat_of(R->t, n, C), ctx)))
    return st;
  R->kprod++;
  return SGP_OK;
}

/* I11 z = t + W^{-1} s; I12 w = Q'z, d = s - Q w (a second pass when the first
 * cancelled); I13 eta = z'd. *taken = 0 when I14 rejects the action (less
 * than eta_tol, after two passes 1e-10, of its K^-norm outside span(Q)). */
static int action_orthogonalize(sgp_ctx *ctx, run_t *R, const double *nd, double *alpha,
                                double *eta, int *taken)
{
  const sgp_laplace_opts *o = R->o;
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC;
  int st;
  memcpy(R->z, R->t, (size_t)NC * sizeof(double));
  sgp_lik_winv_add(R->lik, nd, 1, R->s, R->z);
  memcpy(R->d, R->s, (size_t)NC * sizeof(double));
  if (it->r > 0) {
    if ((st = sgp_gemm(ctx, 'T', 'N', it->r, 1, NC, 1.0, it->Q, NC, R->z, NC, 0.0, R->wr,
                       it->r)))
      return st;
    if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, it->r, -1.0, it->Q, NC, R->wr, it->r, 1.0, R->d,
                       NC)))
      return st;
  }
  *eta = sgp_dot(NC, R->z, R->d);
  const double sz = sgp_dot(NC, R->s, R->z);
  int twice = 0;
  if (it->r > 0 && *eta < 0.5 * sz) { /* most of s was in span(Q) */
    if ((st = reorthogonalize(ctx, R, nd))) return st;
    *eta = sgp_dot(NC, R->z, R->d);
    *alpha = sgp_dot(NC, R->d, R->res); /* = s'res when S'res = 0 holds exactly */
    twice = 1;
  }
  const double eta_rel = twice && o->eta_tol < 1e-10 ? 1e-10 : o->eta_tol;
  *taken = !isfinite(*eta) || ((*eta > eta_rel * sz) && (*eta > 0.0));
  return SGP_OK;
}

/* K d = t - T (G w), I15-I16 appends (B == r always: see sgp_itergp_virtual),
 * I17 v += (alpha/eta) d, the trace and the history row. */
static int action_append(sgp_ctx *ctx, run_t *R, solve_t *S, double rho, double alpha,
                         double eta, int64_t uidx)
{
  sgp_itergp *it = &R->it;
  const int64_t NC = it->NC, ldg = it->cap;
  int st;
  memcpy(R->kd, R->t, (size_t)NC * sizeof(double));
  if (it->r > 0) {
    if ((st = sgp_gemm(ctx, 'N', 'N', it->B, 1, it->r, 1.0, it->G, ldg, R->wr, it->r, 0.0,
                       R->gw, it->B)))
      return st;
    if ((st = sgp_gemm(ctx, 'N', 'N', NC, 1, it->B, -1.0, it->T, NC, R->gw, it->B, 1.0, R->kd,
                       NC)))
      return st;
  }
  if ((st = sgp_itergp_kq(ctx, it))) return st; /* the trace (and K Q when stored) */
  const double se = sqrt(eta), step = alpha / eta;
  const int64_t B = it->B, r = it->r;
  memcpy(it->S + NC * B, R->s, (size_t)NC * sizeof(double));
  memcpy(it->T + NC * B, R->t, (size_t)NC * sizeof(double));
  for (int64_t i = 0; i < NC; i++) it->Q[i + NC * r] = R->d[i] / se;
  if (it->kq_stored)
    for (int64_t i = 0; i < NC; i++) it->work[i + NC * r] = R->kd[i] / se;
  for (int64_t l = 0; l < r; l++) it->G[B + l * ldg] = 0.0;
  for (int64_t i = 0; i < B; i++) it->G[i + r * ldg] = r > 0 ? -R->gw[i] / se : 0.0;
  it->G[B + r * ldg] = 1.0 / se;
  it->idx[B] = uidx;
  if (uidx < 0) it->unit = 0;
  it->B = B + 1;
  it->r = r + 1;
  for (int64_t i = 0; i < NC; i++) S->v[i] += step * R->d[i];
  if (S->recursive)
    for (int64_t i = 0; i < NC; i++) S->Kv[i] += step * R->kd[i];
  const double kd2 = sgp_dot(NC, R->kd, R->kd);
  it->trace_KQ += kd2 / eta;
  S->vzero = 0;
  S->v_changed = 1;
  record(R, S->j, rho, S->bnorm, alpha, eta, it->trace_KQ);
  S->j++;
  return SGP_OK;
}

/* x_c = P (x0[:, c] (x) e_c): class block c of an NC-vector, its per-point mean
 * removed. K = I_C (x) K_x commutes with both steps, so the block of K s is
 * K times the block of s. */
static void class_block(int64_t n, int64_t C, int64_t c, const double *x0, double *x)
{
  const double off = -1.0 / (double)C;
  for (int64_t k = 0; k < C; k++)
    for (int64_t i = 0; i < n; i++) x[i + k * n] = x0[i + c * n] * (k == c ? 1.0 + off : off);
}

/* Class actions (option class_actions): the iteration's centred residual s and
 * its product K s (action_choose) cut into the C actions s_c = P (s[:, c] (x) e_c),
 * each with K s_c from K s. They sum to s, so span(S) grows by span{s_c}, which
 * holds the cg action; the sum directions (K^ = K there) stay outside
 * span(S), as with one action. IterGP takes them one after the other: v stays
 * the Galerkin solution on span(S), C = S (S'K^S)^-1 S'. alpha =
 * d'res with the residual before the iteration: d is K^-orthogonal to the
 * earlier blocks' directions, which are all v moved along since. A block in
 * span(S) (with two classes the blocks coincide) is skipped; *taken: the number
 * accepted. */
static int class_actions_take(sgp_ctx *ctx, run_t *R, solve_t *S, double rho, int64_t *taken,
                              int *bad)
{
  sgp_itergp *it = &R->it;
  const int64_t n = it->n, C = it->C, NC = it->NC;
  double *s0 = R->cls, *t0 = R->cls + NC, alpha, eta;
  int64_t uidx;
  int st, ok;
  *taken = 0;
  if ((st = action_choose(ctx, R, &alpha, &uidx))) return st;
  memcpy(s0, R->s, (size_t)NC * sizeof(double));
  memcpy(t0, R->t, (size_t)NC * sizeof(double));
  S->iters++;
  for (int64_t c = 0; c < C; c++) {
    if (budget_spent(R)) break;
    class_block(n, C, c, s0, R->s);
    class_block(n, C, c, t0, R->t);
    if ((st = action_orthogonalize(ctx, R, S->nd, &alpha, &eta, &ok))) return st;
    if (!isfinite(eta)) { *bad = 1; return SGP_OK; }
    if (!ok) continue;
    alpha = sgp_dot(NC, R->d, R->res);
    if ((st = action_append(ctx, R, S, rho, alpha, eta, -1))) return st;
    ++*taken;
  }
  return SGP_OK;
}

/* One action of the residual (cg) or unit (cholesky) policy, or one iteration's
 * class actions; *stop = 1 (with *reason) on a breakdown that ends the solve. */
static int solve_action(sgp_ctx *ctx, run_t *R, solve_t *S, double rho, int *reason, int *bad,
                        int *stop)
{
  int st, taken;
  double alpha, eta;
  int64_t uidx;
  *stop = 0;
  if ((st = sgp_itergp_root(ctx, &R->it))) return st;
  if (R->per > 1) {
    int64_t k;
    if ((st = class_actions_take(ctx, R, S, rho, &k, bad)) || *bad) return st;
    taken = k > 0;
    if (taken) return SGP_OK;
  } else {
    if ((st = action_choose(ctx, R, &alpha, &uidx))) return st;
    if ((st = action_orthogonalize(ctx, R, S->nd, &alpha, &eta, &taken))) return st;
    if (!isfinite(eta)) { *bad = 1; return SGP_OK; }
    if (taken) return action_append(ctx, R, S, rho, alpha, eta, uidx);
  }
  if (S->full && !S->filling) { /* CG ran out: the exact state, else fill */
    int ok = 0;
    if ((st = full_exact(ctx, R, S->b, S->nd, S->v, S->Kv, &ok))) return st;
    if (ok) { *reason = SGP_STOP_EXHAUSTED; *stop = 1; return SGP_OK; }
    S->filling = 1;
    S->kfill = 0;
    return SGP_OK;
  }
  *reason = SGP_STOP_BREAKDOWN;
  *stop = 1;
  return SGP_OK;
}

/* After the loop: recycled actions that span everything (B = NC) give C =
 * K^{-1}, and the dense state is exact where a root from NC raw CG residuals
 * (norms over many decades) is not; after a fill the one-pass Gram-Schmidt root
 * has lost some K^-orthogonality (unit vectors partly in the span of the CG
 * residuals), which diag(K - KQQ'K) feels first: two Cholesky-QR passes restore
 * Q'K^Q = I. */
static int solve_end(sgp_ctx *ctx, run_t *R, solve_t *S)
{
  sgp_itergp *it = &R->it;
  int st;
  if (!S->filling && !it->unit && it->B >= it->NC) {
    int ok = 0;
    if ((st = full_exact(ctx, R, S->b, S->nd, S->v, S->Kv, &ok))) return st;
  }
  if (S->filling)
    for (int pass = 0; pass < 2; pass++)
      if ((st = sgp_itergp_reorth(ctx, it, R->lik, S->nd, R->z))) return st;
  return SGP_OK;
}

int sgp_laplace_inner(sgp_ctx *ctx, run_t *R, const double *b, const double *nd, double *v,
                      double *Kv, int *reason, int *bad)
{
  const sgp_laplace_opts *o = R->o;
  solve_t S;
  memset(&S, 0, sizeof S);
  S.b = b; S.nd = nd; S.v = v; S.Kv = Kv;
  S.recursive = o->residual == SGP_RESIDUAL_RECURSIVE;
  S.full = o->policy == SGP_POLICY_CG && (int64_t)o->max_iter >= R->it.NC;
  S.blocked = o->policy == SGP_POLICY_CHOLESKY && R->bmax > 1;
  S.v_changed = 1;
  S.rho_best = INFINITY;
  S.j = S.j_fresh = 1;
  R->sur_plain = 0;
  *bad = 0;
  *reason = SGP_STOP_NONE;
  int st, stop;
  if ((st = solve_begin(ctx, R, &S, bad)) || *bad) return st;
  for (;;) {
    double rho;
    if ((st = solve_residual(ctx, R, &S, &rho))) return st;
    if (!isfinite(rho)) { *bad = 1; return SGP_OK; }
    if ((st = solve_stop(ctx, R, &S, rho, reason, &stop))) return st;
    if (stop) break;
    if (S.restart) { S.restart = 0; continue; } /* the surrogate's residual */
    if (solve_direct_fits(R, &S)) { /* the exact mode's first solve (laplace_direct.c) */
      int fallback = 0;
      S.direct_tried = 1;
      if ((st = direct_solve(ctx, R, b, nd, v, Kv, S.surrogate ? 0.0 : S.rtol, S.bnorm, &S.j,
                             &fallback)))
        return st;
      if (!fallback) { S.vzero = 0; S.v_changed = 1; }
      continue;
    }
    if (S.filling || S.blocked) st = solve_block(ctx, R, &S, reason, &stop);
    else st = solve_action(ctx, R, &S, rho, reason, bad, &stop);
    if (st || *bad) return st;
    if (stop) break;
  }
  if (S.surrogate && (st = surrogate_end(ctx, R, &S, reason))) return st;
  return solve_end(ctx, R, &S);
}
