/* cuda_ski_ops.cu -- the two operators of a ski_gsgp solver iteration on the
 * GPU: K_G by cuFFT from the circulant embedding the CPU operator built (the
 * same eigenvalues, so both backends multiply by the same matrix), and
 * B = W'W from the stencil statistics. Both keep their data on the device and
 * move only the n-by-b blocks. */
#include <cufft.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_common.cuh"

static int fft_fail(sgp_ctx *ctx, cufftResult r, const char *what)
{
  return sgp_fail(ctx, SGP_ECUDA, "cufft: %s failed (status %d)", what, (int)r);
}

/* ------------------------------------------------------------ K_G by cuFFT */

typedef struct {
  sgp_ski_circulant c;   /* sizes; c.lambda is the device copy */
  double *lambda, *re;
  cufftDoubleComplex *cx;
  cuda_blocks blk;       /* m-by-b blocks V and Y */
  int64_t cap;           /* columns the FFT buffers and plans hold */
  cufftHandle fwd, bwd;
  int planned;
  const sgp_op *host;    /* the CPU operator (diag) */
  sgp_op *owned;         /* host, when this operator owns it */
} cuda_grid;

/* Grid index g (first dimension fastest) <-> its place in the L-array. */
__device__ static int64_t embed_offset(int64_t g, int d, const int64_t *m, const int64_t *L)
{
  int64_t off = 0, stride = 1;
  for (int j = 0; j < d; j++) {
    off += (g % m[j]) * stride;
    g /= m[j];
    stride *= L[j];
  }
  return off;
}

typedef struct { int64_t m[SGP_SKI_MAX_D], L[SGP_SKI_MAX_D]; } dims_t;

__global__ static void pad_block(int64_t mtot, int64_t Ltot, int64_t b, int d, dims_t dims,
                                 const double *v, double *re)
{
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= mtot * b) return;
  const int64_t g = idx % mtot, col = idx / mtot;
  re[col * Ltot + embed_offset(g, d, dims.m, dims.L)] = v[idx];
}

__global__ static void crop_block(int64_t mtot, int64_t Ltot, int64_t b, int d, dims_t dims,
                                  const double *re, double *y)
{
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= mtot * b) return;
  const int64_t g = idx % mtot, col = idx / mtot;
  y[idx] = re[col * Ltot + embed_offset(g, d, dims.m, dims.L)];
}

__global__ static void scale_spectrum(int64_t Lctot, int64_t b, const double *lambda,
                                      cufftDoubleComplex *cx)
{
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= Lctot * b) return;
  const double l = lambda[idx % Lctot];
  cx[idx].x *= l;
  cx[idx].y *= l;
}

static void grid_release(cuda_grid *s)
{
  cudaFree(s->re);
  cudaFree(s->cx);
  if (s->planned) {
    cufftDestroy(s->fwd);
    cufftDestroy(s->bwd);
  }
  s->re = NULL;
  s->cx = NULL;
  s->planned = 0;
  s->cap = 0;
}

/* Buffers and batched plans for b columns (made again only when b grows). */
static int grid_reserve(sgp_ctx *ctx, cuda_grid *s, int64_t b)
{
  if (b <= s->cap) return SGP_OK;
  grid_release(s);
  const sgp_ski_circulant *c = &s->c;
  cudaError_t e = cudaMalloc((void **)&s->re, sizeof(double) * c->Ltot * b);
  if (e == cudaSuccess) e = cudaMalloc((void **)&s->cx, sizeof(cufftDoubleComplex) * c->Lctot * b);
  if (e != cudaSuccess) return cuda_fail(ctx, e, "allocating the FFT buffers");
  long long n[SGP_SKI_MAX_D]; /* cuFFT is row-major: dimension 1 (fastest) goes last */
  for (int j = 0; j < c->d; j++) n[j] = c->L[c->d - 1 - j];
  size_t work = 0;
  cufftResult r = cufftCreate(&s->fwd);
  if (r == CUFFT_SUCCESS) r = cufftCreate(&s->bwd);
  if (r == CUFFT_SUCCESS)
    r = cufftMakePlanMany64(s->fwd, c->d, n, NULL, 1, c->Ltot, NULL, 1, c->Lctot, CUFFT_D2Z, b,
                            &work);
  if (r == CUFFT_SUCCESS)
    r = cufftMakePlanMany64(s->bwd, c->d, n, NULL, 1, c->Lctot, NULL, 1, c->Ltot, CUFFT_Z2D, b,
                            &work);
  if (r != CUFFT_SUCCESS) return fft_fail(ctx, r, "planning");
  s->planned = 1;
  s->cap = b;
  return SGP_OK;
}

static int grid_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx)
{
  cuda_grid *s = (cuda_grid *)op->state;
  const sgp_ski_circulant *c = &s->c;
  const int64_t b = V.cols;
  int st = cuda_blocks_upload(ctx, &s->blk, c->mtot, V, Y);
  if (st || b == 0) return st;
  if ((st = sgp_poll_interrupt(ctx))) return st;
  if ((st = grid_reserve(ctx, s, b))) return st;
  dims_t dims;
  memcpy(dims.m, c->m, sizeof dims.m);
  memcpy(dims.L, c->L, sizeof dims.L);
  cudaMemset(s->re, 0, sizeof(double) * c->Ltot * b);
  pad_block<<<blocks_for(c->mtot * b), 256>>>(c->mtot, c->Ltot, b, c->d, dims, s->blk.V, s->re);
  cufftResult r = cufftExecD2Z(s->fwd, s->re, s->cx);
  if (r != CUFFT_SUCCESS) return fft_fail(ctx, r, "forward transform");
  scale_spectrum<<<blocks_for(c->Lctot * b), 256>>>(c->Lctot, b, s->lambda, s->cx);
  if ((r = cufftExecZ2D(s->bwd, s->cx, s->re)) != CUFFT_SUCCESS)
    return fft_fail(ctx, r, "backward transform");
  crop_block<<<blocks_for(c->mtot * b), 256>>>(c->mtot, c->Ltot, b, c->d, dims, s->re, s->blk.Y);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return cuda_fail(ctx, e, "grid kernel product");
  return cuda_blocks_download(ctx, s->blk.Y, Y);
}

static int grid_diag(const sgp_op *op, sgp_mat d, sgp_ctx *ctx)
{
  const cuda_grid *s = (const cuda_grid *)op->state;
  return s->host->diag(s->host, d, ctx); /* a constant: no need for the device */
}

static void grid_destroy(sgp_op *op)
{
  cuda_grid *s = (cuda_grid *)op->state;
  if (!s) return;
  grid_release(s);
  cuda_blocks_free(&s->blk);
  cudaFree(s->lambda);
  if (s->owned) {
    sgp_op_destroy(s->owned);
    free(s->owned);
  }
  free(s);
  op->state = NULL;
}

int cuda_op_ski_grid(sgp_ctx *ctx, const sgp_op *kg, sgp_op *op)
{
  memset(op, 0, sizeof *op);
  sgp_ski_circulant c;
  if (!sgp_ski_grid_op_circulant(kg, &c))
    return sgp_fail(ctx, SGP_EINVAL, "kg: the GPU grid operator needs the circulant path");
  cuda_grid *s = (cuda_grid *)calloc(1, sizeof *s);
  if (!s) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  s->c = c;
  s->host = kg;
  cudaError_t e = cudaMalloc((void **)&s->lambda, sizeof(double) * c.Lctot);
  if (e == cudaSuccess)
    e = cudaMemcpy(s->lambda, c.lambda, sizeof(double) * c.Lctot, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    cudaFree(s->lambda);
    free(s);
    return cuda_fail(ctx, e, "copying the circulant eigenvalues");
  }
  s->c.lambda = s->lambda;
  op->n = c.mtot;
  op->state = s;
  op->apply = grid_apply;
  op->diag = grid_diag;
  op->destroy = grid_destroy;
  return SGP_OK;
}

int cuda_op_ski_grid_take(sgp_ctx *ctx, sgp_op *kg, sgp_op *op)
{
  sgp_op *host = (sgp_op *)malloc(sizeof *host);
  if (!host) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  *host = *kg;
  const int st = cuda_op_ski_grid(ctx, host, op);
  if (st) {
    free(host);
    return st;
  }
  ((cuda_grid *)op->state)->owned = host;
  memset(kg, 0, sizeof *kg);
  return SGP_OK;
}

/* ------------------------------------------------------------ B = W'W stencil */

typedef struct {
  int64_t m, S;
  double *D;             /* device: S-by-m stencil */
  cuda_blocks blk;       /* device: m-by-b blocks V and Y */
  int64_t *delta;        /* device: S flattened offsets */
  const sgp_ski_stats *host;
} cuda_stencil;

/* (B v)[g] = sum_s D[s, g] v[g + delta_s]; D is 0 wherever g + o leaves the grid,
 * so only the flat index needs a bounds check. Terms in the CPU's order. */
__global__ static void stencil_kernel(int64_t m, int64_t S, int64_t b, const double *D,
                                      const int64_t *delta, const double *v, double *y)
{
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= m * b) return;
  const int64_t g = idx % m, col = idx / m;
  const double *vc = v + col * m;
  double acc = 0.0;
  for (int64_t s = 0; s < S; s++) {
    const int64_t j = g + delta[s];
    if (j >= 0 && j < m) acc += D[s * m + g] * vc[j];
  }
  y[idx] = acc;
}

static int stencil_apply(const sgp_op *op, sgp_cmat V, sgp_mat Y, sgp_ctx *ctx)
{
  cuda_stencil *s = (cuda_stencil *)op->state;
  int st = cuda_blocks_upload(ctx, &s->blk, s->m, V, Y);
  if (st || V.cols == 0) return st;
  stencil_kernel<<<blocks_for(s->m * V.cols), 256>>>(s->m, s->S, V.cols, s->D, s->delta,
                                                       s->blk.V, s->blk.Y);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return cuda_fail(ctx, e, "stencil product");
  return cuda_blocks_download(ctx, s->blk.Y, Y);
}

static int stencil_diag(const sgp_op *op, sgp_mat d, sgp_ctx *ctx)
{
  const cuda_stencil *s = (const cuda_stencil *)op->state;
  sgp_op cpu;
  const sgp_backend backend = ctx->backend; /* the CPU operator, not this one again */
  ctx->backend = SGP_BACKEND_CPU;
  int st = sgp_ski_stats_op(ctx, s->host, &cpu);
  ctx->backend = backend;
  if (!st) st = cpu.diag(&cpu, d, ctx);
  sgp_op_destroy(&cpu);
  return st;
}

static void stencil_destroy(sgp_op *op)
{
  cuda_stencil *s = (cuda_stencil *)op->state;
  if (!s) return;
  cudaFree(s->D);
  cudaFree(s->delta);
  cuda_blocks_free(&s->blk);
  free(s);
  op->state = NULL;
}

int cuda_op_ski_stencil(sgp_ctx *ctx, const sgp_ski_stats *st, sgp_op *op)
{
  memset(op, 0, sizeof *op);
  cuda_stencil *s = (cuda_stencil *)calloc(1, sizeof *s);
  if (!s) return sgp_fail(ctx, SGP_ENOMEM, "out of memory");
  s->m = st->m;
  s->S = st->S;
  s->host = st;
  cudaError_t e = cudaMalloc((void **)&s->D, sizeof(double) * st->S * st->m);
  if (e == cudaSuccess) e = cudaMalloc((void **)&s->delta, sizeof(int64_t) * st->S);
  if (e == cudaSuccess)
    e = cudaMemcpy(s->D, st->D, sizeof(double) * st->S * st->m, cudaMemcpyHostToDevice);
  if (e == cudaSuccess)
    e = cudaMemcpy(s->delta, st->delta, sizeof(int64_t) * st->S, cudaMemcpyHostToDevice);
  if (e != cudaSuccess) {
    op->state = s;
    stencil_destroy(op);
    return cuda_fail(ctx, e, "copying the stencil statistics");
  }
  op->n = st->m;
  op->state = s;
  op->apply = stencil_apply;
  op->diag = stencil_diag;
  op->destroy = stencil_destroy;
  return SGP_OK;
}
