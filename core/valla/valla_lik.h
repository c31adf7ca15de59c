/* valla_lik.h -- per-point likelihood terms of the VaLLA objective (valla_lik.c). */
#ifndef SGP_VALLA_LIK_H
#define SGP_VALLA_LIK_H

#include "valla/valla.h"

/* e_i for one point: outputs g (C values, stride gs), latent variances v (stride
 * vs), target y (regression, standardized) or label, noise variance s (Gaussian).
 * dv (stride dvs, may be NULL) receives de/dv_c; ds (may be NULL) s * de/ds at
 * fixed v. Bernoulli: one logit output, y in {0, 1}. */
double valla_lik_term(sgp_likelihood lik, double alpha, int64_t C, const double *g,
                      int64_t gs, const double *v, int64_t vs, double y, double s,
                      double *dv, int64_t dvs, double *ds);
/* Probit class probabilities (softmax: C of them; Bernoulli: 2, P(0), P(1)). */
void valla_probit_prob(sgp_likelihood lik, int64_t C, const double *g, int64_t gs,
                       const double *v, int64_t vs, double *p, int64_t ps);
/* Lambda (C x C, column-major) of the likelihood Hessian at outputs g (stride
 * gs): Gaussian 1/s, Bernoulli p(1-p), softmax diag(p) - p p'. */
void valla_lik_hessian(sgp_likelihood lik, int64_t C, const double *g, int64_t gs, double s,
                       double *Lam);
/* Point i's rows of Lambda times a class-stacked block (rows i + nt c, nr = nt C
 * rows per column, ncol columns): LP[i + nt a + nr k] = sum_b Lam[a, b] P[i + nt b + nr k]. */
void valla_lik_hessian_rows(int64_t C, const double *Lam, int64_t i, int64_t nt, int64_t ncol,
                            const double *P, double *LP);

#endif
