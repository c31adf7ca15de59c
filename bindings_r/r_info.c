/* r_info.c -- scalegp_info(): what was built and what this machine offers. */
#include "r_shim.h"

SEXP sgp_info_r(void)
{
  sgp_build_info info;
  sgp_info(&info);
  const char *names[] = {"version", "fftw", "openmp", "max_threads", "cuda_built",
                         "cuda_devices"};
  SEXP values[6];
  values[0] = PROTECT(Rf_mkString(info.version));
  values[1] = PROTECT(Rf_mkString(info.fftw));
  values[2] = PROTECT(Rf_ScalarLogical(info.openmp));
  values[3] = PROTECT(Rf_ScalarInteger(info.max_threads));
  values[4] = PROTECT(Rf_ScalarLogical(info.cuda_built));
  values[5] = PROTECT(Rf_ScalarInteger(info.cuda_devices));
  SEXP out = sgp_r_named_list(6, names, values);
  UNPROTECT(6);
  return out;
}
