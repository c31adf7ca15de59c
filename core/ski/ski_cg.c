/* ski_cg.c -- the control of ski_gsgp's conjugate-gradient solves (SKI CG,
 * EFCG, sEFCG, preconditioned EFCG: ski_solve.c, ski_precond.c), so that
 * `converged` means the same everywhere and is true:
 *
 *  - CG's residual is updated recursively; in floating point it drifts from
 *    the true residual b - A x of the iterate (the "residual gap", ~ eps
 *    cond(A) |x|: on the 12 x 10 test grid with noise 1e-4 the recursion
 *    reported 7.6e-13 where the true residual was 4.1e-10). So whenever the
 *    recursion meets tol, and at max_iter, the true residual is computed
 *    (verify); only a true residual <= tol counts as converged.
 *  - A true residual within 2x of the recursion's means the recursion is
 *    still accurate: CG goes on and checks again at half the recursion's
 *    level. A larger one means it has drifted: the true residual replaces it
 *    and CG restarts from it (p = r: keeping the old direction stalled on the
 *    example above, 2000 iterations to 1.1e-8, where restarting stops at
 *    5.4e-10 after 880).
 *  - A drift again without the true residual halving since the last
 *    replacement is the attainable accuracy: the solve stops, not converged
 *    (SGP_SKI_STOP_ACCURACY), rather than iterate to max_iter for nothing.
 *  - p'Ap <= 0 stops (SGP_SKI_STOP_BREAKDOWN, not converged unless the
 *    iterate's true residual meets tol, e.g. an exact solution).
 *  - A non-finite p'Ap or residual is an error naming outputscale (the solve
 *    overflowed), never a fit made of NaN.
 *  - A solve whose quantity needs more than tol (cg->target: the exact
 *    variances, ski_var.c) gets, after each verification, the residual that
 *    quantity needs at the iterate just verified; the tolerance only shrinks,
 *    and `converged` is judged against the last one.
 * The reported rel_residual is the true one of the returned iterate, with an
 * allowance for the rounding of its factorized norm (sgp_ski_fnorm2). */
#include "ski/ski.h"

#include <float.h>
#include <math.h>

void sgp_ski_dot2(int64_t n, const double *a, const double *b, const double *c,
                  const double *d, double *ab, double *cd)
{
  double s0 = 0.0, s1 = 0.0;
  for (int64_t i = 0; i < n; i++) {
    s0 += a[i] * b[i];
    s1 += c[i] * d[i];
  }
  *ab = s0;
  *cd = s1;
}

void sgp_ski_dot4(int64_t n, const double *const a[4], const double *const b[4], double out[4])
{
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  const double *a0 = a[0], *a1 = a[1], *a2 = a[2], *a3 = a[3];
  const double *b0 = b[0], *b1 = b[1], *b2 = b[2], *b3 = b[3];
  for (int64_t i = 0; i < n; i++) {
    s0 += a0[i] * b0[i];
    s1 += a1[i] * b1[i];
    s2 += a2[i] * b2[i];
    s3 += a3[i] * b3[i];
  }
  out[0] = s0;
  out[1] = s1;
  out[2] = s2;
  out[3] = s3;
}

double sgp_ski_fnorm2(int64_t m, const double *rh, const double *u, const double *u0, double c,
                      double rho0)
{
  double ru = 0.0, ru0 = 0.0, au = 0.0, au0 = 0.0;
  for (int64_t i = 0; i < m; i++) {
    ru += rh[i] * u[i];
    au += fabs(rh[i] * u[i]);
  }
  for (int64_t i = 0; u0 && i < m; i++) {
    ru0 += rh[i] * u0[i];
    au0 += fabs(rh[i] * u0[i]);
  }
  const double g2 = ru + 2.0 * c * ru0 + c * c * rho0;
  const double slack = (2.0 + sqrt((double)m)) * DBL_EPSILON * (au + 2.0 * fabs(c) * au0 +
                                                                c * c * rho0);
  return isfinite(g2) ? fmax(g2, 0.0) + slack : g2;
}

static int nonfinite(sgp_ctx *ctx, const char *what, int64_t k)
{
  return sgp_fail(ctx, SGP_EINVAL,
                  "outputscale: the %s solve met a non-finite value at iteration %lld (an "
                  "overflow: y, outputscale and noise must be of moderate magnitude)", what,
                  (long long)k);
}

static double rel_of(double g2, double nb)
{
  return nb > 0 ? sqrt(fmax(g2, 0.0)) / nb : 0.0;
}

/* Verifies the iterate after iteration k (1-based count): the true relative
 * residual into inf and history[k]; replace: it becomes the recursion's. */
static int verify(sgp_ctx *ctx, const sgp_ski_cg *cg, int64_t k, int replace, double nb,
                  double *g2, sgp_ski_solve_info *inf, double *history)
{
  const int code = cg->verify(cg->state, ctx, replace, g2);
  if (code) return code;
  if (!isfinite(*g2)) return nonfinite(ctx, cg->what, k);
  inf->rel_residual = rel_of(*g2, nb);
  if (history) history[k] = inf->rel_residual;
  return SGP_OK;
}

/* The tolerance after a verification: o->tol, or less where the solve's
 * quantity asks for it (cg->target, from the iterate just verified); never
 * more than before. */
static double tighten(const sgp_ski_cg *cg, double tol)
{
  if (!cg->target) return tol;
  const double t = cg->target(cg->state);
  return t < tol ? (t > 0 ? t : 0.0) : tol;
}

int sgp_ski_cg_run(sgp_ctx *ctx, const sgp_ski_cg *cg, double g2, double nb,
                   const sgp_ski_solve_opts *o, sgp_ski_solve_info *inf, double *history,
                   double *alpha, double *beta)
{
  int code = SGP_OK, verified = 0, done;
  double last = INFINITY; /* the true relative residual at the last replacement */
  double tol = o->tol;    /* tightened by cg->target after each verification */
  double thr = tol;       /* the recursion's level that triggers the next check */
  inf->iterations = 0;
  inf->converged = 0;
  inf->stop = SGP_SKI_STOP_MAX_ITER;
  inf->rel_residual = rel_of(g2, nb);
  if (history) history[0] = inf->rel_residual;
  /* r0 = b: exact, no rounding; a target judges an iterate only once verified
   * (b = 0 needs none: x = 0 is exact) */
  done = inf->rel_residual <= tol && (!cg->target || !(g2 > 0));
  for (int64_t k = 0; !done && k < o->max_iter; k++) {
    double delta, a;
    int restart = 0;
    if ((code = sgp_poll_interrupt(ctx))) return code;
    if ((code = cg->step(cg->state, ctx, &delta, &a))) return code;
    if (!isfinite(delta)) return nonfinite(ctx, cg->what, k + 1);
    if (!(delta > 0)) { inf->stop = SGP_SKI_STOP_BREAKDOWN; break; }
    if ((code = cg->advance(cg->state, ctx, a, &g2))) return code;
    if (!isfinite(g2)) return nonfinite(ctx, cg->what, k + 1);
    inf->iterations = k + 1;
    const double rec = rel_of(g2, nb);
    inf->rel_residual = rec;
    if (alpha) alpha[k] = a;
    if (history) history[k + 1] = rec;
    verified = 0;
    if (rec <= thr || k + 1 == o->max_iter) {
      double g2t;
      if ((code = verify(ctx, cg, k + 1, 0, nb, &g2t, inf, history))) return code;
      verified = 1;
      tol = tighten(cg, tol);
      if ((done = inf->rel_residual <= tol)) break;
      if (k + 1 < o->max_iter) {
        const double rel = inf->rel_residual;
        if (rel <= 2.0 * rec) { /* the recursion is still accurate: on to half its level */
          thr = 0.5 * rec;
        } else if (rel > 0.5 * last) { /* drifted again, no better: the attainable accuracy */
          inf->stop = SGP_SKI_STOP_ACCURACY;
          break;
        } else { /* drifted: the true residual replaces it, CG restarts from it */
          if ((code = cg->verify(cg->state, ctx, 1, &g2))) return code;
          last = rel;
          thr = tol;
          restart = 1;
        }
      }
    }
    const double b = cg->direct(cg->state, g2, restart);
    if (beta) beta[k] = b;
  }
  if (!verified) {
    if ((code = verify(ctx, cg, inf->iterations, 0, nb, &g2, inf, history))) return code;
    tol = tighten(cg, tol);
  }
  inf->converged = inf->rel_residual <= tol;
  if (inf->converged) inf->stop = SGP_SKI_STOP_TOL;
  return SGP_OK;
}
