// sgp_octave.cc -- shared glue of the scalegp oct-files (see sgp_octave.h).
#include "sgp_octave.h"

#include <chrono>
#include <climits>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>

#include <octave/quit.h>

namespace sgp_octave
{
  static double
  wall_seconds (void)
  {
    using namespace std::chrono;
    return duration<double> (steady_clock::now ().time_since_epoch ()).count ();
  }

  // ------------------------------------------------------------ context

  context::context (const std::string& fname, int nthreads, bool verbose,
                    long interrupt_after)
    : m_fname (fname), m_interrupt_after (interrupt_after), m_polls (0),
      m_simulated (false), m_progress_shown (false),
      m_last_progress (wall_seconds ())
  {
    sgp_ctx_init (&m_ctx);
    m_ctx.print = print_hook;
    m_ctx.interrupt = interrupt_hook;
    m_ctx.progress = progress_hook;
    m_ctx.user_data = this;
    m_ctx.verbose = verbose ? 1 : 0;
    // the core's rule for `threads` (0..SGP_MAX_THREADS) and its message
    check (sgp_ctx_set_threads (&m_ctx, nthreads > 0 ? nthreads : 0));
    check (sgp_ctx_test_hook (&m_ctx, "interrupt_after", interrupt_after));
  }

  void
  context::print_hook (void *, const char *msg)
  {
    octave_stdout << msg << std::endl;
  }

  // Only peeks at the flag Octave's signal handling sets; never handles the
  // signal here (that may throw), so the core unwinds normally.
  int
  context::interrupt_hook (void *ud)
  {
    context *c = static_cast<context *> (ud);
    const long poll = c->m_polls++;
    if (c->m_interrupt_after >= 0 && poll >= c->m_interrupt_after)
      {
        c->m_simulated = true;
        return 1;
      }
    // An interrupt only: octave_signal_caught is also set by other signals that
    // Octave handles, e.g. SIGCHLD when a worker process of ski_stats ends.
    return octave_signal_caught && octave_interrupt_state > 0 ? 1 : 0;
  }

  // At most one line a second; a task that ends within its first second
  // prints nothing, one that printed progress also prints its 100% line.
  void
  context::progress_hook (void *ud, const char *task, double fraction)
  {
    context *c = static_cast<context *> (ud);
    if (! c->m_ctx.verbose)
      return;
    const double now = wall_seconds ();
    if (fraction >= 1.0)
      {
        if (! c->m_progress_shown)
          return;
        c->m_progress_shown = false;
      }
    else if (now - c->m_last_progress < 1.0)
      return;
    else
      c->m_progress_shown = true;
    c->m_last_progress = now;
    octave_stdout << task << ": " << static_cast<int> (100.0 * fraction + 0.5)
                  << "%" << std::endl;
  }

  static const char *
  error_id (int status)
  {
    switch (status)
      {
      case SGP_EINVAL: return "scalegp:invalid";
      case SGP_EDIM: return "scalegp:dimension";
      case SGP_ENOMEM: return "scalegp:nomem";
      case SGP_ELAPACK: return "scalegp:lapack";
      case SGP_ENOTPD: return "scalegp:notpd";
      case SGP_EINTERRUPT: return "scalegp:interrupted";
      case SGP_ECUDA: return "scalegp:cuda";
      case SGP_EUNSUPPORTED: return "scalegp:unsupported";
      default: return "scalegp:error";
      }
  }

  void
  context::check (int status)
  {
    if (status == SGP_OK)
      return;
    if (status == SGP_EINTERRUPT)
      {
        // A real Ctrl-C: let Octave handle it as it does everywhere else
        // (throws octave::interrupt_exception). Otherwise, or if the pending
        // signal was not an interrupt, raise an ordinary error.
        if (! m_simulated && octave_signal_caught)
          octave_quit ();
        error_with_id (error_id (status), "%s: interrupted", m_fname.c_str ());
      }
    char msg[sizeof m_ctx.errmsg + 64];
    sgp_user_message (m_fname.c_str (), &m_ctx, status, msg, sizeof msg);
    error_with_id (error_id (status), "%s", msg);
  }

  // ------------------------------------------------------------ options

  // An Octave value as the core sees it (numbers and logicals as doubles kept in
  // `keep`, one string, [] as nothing).
  static sgp_value
  value_of (const octave_value& v, option_store& keep, bool empty_is_nothing = true)
  {
    sgp_value out = {SGP_VAL_OTHER, 0, nullptr, nullptr, nullptr, 0, 0, nullptr};
    if (v.iscellstr () || (v.iscell () && v.isempty ()))
      {
        // a cell array of strings (or {}): several strings
        const Cell c = v.cell_value ();
        keep.string_lists.emplace_back ();
        std::vector<const char *>& ptrs = keep.string_lists.back ();
        for (octave_idx_type i = 0; i < c.numel (); i++)
          {
            keep.strings.push_back (c(i).string_value ());
            ptrs.push_back (keep.strings.back ().c_str ());
          }
        out.type = SGP_VAL_STRING;
        out.len = c.numel ();
        out.str = ptrs.empty () ? "" : ptrs[0];
        out.strs = ptrs.data ();
        return out;
      }
    if (v.is_string ())
      {
        out.type = SGP_VAL_STRING;
        out.len = v.rows () <= 1 ? 1 : v.rows ();
        keep.strings.push_back (v.rows () <= 1 ? v.string_value () : std::string ());
        out.str = keep.strings.back ().c_str ();
        return out;
      }
    if (empty_is_nothing && v.isempty () && (v.isnumeric () || v.is_double_type ()))
      {
        out.type = SGP_VAL_NULL;
        return out;
      }
    if ((v.isnumeric () || v.islogical ()) && ! v.iscomplex ())
      {
        // a double array shares Octave's buffer (a fit's statistics may be large);
        // other types are converted
        keep.arrays.push_back (v.array_value ());
        const NDArray& a = keep.arrays.back ();
        out.type = v.islogical () ? SGP_VAL_LOGICAL : SGP_VAL_REAL;
        out.len = a.numel ();
        out.real = a.data ();
        out.rows = v.rows ();
        out.cols = v.ndims () > 2 ? -1 : v.columns ();
      }
    return out;
  }

  // A cell that is not of strings: a LIST without names (a network's weights).
  static sgp_value
  cell_value_of (const Cell& c, option_store& keep)
  {
    std::vector<sgp_value> elts (c.numel ());
    for (octave_idx_type i = 0; i < c.numel (); i++)
      elts[i] = fit_value (c(i), keep);
    keep.lists.push_back (std::move (elts));
    sgp_value out = {SGP_VAL_LIST, c.numel (), nullptr, nullptr, nullptr, 0, 0,
                     keep.lists.back ().data ()};
    return out;
  }

  sgp_value
  fit_value (const octave_value& v, option_store& keep)
  {
    if (v.iscell () && ! v.iscellstr () && ! v.isempty ())
      return cell_value_of (v.cell_value (), keep);
    if (! v.isstruct () || v.numel () != 1)
      return value_of (v, keep, false);
    const octave_scalar_map m = v.scalar_map_value ();
    const string_vector keys = m.fieldnames ();
    std::vector<sgp_value> elts (keys.numel ());
    std::vector<const char *> names (keys.numel ());
    for (octave_idx_type i = 0; i < keys.numel (); i++)
      {
        keep.strings.push_back (keys(i));
        names[i] = keep.strings.back ().c_str ();
        elts[i] = fit_value (m.getfield (keys(i)), keep);
      }
    keep.lists.push_back (std::move (elts));
    keep.string_lists.push_back (std::move (names));
    sgp_value out = {SGP_VAL_LIST, keys.numel (), nullptr, nullptr,
                     keep.string_lists.back ().data (), 0, 0, keep.lists.back ().data ()};
    return out;
  }

  int
  forward_options (context& ctx, const char *verb, const octave_value_list& args, int first,
                   void *opts, option_store& keep)
  {
    const sgp_verb_table *t = sgp_verb_options (verb);
    if ((args.length () - first) % 2)
      error ("%s: options must come in name/value pairs", ctx.fname ().c_str ());
    const int n = (args.length () - first) / 2;
    std::vector<std::string> names (n);
    std::vector<const char *> cnames (n);
    std::vector<sgp_value> values (n);
    for (int k = 0; k < n; k++)
      {
        const int i = first + 2 * k;
        if (! args(i).is_string ())
          error ("%s: option names must be strings (argument %d is not)", ctx.fname ().c_str (),
                 i + 1);
        names[k] = args(i).string_value ();
        cnames[k] = names[k].c_str ();
        values[k] = value_of (args(i + 1), keep);
      }
    return sgp_opts_apply (ctx.get (), t, opts, n, cnames.data (), values.data ());
  }

  void
  apply_options (context& ctx, const char *verb, const octave_value_list& args, int first,
                 void *opts, option_store& keep)
  {
    ctx.check (forward_options (ctx, verb, args, first, opts, keep));
  }

  void
  check_option (context& ctx, const char *verb, const std::string& name,
                const octave_value& value)
  {
    const sgp_verb_table *t = sgp_verb_options (verb);
    if (! t)
      error ("%s: unknown verb '%s'", ctx.fname ().c_str (), verb);
    option_store keep;
    union { double d; int64_t i; void *p; char bytes[4096]; } scratch; // any verb's struct
    std::memset (&scratch, 0, sizeof scratch);
    const sgp_value v = value_of (value, keep);
    ctx.check (sgp_opts_set (ctx.get (), t, &scratch, name.c_str (), &v));
  }

  // ------------------------------------------------------------ op_guard

  op_guard::op_guard (void)
  {
    std::memset (&op, 0, sizeof op);
  }

  op_guard::~op_guard (void)
  {
    sgp_op_destroy (&op);
  }

  // ------------------------------------------------------------ views

  sgp_cmat
  cview (const Matrix& m)
  {
    return sgp_cmat_of (m.data (), m.rows (), m.cols ());
  }

  sgp_mat
  mview (Matrix& m)
  {
    return sgp_mat_of (m.fortran_vec (), m.rows (), m.cols ());
  }

  // ------------------------------------------------------------ arguments

  Matrix
  matrix_arg (const octave_value& v, const std::string& fname, const char *argname)
  {
    if (! (v.isnumeric () || v.islogical ()) || v.iscomplex ())
      error ("%s: %s must be a real numeric matrix", fname.c_str (), argname);
    if (v.ndims () != 2)
      error ("%s: %s must be a 2-D matrix", fname.c_str (), argname);
    // Copy-on-write: a double full matrix shares Octave's buffer.
    return v.matrix_value ();
  }

  double
  scalar_arg (const octave_value& v, const std::string& fname, const char *argname)
  {
    if (! (v.isnumeric () || v.islogical ()) || v.iscomplex () || v.numel () != 1)
      error ("%s: %s must be a real scalar", fname.c_str (), argname);
    return v.double_value ();
  }

  long
  integer_arg (const octave_value& v, const std::string& fname, const char *argname,
               long lo, long hi)
  {
    const double x = scalar_arg (v, fname, argname);
    if (! std::isfinite (x) || x != std::floor (x) || x < lo || x > hi)
      error ("%s: %s must be a whole number in [%ld, %ld]", fname.c_str (), argname,
             lo, hi);
    return static_cast<long> (x);
  }

  std::string
  string_arg (const octave_value& v, const std::string& fname, const char *argname)
  {
    if (! v.is_string () || v.rows () > 1)
      error ("%s: %s must be a string", fname.c_str (), argname);
    return v.string_value ();
  }

  void
  kernel_arg (context& ctx, const octave_value& name, const octave_value& lengthscale,
              const octave_value& outputscale, kernel_spec& out)
  {
    const std::string kname = string_arg (name, ctx.fname (), "kernel");
    out.lengthscale = matrix_arg (lengthscale, ctx.fname (), "lengthscale");
    std::memset (&out.k, 0, sizeof out.k);
    ctx.check (sgp_kernel_from_name (ctx.get (), kname.c_str (), &out.k.kind));
    out.k.lengthscale = out.lengthscale.data ();
    out.k.n_lengthscale = out.lengthscale.numel ();
    out.k.outputscale = scalar_arg (outputscale, ctx.fname (), "outputscale");
    out.k.alpha = 1.0; // the kernel option's default
  }

  // ------------------------------------------------------------ results

  // The core's NA (R's NA_real_: a NaN whose low word is 1954).
  static bool
  is_core_na (double x)
  {
    uint64_t bits;
    std::memcpy (&bits, &x, sizeof bits);
    return std::isnan (x) && (bits & 0xFFFFFFFFu) == 1954u;
  }

  static octave_value
  numbers_value (const sgp_value& v)
  {
    if (v.strs)  // named numbers: a struct of scalars
      {
        octave_scalar_map m;
        for (int64_t i = 0; i < v.len; i++)
          m.assign (v.strs[i], v.real[i]);
        return m;
      }
    const int64_t rc = v.rows * v.cols;
    if (rc > 0 && v.len != rc)  // a rows x cols x k array
      {
        NDArray x (dim_vector (v.rows, v.cols, v.len / rc));
        std::copy (v.real, v.real + v.len, x.fortran_vec ());
        return x;
      }
    const bool matrix = v.rows > 0 || v.cols > 0, row = v.rows == -1;
    Matrix x (matrix ? v.rows : row ? 1 : v.len, matrix ? v.cols : row ? v.len : 1);
    bool na = false;
    for (int64_t i = 0; i < v.len; i++)
      {
        const bool na_i = is_core_na (v.real[i])
                          || (v.type == SGP_VAL_LOGICAL && std::isnan (v.real[i]));
        x(i) = na_i ? octave_NA : v.real[i];
        na = na || std::isnan (v.real[i]);
      }
    if (v.type != SGP_VAL_LOGICAL || na)  // Octave has no logical NA
      return x;
    boolMatrix b (x.rows (), x.cols ());
    for (octave_idx_type i = 0; i < x.numel (); i++)
      b(i) = x(i) != 0.0;
    return b;
  }

  static octave_value
  strings_value (const sgp_value& v)
  {
    if (! v.strs)
      return std::string (v.str ? v.str : "");
    Cell c (v.cols == 1 ? v.len : 1, v.cols == 1 ? 1 : v.len);
    for (int64_t i = 0; i < v.len; i++)
      c(i) = std::string (v.strs[i]);
    return c;
  }

  octave_value
  host_value (const sgp_value& v)
  {
    switch (v.type)
      {
      case SGP_VAL_REAL:
      case SGP_VAL_LOGICAL:
      case SGP_VAL_INT:
        return numbers_value (v);
      case SGP_VAL_STRING:
        return strings_value (v);
      case SGP_VAL_LIST:
        {
          if (! v.strs)  // an unnamed list: a row cell
            {
              Cell c (1, v.len);
              for (int64_t i = 0; i < v.len; i++)
                c(i) = host_value (v.elts[i]);
              return c;
            }
          octave_scalar_map m;
          for (int64_t i = 0; i < v.len; i++)
            m.assign (v.strs[i], host_value (v.elts[i]));
          return m;
        }
      default:
        return Matrix ();
      }
  }

  struct arena_deleter
  {
    void operator () (sgp_value_arena *a) const { sgp_value_arena_free (a); }
  };

  octave_scalar_map
  build_map (const std::function<sgp_value (sgp_value_arena *)>& build,
             const std::function<void ()>& after)
  {
    std::unique_ptr<sgp_value_arena, arena_deleter> a (sgp_value_arena_new ());
    const sgp_value v = a ? build (a.get ()) : sgp_value ();
    if (after)
      after ();
    if (sgp_value_arena_failed (a.get ()))
      error_with_id ("scalegp:nomem", "out of memory");
    return host_value (v).scalar_map_value ();
  }
}
