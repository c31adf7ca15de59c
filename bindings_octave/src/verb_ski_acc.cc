// verb_ski_acc.cc -- __sgp_call__ ("ski_acc", ...) behind ski_stats over chunk
// sources: a running accumulator of the statistics (sgp_ski_stats_acc) that
// every block of a group of chunks is added to in place, kept in this process
// under a numeric handle (R keeps it behind an external pointer).
#include "sgp_octave_verbs.h"
#include "sgp_octave_ski.h"

#include <map>

namespace
{
  struct acc_entry
  {
    sgp_ski_stats_acc *acc;
    int nthreads;
  };

  std::map<double, acc_entry> accumulators;
  double next_handle = 1;

  acc_entry& find (const octave_value& h)
  {
    auto it = accumulators.find (h.is_real_scalar () ? h.double_value () : -1);
    if (it == accumulators.end ())
      error ("ski_stats: the accumulator is gone (freed)");
    return it->second;
  }

  // The options and the grid as ski_stats reads them.
  void setup (sgp_octave::context& ctx, const octave_value_list& args, int first,
              sgp_ski_stats_opts& o, sgp_octave::option_store& keep, sgp_ski_grid_data& gd)
  {
    sgp_octave::verb_options (ctx, "ski_stats", sgp_ski_stats_opts_default, args, first, o, keep);
    const sgp_value gv = sgp_octave::fit_value (args(first - 1), keep);
    ctx.check (sgp_ski_grid_read (ctx.get (), &gv, "grid", ".", &gd));
    o.ski.interpolation = gd.interpolation;
    o.ski.grid_bounds = gd.bounds;
    int64_t m = 0, S = 0;
    ctx.check (sgp_ski_stats_shape (ctx.get (), &gd.grid, o.ski.interpolation, &m, &S));
  }
}

// Usage: h = __sgp_call__ ("ski_acc", "new", grid, name, value, ...)
//        n = __sgp_call__ ("ski_acc", "add", h, x, y, first_row)
//        s = __sgp_call__ ("ski_acc", "stats", h, grid, name, value, ...)
//        __sgp_call__ ("ski_acc", "free", h)
// Private: "new" makes an accumulator for ski_stats' grid and options (its
// errors); "add" adds the rows of x, y (checked by the caller) keyed from
// first_row and gives the points accumulated so far; "stats" gives the
// statistics as ski_stats' struct (grid and options as given to "new");
// "free" frees it (a freed or unknown handle: nothing).
octave_value_list
sgp_verbs::ski_acc (const octave_value_list& args, int)
{
  if (args.length () < 2 || ! args(0).is_string ())
    print_usage ();
  const std::string cmd = args(0).string_value (), fn = "ski_stats";
  sgp_octave::context ctx (fn, 0);
  if (cmd == "new")
    {
      sgp_ski_stats_opts o;
      sgp_octave::option_store keep;
      sgp_ski_grid_data gd;
      setup (ctx, args, 2, o, keep, gd);
      acc_entry e = {nullptr, ctx.get ()->nthreads};
      ctx.check (sgp_ski_stats_acc_create (ctx.get (), &gd.grid, &o.ski, &e.acc));
      const double h = next_handle++;
      accumulators[h] = e;
      return ovl (h);
    }
  if (cmd == "add")
    {
      if (args.length () != 5)
        print_usage ();
      acc_entry& e = find (args(1));
      const Matrix x = sgp_octave::matrix_arg (args(2), fn, "x");
      const Matrix y = sgp_octave::matrix_arg (args(3), fn, "y");
      ctx.get ()->nthreads = e.nthreads;
      int64_t n = 0;
      ctx.check (sgp_ski_stats_acc_add (ctx.get (), e.acc, sgp_octave::cview (x),
                                        sgp_octave::cview (y),
                                        static_cast<int64_t> (args(4).double_value ()), &n));
      return ovl (static_cast<double> (n));
    }
  if (cmd == "stats")
    {
      acc_entry& e = find (args(1));
      sgp_ski_stats_opts o;
      sgp_octave::option_store keep;
      sgp_ski_grid_data gd;
      setup (ctx, args, 3, o, keep, gd);
      ctx.get ()->nthreads = e.nthreads;
      sgp_ski_stats_data d;
      ctx.check (sgp_ski_stats_acc_export (ctx.get (), e.acc, &d));
      return ovl (sgp_octave::ski_stats_map (d, gd.bounds));
    }
  if (cmd == "free")
    {
      auto it = accumulators.find (args(1).is_real_scalar () ? args(1).double_value () : -1);
      if (it != accumulators.end ())
        {
          sgp_ski_stats_acc_free (it->second.acc);
          accumulators.erase (it);
        }
      return ovl ();
    }
  print_usage ();
  return ovl ();
}

/*
%!shared g
%! g = struct ("size", 10, "bounds", [-1 3], "interpolation", "cubic");
%!test
%! ## blocks added in place give the statistics of all rows in memory, to the bit
%! x = linspace (-0.5, 2.5, 30)';  y = sin (x);   # 30 < 4 m: the tap pass in memory too
%! h = __sgp_call__ ("ski_acc", "new", g, "probes", 2);
%! n1 = __sgp_call__ ("ski_acc", "add", h, x(1:7), y(1:7), 0);
%! n2 = __sgp_call__ ("ski_acc", "add", h, x(8:end), y(8:end), 7);
%! s = __sgp_call__ ("ski_acc", "stats", h, g, "probes", 2);
%! __sgp_call__ ("ski_acc", "free", h);
%! one = __sgp_call__ ("ski_stats", x, y, g, "probes", 2);
%! assert ([n1, n2], [7, 30]);
%! assert (s, one);
%!error <outside> h = __sgp_call__ ("ski_acc", "new", g); unwind_protect __sgp_call__ ("ski_acc", "add", h, 5, 1, 0); unwind_protect_cleanup __sgp_call__ ("ski_acc", "free", h); end_unwind_protect
%!error <accumulator is gone> __sgp_call__ ("ski_acc", "add", -7, 1, 1, 0)
%!error <Invalid call> __sgp_call__ ("ski_acc", "what", 1)
*/
