/* laplace_precond.c -- the cg policy's preconditioned actions (option precond_rank):
 * s = P^-1 r with P = F F' + W^-1 ~ K^ = K + W^-1, F F' the rank-k pivoted Cholesky
 * of K that the stochastic evidence already builds (evidence_precond.c). That code
 * preconditions B = I + S K S (S = W^1/2) by P_B = I + S F F' S; since
 * K^ = S^-1 B S^-1, P = S^-1 P_B S^-1 and P^-1 r = S P_B^-1 (S r), so the same
 * Woodbury factor serves both.
 * IterGP stays exact: its posterior C = S (S'K^S)^-1 S' is defined on K^ by
 * whatever actions were taken; preconditioning only chooses them (the
 * conjugate-gradient actions of PCG), and the Gram-Schmidt against Q in the K^
 * inner product is unchanged. Diagonal W only (not softmax). */
#include "laplace/evidence.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct sgp_laplace_precond {
  sgp_evs_precond pc;
  double *sw, *tmp;   /* n: W^1/2 at the last update; S r */
};

int sgp_laplace_precond_new(sgp_ctx *ctx, const sgp_kernel *k, sgp_cmat X, int rank,
                            sgp_laplace_precond **out)
{
  const int64_t n = X.rows;
  *out = NULL;
  sgp_laplace_precond *p = (sgp_laplace_precond *)calloc(1, sizeof *p);
  if (!p) return sgp_fail(ctx, SGP_ENOMEM, "out of memory for the preconditioner");
  p->sw = sgp_alloc(n);
  p->tmp = sgp_alloc(n);
  int st = p->sw && p->tmp ? SGP_OK : sgp_fail(ctx, SGP_ENOMEM, "out of memory for the preconditioner");
  if (!st) st = sgp_evs_precond_build(ctx, k, X, rank, NULL, NULL, &p->pc);
  if (st) { sgp_laplace_precond_free(p); return st; }
  *out = p;
  return SGP_OK;
}

void sgp_laplace_precond_free(sgp_laplace_precond *p)
{
  if (!p) return;
  sgp_evs_precond_free(&p->pc);
  free(p->sw); free(p->tmp);
  free(p);
}

int sgp_laplace_precond_update(sgp_ctx *ctx, sgp_laplace_precond *p, const double *nd)
{
  const int64_t n = p->pc.n;
  for (int64_t i = 0; i < n; i++) p->sw[i] = 1.0 / sqrt(nd[i]); /* nd > 0: W^-1 capped */
  return sgp_evs_precond_factorize(ctx, &p->pc, p->sw);
}

int sgp_laplace_precond_apply(sgp_ctx *ctx, const sgp_laplace_precond *p, const double *r,
                              double *s)
{
  const int64_t n = p->pc.n;
  for (int64_t i = 0; i < n; i++) p->tmp[i] = p->sw[i] * r[i];
  sgp_op op;
  memset(&op, 0, sizeof op);
  op.state = (void *)&p->pc;
  int st = sgp_evs_precond_apply(&op, sgp_cmat_of(p->tmp, n, 1), sgp_mat_of(s, n, 1), ctx);
  if (st) return st;
  for (int64_t i = 0; i < n; i++) s[i] *= p->sw[i];
  return SGP_OK;
}
