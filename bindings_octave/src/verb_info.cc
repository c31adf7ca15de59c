// verb_info.cc -- __sgp_call__ ("info") behind scalegp_info.m: build information.
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"

// Usage: info = __sgp_call__ ("info")
// Private: build information of scalegp's C core as the core writes it
// (sgp_info_plain): a struct with fields version, fftw, openmp, max_threads,
// cuda_built and cuda_devices.
//
// Use scalegp_info, which adds Octave's BLAS and LAPACK.
// See scalegp_info.
octave_value_list
sgp_verbs::info (const octave_value_list& args, int)
{
  if (args.length () != 0)
    print_usage ();

  return ovl (sgp_octave::build_map ([] (sgp_value_arena *a) { return sgp_info_plain (a); }));
}

/*
%!test
%! s = __sgp_call__ ("info");
%! assert (ischar (s.version) && ! isempty (s.version));
%! assert (islogical (s.openmp) && islogical (s.cuda_built));
%! assert (s.max_threads >= 1);
%!error <Invalid call> __sgp_call__ ("info", 1)
*/
