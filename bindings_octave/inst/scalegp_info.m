## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn  {} {} scalegp_info ()
## @deftypefnx {} {@var{info} =} scalegp_info ()
## What this scalegp build offers.
##
## Reports the version of scalegp's C core, the BLAS and LAPACK libraries
## Octave (and so scalegp) uses, the FFTW version, OpenMP threads, and whether
## the CUDA backend was built and finds a device.
##
## With an output argument, returns a struct with the fields
##
## @table @code
## @item version
## scalegp's version (string).
## @item blas
## @itemx lapack
## Octave's BLAS and LAPACK (strings; @qcode{"unknown"} when Octave cannot
## tell).
## @item fftw
## FFTW's version string.
## @item openmp
## True when the core was compiled with OpenMP.
## @item max_threads
## OpenMP's default thread count (1 without OpenMP); the @qcode{"threads"}
## option of the scalegp functions overrides it per call.
## @item cuda_built
## True when the CUDA backend was compiled in.
## @item cuda_devices
## CUDA devices found at run time (0 when not built).
## @end table
##
## The field names are those of the R function of the same name.  Without an
## output argument, prints a short summary instead.
##
## @example
## @group
## scalegp_info ()
## s = scalegp_info ();
## s.openmp
## @end group
## @end example
## @seealso{gp_kernel}
## @end deftypefn

function varargout = scalegp_info ()

  core = __sgp_call__ ("info");
  info = struct ("version", core.version,
                 "blas", library_version ("-blas"),
                 "lapack", library_version ("-lapack"),
                 "fftw", core.fftw,
                 "openmp", core.openmp,
                 "max_threads", core.max_threads,
                 "cuda_built", core.cuda_built,
                 "cuda_devices", core.cuda_devices);

  if (nargout > 0)
    varargout{1} = info;
  else
    printf ("scalegp %s\n", info.version);
    printf ("  BLAS:     %s\n", info.blas);
    printf ("  LAPACK:   %s\n", info.lapack);
    printf ("  FFTW:     %s\n", info.fftw);
    if (info.openmp)
      printf ("  OpenMP:   %d threads\n", info.max_threads);
    else
      printf ("  OpenMP:   not available\n");
    endif
    if (info.cuda_built)
      printf ("  CUDA:     built, %d device(s)\n", info.cuda_devices);
    else
      printf ("  CUDA:     not built\n");
    endif
  endif

endfunction

## version ("-blas") / ("-lapack") exist in Octave >= 7; older versions say "unknown".
function s = library_version (opt)
  s = "unknown";
  try
    v = version (opt);
    if (ischar (v) && ! isempty (v))
      s = strtrim (v);
    endif
  catch
  end_try_catch
endfunction


%!test
%! s = scalegp_info ();
%! assert (fieldnames (s), {"version"; "blas"; "lapack"; "fftw"; "openmp";
%!                          "max_threads"; "cuda_built"; "cuda_devices"});
%! assert (ischar (s.version) && ! isempty (s.version));
%! assert (ischar (s.blas) && ischar (s.lapack));
%! assert (! isempty (strfind (lower (s.fftw), "fftw")));
%! assert (islogical (s.openmp) && islogical (s.cuda_built));
%! assert (s.max_threads >= 1);
%! assert (s.cuda_devices >= 0);

%!test
%! out = evalc ("scalegp_info ()");
%! assert (! isempty (strfind (out, "scalegp ")));
%! assert (! isempty (strfind (out, "OpenMP:")));
%! assert (isempty (strfind (out, "ans")));

%!error <called with too many inputs> scalegp_info (1)
