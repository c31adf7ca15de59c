// verb_info.cc -- __sgp_call__ ("info") behind scalegp_info.m: build information.
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"

// Usage: info = __sgp_call__ ("info")
// Private: build information of scalegp's C core as a struct with fields
// version, fftw, openmp, max_threads,
// cuda_built and cuda_devices.
//
// Use scalegp_info, which adds Octave's BLAS and LAPACK.
// See scalegp_info.
octave_value_list
sgp_verbs::info (const octave_value_list& args, int)
{
  if (args.length () != 0)
    print_usage ();

  sgp_build_info info;
  sgp_info (&info);

  octave_scalar_map m;
  m.assign ("version", std::string (info.version));
  m.assign ("fftw", std::string (info.fftw ? info.fftw : "unknown"));
  m.assign ("openmp", info.openmp != 0);
  m.assign ("max_threads", static_cast<double> (info.max_threads));
  m.assign ("cuda_built", info.cuda_built != 0);
  m.assign ("cuda_devices", static_cast<double> (info.cuda_devices));
  return ovl (m);
}

/*
%!test
%! s = __sgp_call__ ("info");
%! assert (ischar (s.version) && ! isempty (s.version));
%! assert (islogical (s.openmp) && islogical (s.cuda_built));
%! assert (s.max_threads >= 1);
%!error <Invalid call> __sgp_call__ ("info", 1)
*/
