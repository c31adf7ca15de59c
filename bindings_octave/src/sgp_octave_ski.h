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
    return sgp_ski_grid_from_range (ctx.get (), cview (bounds), 0, &o, g);
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
}

#endif
