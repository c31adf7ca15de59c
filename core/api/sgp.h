/*
 * sgp.h -- the public header of the scalegp C core: one include for the hosts,
 * over one header per module (api/sgp_<module>.h) and the three of the hosts'
 * plain data: options by name, fits read back, results written.
 *
 * Conventions (ARCHITECTURE.md has the rules):
 *  - matrices are non-owning column-major views (sgp_cmat / sgp_mat, ld >= rows);
 *  - every entry point returns SGP_OK (0) or a negative SGP_E* code, with the
 *    detail in ctx->errmsg; non-convergence is reported in results, not as error;
 *  - the core never prints, exits or aborts: output, interrupts and progress go
 *    through the hooks in sgp_ctx, randomness through its seeded RNG.
 */
#ifndef SGP_H
#define SGP_H

#include "api/sgp_runtime.h"
#include "api/sgp_kernels.h"
#include "api/sgp_likelihood.h"
#include "api/sgp_select.h"
#include "api/sgp_laplace.h"
#include "api/sgp_ski.h"
#include "api/sgp_valla.h"
#include "api/sgp_ski_laplace.h"
#include "api/sgp_ski_acc.h"
#include "api/sgp_options.h"
#include "api/sgp_fit_check.h"
#include "api/sgp_plain.h"

#endif /* SGP_H */
