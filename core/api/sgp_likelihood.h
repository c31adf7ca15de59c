/* sgp_likelihood.h -- the likelihoods, shared by gp_laplace and valla. */
#ifndef SGP_LIKELIHOOD_H
#define SGP_LIKELIHOOD_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  SGP_LIK_GAUSSIAN = 0,   /* y real, variance `noise` (scalar or per point) */
  SGP_LIK_BERNOULLI = 1,  /* y in {0, 1}, logit link, one latent function */
  SGP_LIK_POISSON = 2,    /* y in {0, 1, 2, ...}, log link, log exposure `offset` */
  SGP_LIK_SOFTMAX = 3,    /* y in {1, ..., n_class}, C = n_class latents, shared kernel */
  SGP_LIK_BINOMIAL = 4,   /* y in {0, ..., trials}, logit link, `trials` per point */
  SGP_LIK_NEGBIN = 5      /* y in {0, 1, 2, ...}, NB2: variance mu + mu^2 / dispersion, log
                           * link, log exposure `offset` */
} sgp_likelihood;

/* How a likelihood codes class labels, which the fronts follow to code a factor, a
 * cellstr or a logical y: *classes 1 when its labels are classes (else numbers);
 * *n_classes their number (2), or 0 when it is the number of the labels' levels
 * (given to the core as n_class); *first the code of the first class. Returns 0
 * for a kind out of range (nothing written), else 1. */
int sgp_lik_label_coding(sgp_likelihood kind, int *classes, int *n_classes, int *first);

#ifdef __cplusplus
}
#endif
#endif /* SGP_LIKELIHOOD_H */
