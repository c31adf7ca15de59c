/* cuda_backend.h -- what the C core sees of the CUDA backend (core-internal).
 * Only declared and defined when the build has SGP_HAVE_CUDA; the CPU build
 * takes the stand-ins in core/backend.c. */
#ifndef SGP_CUDA_BACKEND_H
#define SGP_CUDA_BACKEND_H

#include "kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Kernel operator k(X, X) + shift I on the GPU from prepared inputs (copied to
 * the device; `prep` may be freed afterwards). Products are computed in row x
 * column tiles: a cuBLAS dgemm for the cross products when d > 4 (direct
 * differences otherwise), the kernel transform on the device, and a dgemm with
 * the block V, all in double precision. */
int sgp_cuda_op_dense_kernel(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *prep,
                             double shift, sgp_op *op);

#ifdef __cplusplus
}
#endif

#endif
