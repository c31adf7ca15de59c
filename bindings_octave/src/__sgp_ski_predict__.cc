// __sgp_ski_predict__.cc -- private oct-file behind scalegp_predict for
// ski_gsgp fits: mean and latent variance at test points.
#include "sgp_octave_ski.h"

#include <climits>
#include <cstdio>
#include <cstring>

DEFUN_DLD (__sgp_ski_predict__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {[@var{mean}, @var{var}, @var{warning}] =} __sgp_ski_predict__ (@var{stats}, @var{opts}, @var{weights}, @var{love_Ft}, @var{love_c0}, @var{xtest}, @var{nthreads}, @var{fname}, @var{argname})\n\
Private: predictions of a ski_gsgp fit from its plain data.  @var{var} is\n\
empty when @code{@var{opts}.variance} is 0 (none); @var{warning} is the\n\
core's words when exact variances did not all converge (else empty).  Errors name the\n\
function @var{fname} and the test inputs @var{argname} (optional;\n\
default ski_gsgp's xtest).\n\
@seealso{ski_gsgp, scalegp_predict}\n\
@end deftypefn")
{
  if (args.length () != 7 && args.length () != 9)
    print_usage ();
  const bool named = args.length () == 9;
  const std::string fn = named ? args(7).string_value () : "ski_gsgp";
  const std::string xarg = named ? args(8).string_value () : "xtest";
  const long nthreads = sgp_octave::integer_arg (args(6), fn, "threads", 0, INT_MAX);
  sgp_octave::context ctx (fn, static_cast<int> (nthreads));
  sgp_octave::ski_stats_view sv;
  sgp_octave::ski_stats_arg (ctx, args(0), sv);
  sgp_octave::kernel_spec ks;
  sgp_ski_opts o;
  sgp_octave::ski_opts_arg (ctx, args(1), ks, &o);
  const Matrix weights = sgp_octave::matrix_arg (args(2), fn, "weights");
  const Matrix Ft = sgp_octave::matrix_arg (args(3), fn, "love_Ft");
  const Matrix c0 = sgp_octave::matrix_arg (args(4), fn, "love_c0");
  const Matrix xs = sgp_octave::matrix_arg (args(5), fn, xarg.c_str ());
  if (weights.numel () != sv.d.m)
    error ("%s: 'weights' do not match the grid", fn.c_str ());
  const bool lanczos = o.variance == SGP_SKI_VARIANCE_LANCZOS;
  if (lanczos && (Ft.cols () != sv.d.m || c0.numel () != sv.d.m))
    error ("%s: the LOVE factor does not match the grid", fn.c_str ());

  const bool want_var = o.variance != SGP_SKI_VARIANCE_NONE;
  Matrix mean (xs.rows (), 1), var (want_var ? xs.rows () : 0, want_var ? 1 : 0);
  sgp_ski_predict_info info;
  // ---- compute (no Octave error inside)
  const int st = sgp_ski_predict (ctx.get (), &sv.d, &o, weights.data (),
                                  lanczos ? Ft.data () : nullptr,
                                  lanczos ? c0.data () : nullptr,
                                  lanczos ? Ft.rows () : 0, sgp_octave::cview (xs),
                                  mean.fortran_vec (), want_var ? var.fortran_vec () : nullptr,
                                  &info);
  // the core names the test inputs `xtest`: say the caller's name instead
  if (st && xarg != "xtest" && std::strncmp (ctx.get ()->errmsg, "xtest:", 6) == 0)
    {
      char *msg = ctx.get ()->errmsg;
      const std::string rest (msg + 6);
      std::snprintf (msg, sizeof ctx.get ()->errmsg, "%s:%s", xarg.c_str (), rest.c_str ());
    }
  ctx.check (st);
  char warn[512];
  sgp_ski_predict_warning (fn.c_str (), &info, warn, sizeof warn);
  return ovl (mean, var, std::string (warn));
}

/*
%!error <Invalid call> __sgp_ski_predict__ (1)
*/
