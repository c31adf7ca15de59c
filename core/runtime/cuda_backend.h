/* cuda_backend.h -- what the C core sees of the CUDA backend (core-internal).
 * Only declared and defined when the build has SGP_HAVE_CUDA; the CPU build
 * takes the stand-ins in backend/backend.c. kernels/ and ski/ call it and
 * backend/cuda_loader.c forwards it to the plugin (cuda/), so it names only
 * public types and the tag of the one internal type it passes by pointer
 * (sgp_kprep, kernels/kernels.h): no folder it serves is included back. */
#ifndef SGP_CUDA_BACKEND_H
#define SGP_CUDA_BACKEND_H

#include "api/sgp.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sgp_kprep;

/* Kernel operator k(X, X) + shift I on the GPU from prepared inputs (copied to
 * the device; `prep` may be freed afterwards). Products are computed in row x
 * column tiles: a cuBLAS dgemm for the cross products when d > 4 (direct
 * differences otherwise), the kernel transform on the device, and a dgemm with
 * the block V, all in double precision. */
int sgp_cuda_op_dense_kernel(sgp_ctx *ctx, const sgp_kernel *k, const struct sgp_kprep *prep,
                             double shift, sgp_op *op);

/* K_G on the GPU from a CPU grid operator built on the CIRCULANT path (the
 * same eigenvalues, copied to the device); kg must outlive the GPU operator. */
int sgp_cuda_op_ski_grid(sgp_ctx *ctx, const sgp_op *kg, sgp_op *op);
/* The same, owning the CPU operator: on success *kg is moved into op (and
 * destroyed with it) and cleared; on failure *kg is left to the caller. */
int sgp_cuda_op_ski_grid_take(sgp_ctx *ctx, sgp_op *kg, sgp_op *op);
/* B = W'W on the GPU from the stencil statistics (copied to the device); st
 * must outlive the GPU operator. */
int sgp_cuda_op_ski_stencil(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_op *op);

#ifdef __cplusplus
}
#endif

#endif
