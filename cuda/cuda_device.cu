/* cuda_device.cu -- device discovery for the CUDA backend. A machine without a
 * driver or a device reports 0 devices, never an error: the CPU path is used. */
#include <cuda_runtime.h>

extern "C" {
#include "sgp_internal.h"
}

extern "C" int sgp_cuda_built(void) { return 1; }

extern "C" int sgp_cuda_device_count(void)
{
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    (void)cudaGetLastError(); /* clear the sticky "no driver" error */
    return 0;
  }
  return count;
}
