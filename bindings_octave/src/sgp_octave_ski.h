// sgp_octave_ski.h -- glue shared by the ski_gsgp oct-files: views of the
// plain-data statistics struct (the fields of ski_stats.m) and the options
// struct the .m fronts build. The .m fronts check the structure and the core
// checks the values (errors name `stats`).
#ifndef SGP_OCTAVE_SKI_H
#define SGP_OCTAVE_SKI_H

#include <climits>
#include <cstring>
#include <string>

#include "sgp_octave.h"

namespace sgp_octave
{
  inline octave_value field (const octave_scalar_map& s, const char *name,
                             const std::string& fname)
  {
    if (! s.isfield (name))
      error ("%s: 'stats' has no field '%s'", fname.c_str (), name);
    return s.getfield (name);
  }

  // Grid from size (d values) and bounds (d-by-2): both ends are grid points.
  // interp: that of the statistics on it (the core checks that they fit).
  inline int ski_grid_of (context& ctx, const Matrix& size, const Matrix& bounds,
                          sgp_ski_interpolation interp, sgp_ski_grid *g)
  {
    sgp_ski_opts o;
    const octave_idx_type d = size.numel ();
    if (d < 1 || d > SGP_SKI_MAX_D || bounds.rows () != d || bounds.cols () != 2)
      error ("%s: the grid needs 1 to %d dimensions and d-by-2 bounds", ctx.fname ().c_str (),
             SGP_SKI_MAX_D);
    sgp_ski_opts_default (&o);
    o.interpolation = interp;
    for (octave_idx_type j = 0; j < d; j++)
      {
        if (! (size(j) >= 1 && size(j) <= INT_MAX))
          error ("%s: 'grid_size' must be whole numbers in 1..%d", ctx.fname ().c_str (),
                 INT_MAX);
        o.grid_size[j] = static_cast<int64_t> (size(j));
      }
    o.grid_bounds = bounds.data ();
    return sgp_ski_make_grid (ctx.get (), cview (bounds), 0, &o, g);
  }

  // The core's statistics (sgp_ski_stats_plain) as ski_stats' struct: class
  // "ski_stats", then their fields (shared, not copied).
  inline octave_scalar_map ski_stats_class (const octave_scalar_map& f)
  {
    octave_scalar_map s;
    s.assign ("class", std::string ("ski_stats"));
    const string_vector keys = f.fieldnames ();
    for (octave_idx_type i = 0; i < keys.numel (); i++)
      s.assign (keys(i), f.getfield (keys(i)));
    return s;
  }

  // SKI statistics as ski_stats' struct (user_bounds: the grid's given bounds or NULL).
  inline octave_scalar_map ski_stats_map (const sgp_ski_stats_data& d,
                                          const double *user_bounds)
  {
    return ski_stats_class (build_map ([&] (sgp_value_arena *a) {
      return sgp_ski_stats_plain (&d, user_bounds, a);
    }));
  }

  inline sgp_ski_interpolation ski_interp_of (const std::string& name)
  {
    return name == "linear" ? SGP_SKI_LINEAR : SGP_SKI_CUBIC;
  }

  // Views of a stats struct, read and checked by the core (sgp_ski_stats_check:
  // errors name arg); keep holds the copies the views point into.
  struct ski_stats_view
  {
    option_store keep;
    sgp_ski_stats_data d;
  };

  inline void ski_stats_arg (context& ctx, const octave_value& v, ski_stats_view& sv,
                             const char *arg = "stats")
  {
    const sgp_value s = fit_value (v, sv.keep);
    ctx.check (sgp_ski_stats_check (ctx.get (), &s, arg, ".", &sv.d));
  }

  // Options struct of the .m fronts (codes: method 0 gsgp / 1 ski; variance
  // 0 none / 1 lanczos / 2 exact; bounds_policy 0 error, 1 truncate, 2 clamp,
  // 3 drop).
  inline void ski_opts_arg (context& ctx, const octave_value& v, kernel_spec& ks,
                            sgp_ski_opts *o)
  {
    const std::string& fn = ctx.fname ();
    if (! v.isstruct () || v.numel () != 1)
      error ("%s: internal: options must be a struct", fn.c_str ());
    const octave_scalar_map s = v.scalar_map_value ();
    auto num = [&] (const char *name) { return scalar_arg (field (s, name, fn), fn, name); };
    sgp_ski_opts_default (o);
    // backend goes to the context like gp_laplace's ("cuda" must be available)
    if (s.isfield ("backend"))
      {
        const std::string b = string_arg (s.getfield ("backend"), fn, "backend");
        ctx.get ()->backend = b == "cuda" ? SGP_BACKEND_CUDA
                              : b == "cpu" ? SGP_BACKEND_CPU : SGP_BACKEND_AUTO;
        if (ctx.get ()->backend == SGP_BACKEND_CUDA && ! sgp_backend_available (SGP_BACKEND_CUDA))
          error ("%s: backend: \"cuda\" is not available (not built or no device); use \"cpu\"",
                 fn.c_str ());
      }
    kernel_arg (ctx, field (s, "kernel", fn), field (s, "lengthscale", fn),
                field (s, "outputscale", fn), ks);
    o->kernel = ks.k;
    o->noise = num ("noise");
    // the fit's prior mean (none before fits had one)
    o->mean = s.isfield ("mean") ? num ("mean") : 0.0;
    o->method = static_cast<sgp_ski_method> (static_cast<int> (num ("method")));
    o->tol = num ("tol");
    o->max_iter = static_cast<int64_t> (num ("max_iter"));
    o->variance = static_cast<sgp_ski_variance> (static_cast<int> (num ("variance")));
    o->rank = static_cast<int64_t> (num ("rank"));
    o->loglik = num ("loglik") != 0;
    o->slq_max_iter = static_cast<int64_t> (num ("slq_max_iter"));
    if (s.isfield ("precond_rank"))  // fits only; predict has none
      o->precond_rank = static_cast<int64_t> (num ("precond_rank"));
    o->bounds_policy = static_cast<sgp_ski_bounds_policy> (static_cast<int> (num ("bounds_policy")));
  }
}

#endif
