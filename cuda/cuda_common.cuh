/* cuda_common.cuh -- pieces shared by the CUDA operators: error reporting and
 * the pair of device blocks (input V, output Y) every operator moves. */
#ifndef SGP_CUDA_COMMON_CUH
#define SGP_CUDA_COMMON_CUH

#include <cuda_runtime.h>

extern "C" {
#include "runtime/cuda_backend.h"
#include "kernels/kernels.h"
#include "ski/ski.h"
}

static inline int cuda_fail(sgp_ctx *ctx, cudaError_t e, const char *what)
{
  return sgp_fail(ctx, SGP_ECUDA, "cuda: %s: %s", what, cudaGetErrorString(e));
}

static inline unsigned blocks_for(int64_t n) { return (unsigned)((n + 255) / 256); }

/* Device n-by-cap blocks V and Y (ld n), grown on demand. */
typedef struct {
  double *V, *Y;
  int64_t cap;
} cuda_blocks;

static inline void cuda_blocks_free(cuda_blocks *b)
{
  cudaFree(b->V);
  cudaFree(b->Y);
  b->V = b->Y = NULL;
  b->cap = 0;
}

static inline int cuda_blocks_reserve(sgp_ctx *ctx, cuda_blocks *b, int64_t n, int64_t cols)
{
  if (cols <= b->cap) return SGP_OK;
  cuda_blocks_free(b);
  cudaError_t e = cudaMalloc((void **)&b->V, sizeof(double) * n * cols);
  if (e == cudaSuccess) e = cudaMalloc((void **)&b->Y, sizeof(double) * n * cols);
  if (e != cudaSuccess) return cuda_fail(ctx, e, "allocating the vector blocks");
  b->cap = cols;
  return SGP_OK;
}

/* Checks the host blocks of op->apply and copies V into the device block. */
static inline int cuda_blocks_upload(sgp_ctx *ctx, cuda_blocks *b, int64_t n, sgp_cmat V,
                                     sgp_mat Y)
{
  if (V.rows != n || Y.rows != n || Y.cols != V.cols)
    return sgp_fail(ctx, SGP_EDIM, "operator: block is %lld x %lld; need %lld rows",
                    (long long)V.rows, (long long)V.cols, (long long)n);
  int st = cuda_blocks_reserve(ctx, b, n, V.cols);
  if (st) return st;
  cudaError_t e = cudaMemcpy2D(b->V, sizeof(double) * n, V.data, sizeof(double) * V.ld,
                               sizeof(double) * n, V.cols, cudaMemcpyHostToDevice);
  return e == cudaSuccess ? SGP_OK : cuda_fail(ctx, e, "copying a block to the device");
}

/* Copies the device result (the first Y.cols columns of src) into Y. */
static inline int cuda_blocks_download(sgp_ctx *ctx, const double *src, sgp_mat Y)
{
  cudaError_t e = cudaMemcpy2D(Y.data, sizeof(double) * Y.ld, src, sizeof(double) * Y.rows,
                               sizeof(double) * Y.rows, Y.cols, cudaMemcpyDeviceToHost);
  return e == cudaSuccess ? SGP_OK : cuda_fail(ctx, e, "copying a block to the host");
}

#endif
