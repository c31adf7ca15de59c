/* cuda_kernel_op.cu -- the dense kernel operator k(X, X) V + shift V on the GPU.
 *
 * Same arithmetic as core/kernels/kernels.c: inputs are centred and scaled on the host
 * (sgp_kprep); for d > 4 squared distances are |z|^2 + |z'|^2 - 2 z.z' from one
 * cuBLAS dgemm per tile, with entries that suffer cancellation recomputed from
 * the differences; for d <= 4 the differences are summed directly. A tile of K
 * lives only on the device and is multiplied into Y at once, so device memory
 * is O(n (d + b) + tile^2), never O(n^2). */
#include <cublas_v2.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.cuh"

#define TILE 4096

typedef struct {
  sgp_kernel_kind kind;
  double s2, alpha, shift;
  int64_t n, d;
  double *z, *norm2;   /* device: n-by-d prepared inputs, their squared norms */
  double *K;           /* device: TILE-by-TILE kernel tile */
  cuda_blocks blk;     /* device: n-by-b blocks V and Y */
  cublasHandle_t blas;
} cuda_dense;

static int blas_fail(sgp_ctx *ctx, cublasStatus_t s, const char *what)
{
  return sgp_fail(ctx, SGP_ECUDA, "cublas: %s failed (status %d)", what, (int)s);
}

/* The kernel table's values on the device (core/kernels/kernel_table.h has the CPU's
 * arithmetic): 1 and *v = s2 phi(r2) for a kind with a case here, 0 for any
 * other. No default: a kernel added to the table without a case here is refused
 * by cuda_op_dense_kernel (which asks on the host), never evaluated as another. */
__host__ __device__ static int kernel_value(sgp_kernel_kind kind, double s2, double alpha,
                                            double r2, double *v)
{
  double a;
  switch (kind) {
  case SGP_KERNEL_RBF: *v = s2 * exp(-0.5 * r2); return 1;
  case SGP_KERNEL_MATERN12: *v = s2 * exp(-sqrt(r2)); return 1;
  case SGP_KERNEL_MATERN32:
    a = sqrt(3.0 * r2);
    *v = s2 * (1.0 + a) * exp(-a);
    return 1;
  case SGP_KERNEL_MATERN52:
    a = sqrt(5.0 * r2);
    *v = s2 * (1.0 + a + a * a / 3.0) * exp(-a);
    return 1;
  case SGP_KERNEL_RQ: *v = s2 * exp(-alpha * log1p(r2 / (2.0 * alpha))); return 1;
  case SGP_KERNEL_COUNT: break;
  }
  *v = NAN;
  return 0;
}

/* T (ni-by-nj, ld ni) holds -2 za.zb' when from_gemm, else nothing; becomes k. */
__global__ static void tile_kernel(int64_t ni, int64_t nj, double *T, const double *z, int64_t n,
                                   int64_t d, const double *norm2, int64_t i0, int64_t j0,
                                   sgp_kernel_kind kind, double s2, double alpha,
                                   int from_gemm)
{
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= ni * nj) return;
  const int64_t i = i0 + idx % ni, j = j0 + idx / ni;
  double r2 = 0.0;
  if (from_gemm) {
    const double scale = norm2[i] + norm2[j];
    r2 = T[idx] + scale;
    if (r2 < 1e-4 * scale) from_gemm = 0; /* cancellation: recompute directly */
  }
  if (!from_gemm) {
    r2 = 0.0;
    for (int64_t l = 0; l < d; l++) {
      const double diff = z[i + l * n] - z[j + l * n];
      r2 += diff * diff;
    }
  }
  (void)kernel_value(kind, s2, alpha, r2, &T[idx]); /* kind checked on the host */
}

__global__ static void add_shift(int64_t n, int64_t b, double shift, const double *V, double *Y)
{
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < n * b) Y[idx] += shift * V[idx];
}

/* Y = K V for the device blocks, row tile by row tile (interrupts polled between). */
static int device_product(sgp_ctx *ctx, cuda_dense *s, int64_t b)
{
  const double one = 1.0, zero = 0.0, m2 = -2.0;
  const int64_t n = s->n;
  cublasStatus_t bs;
  for (int64_t i0 = 0; i0 < n; i0 += TILE) {
    const int64_t ni = i0 + TILE <= n ? TILE : n - i0;
    for (int64_t j0 = 0; j0 < n; j0 += TILE) {
      const int64_t nj = j0 + TILE <= n ? TILE : n - j0;
      const int from_gemm = s->d > 4;
      if (from_gemm &&
          (bs = cublasDgemm(s->blas, CUBLAS_OP_N, CUBLAS_OP_T, (int)ni, (int)nj, (int)s->d, &m2,
                            s->z + i0, (int)n, s->z + j0, (int)n, &zero, s->K, (int)ni)))
        return blas_fail(ctx, bs, "dgemm (cross products)");
      const int64_t cells = ni * nj;
      tile_kernel<<<blocks_for(cells), 256>>>(ni, nj, s->K, s->z, n, s->d, s->norm2, i0, j0,
                                              s->kind, s->s2, s->alpha, from_gemm);
      if ((bs = cublasDgemm(s->blas, CUBLAS_OP_N, CUBLAS_OP_N, (int)ni, (int)b, (int)nj, &one,
                            s->K, (int)ni, s->blk.V + j0, (int)n, j0 == 0 ? &zero : &one,
                            s->blk.Y + i0, (int)n)))
        return blas_fail(ctx, bs, "dgemm (tile times block)");
    }
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaSuccess) return cuda_fail(ctx, e, "kernel product");
    int st = sgp_poll_interrupt(ctx);
    if (st) return st;
    sgp_progress(ctx, "kernel product (GPU)", (double)(i0 + ni) / (double)n);
  }
  if (s->shift != 0.0)
    add_shift<<<blocks_for(n * b), 256>>>(n, b, s->shift, s->blk.V, s->blk.Y);
  cudaError_t e = cudaGetLastError();
  return e == cudaSuccess ? SGP_OK : cuda_fail(ctx, e, "kernel product");
}

static int cuda_dense_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx)
{
  cuda_dense *s = (cuda_dense *)op->state;
  int st = cuda_blocks_upload(ctx, &s->blk, s->n, V, Y);
  if (st || V.cols == 0) return st;
  if ((st = device_product(ctx, s, V.cols))) return st;
  return cuda_blocks_download(ctx, s->blk.Y, Y);
}

static int cuda_dense_diag(const sgp_op *op, sgp_mat d, sgp_ctx *ctx)
{
  const cuda_dense *s = (const cuda_dense *)op->state;
  if (d.rows != op->n) return sgp_fail(ctx, SGP_EDIM, "operator diag: wrong length");
  for (int64_t i = 0; i < op->n; i++) d.data[i] = s->s2 + s->shift;
  return SGP_OK;
}

static void free_state(cuda_dense *s)
{
  if (!s) return;
  cudaFree(s->z);
  cudaFree(s->norm2);
  cudaFree(s->K);
  cuda_blocks_free(&s->blk);
  if (s->blas) cublasDestroy(s->blas);
  free(s);
}

static void cuda_dense_destroy(sgp_op *op)
{
  free_state((cuda_dense *)op->state);
  op->state = NULL;
}

int cuda_op_dense_kernel(sgp_ctx *ctx, const sgp_kernel *k, const sgp_kprep *prep,
                         double shift, sgp_op *op)
{
  memset(op, 0, sizeof *op);
  double k0;
  if (!kernel_value(k->kind, k->outputscale, k->alpha, 0.0, &k0))
    return sgp_fail(ctx, SGP_EINVAL, "kernel: kind %d has no CUDA implementation (use "
                    "backend = \"cpu\")", (int)k->kind); /* the plugin links no core */
  cuda_dense *s = (cuda_dense *)calloc(1, sizeof *s);
  if (!s) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  s->kind = k->kind;
  s->s2 = k->outputscale;
  s->alpha = k->alpha;
  s->shift = shift;
  s->n = prep->n;
  s->d = prep->d;
  const int64_t t = s->n < TILE ? s->n : TILE;
  int st = SGP_OK;
  cudaError_t e = cudaMalloc((void **)&s->z, sizeof(double) * s->n * s->d);
  if (e == cudaSuccess) e = cudaMalloc((void **)&s->norm2, sizeof(double) * s->n);
  if (e == cudaSuccess) e = cudaMalloc((void **)&s->K, sizeof(double) * t * t);
  if (e == cudaSuccess)
    e = cudaMemcpy(s->z, prep->z, sizeof(double) * s->n * s->d, cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMemcpy(s->norm2, prep->norm2, sizeof(double) * s->n, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    st = cuda_fail(ctx, e, "setting up the kernel operator");
  } else {
    cublasStatus_t bs = cublasCreate(&s->blas);
    if (bs) st = blas_fail(ctx, bs, "cublasCreate");
  }
  if (st) {
    free_state(s);
    return st;
  }
  op->n = s->n;
  op->state = s;
  op->apply = cuda_dense_apply;
  op->diag = cuda_dense_diag;
  op->destroy = cuda_dense_destroy;
  return SGP_OK;
}
