// __sgp_info__.cc -- private oct-file behind scalegp_info.m: build information.
#include "sgp_octave.h"

DEFUN_DLD (__sgp_info__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{info} =} __sgp_info__ ()\n\
Private: build information of scalegp's C core as a struct with fields\n\
@code{version}, @code{fftw}, @code{openmp}, @code{max_threads},\n\
@code{cuda_built} and @code{cuda_devices}.\n\
\n\
Use @code{scalegp_info}, which adds Octave's BLAS and LAPACK.\n\
@seealso{scalegp_info}\n\
@end deftypefn")
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
%! s = __sgp_info__ ();
%! assert (ischar (s.version) && ! isempty (s.version));
%! assert (islogical (s.openmp) && islogical (s.cuda_built));
%! assert (s.max_threads >= 1);
%!error <Invalid call> __sgp_info__ (1)
*/
