// sgp_octave.h -- the glue shared by every scalegp oct-file: a context with
// Octave's hooks (output, Ctrl-C, progress), views on Octave matrices, argument
// conversion and the mapping from core status codes to Octave errors.
//
// Rules (ARCHITECTURE.md, "One gateway per host"):
//  - Octave's error() and octave_quit() throw C++ exceptions; they are raised
//    only after the core has returned, never from a hook, so no exception
//    crosses a C frame. Resources owned by the shim are RAII objects.
//  - Hooks run on the calling thread only (the core never calls them inside a
//    parallel region); the interrupt hook merely peeks octave_signal_caught
//    and octave_interrupt_state (an interrupt, not any signal Octave handled).
#ifndef SGP_OCTAVE_H
#define SGP_OCTAVE_H

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include <octave/oct.h>

#include "api/sgp.h"

namespace sgp_octave
{
  // A core context wired to Octave. Not copyable: the hooks get `this`.
  class context
  {
  public:
    // fname names the user-facing function in messages ("gp_kernel").
    // nthreads <= 0: OpenMP default; above SGP_MAX_THREADS an error naming
    // `threads` (raised here). interrupt_after >= 0 simulates Ctrl-C:
    // the first interrupt_after polls pass, the next one reports an interrupt
    // (a test hook: an error unless SCALEGP_TEST_HOOKS=1, sgp_ctx_test_hook).
    context (const std::string& fname, int nthreads, bool verbose = false,
             long interrupt_after = -1);

    context (const context&) = delete;
    context& operator = (const context&) = delete;

    sgp_ctx *get (void) { return &m_ctx; }
    const std::string& fname (void) const { return m_fname; }

    // Raises the Octave error for a non-zero status (call after the core has
    // returned). A real Ctrl-C goes through octave_quit(); anything else is
    // error_with_id ("scalegp:<kind>", the core's sgp_user_message: the one
    // form both hosts show, "<fname>: 'arg' <detail>").
    void check (int status);

    long polls (void) const { return m_polls; }

  private:
    static void print_hook (void *ud, const char *msg);
    static int interrupt_hook (void *ud);
    static void progress_hook (void *ud, const char *task, double fraction);

    sgp_ctx m_ctx;
    std::string m_fname;
    long m_interrupt_after;
    long m_polls;
    bool m_simulated;        // the last interrupt came from interrupt_after
    bool m_progress_shown;   // a progress line of the current task was printed
    double m_last_progress;  // wall seconds of the last progress line (or start)
  };

  // Owns an operator built by the core; destroyed on every path.
  class op_guard
  {
  public:
    op_guard (void);
    ~op_guard (void);
    op_guard (const op_guard&) = delete;
    op_guard& operator = (const op_guard&) = delete;
    sgp_op op;
  };

  // Values handed to the core by option (lengthscale, noise, offset point into
  // them): they must live as long as the options struct is used.
  struct option_store
  {
    std::deque<std::vector<double>> numbers;
    std::deque<std::string> strings;
    std::deque<std::vector<const char *>> string_lists; // a cellstr's strings (into strings)
    std::deque<std::vector<sgp_value>> lists;           // a struct's fields (fit_value)
    std::deque<NDArray> arrays;                         // doubles shared with Octave (no copy)
  };

  // A fit given back as plain data (a struct, its nested structs included) as the
  // core's LIST value, which the core checks (sgp_laplace_fit_check, ...): every
  // field with its dimensions, an empty matrix kept as one (not "nothing");
  // keep holds the values it points into.
  sgp_value fit_value (const octave_value& v, option_store& keep);

  // Options by name: args(first), args(first+1), ... are name/value pairs, each
  // forwarded to the context ("backend", "seed", "verbose", "threads") or to the
  // core's table of `verb`, which checks it and stores it into opts; an error
  // is raised through ctx.check with the core's message.
  void apply_options (context& ctx, const char *verb, const octave_value_list& args,
                      int first, void *opts, option_store& keep);
  // apply_options that returns the core's status instead of raising it (a caller
  // that renames an argument in the message first).
  int forward_options (context& ctx, const char *verb, const octave_value_list& args,
                       int first, void *opts, option_store& keep);

  // A verb's options struct: its defaults, then the name/value pairs from
  // args(first) on (apply_options); keep holds the values it points into.
  template <typename O>
  void
  verb_options (context& ctx, const char *verb, void (*defaults) (O *),
                const octave_value_list& args, int first, O& o, option_store& keep)
  {
    defaults (&o);
    apply_options (ctx, verb, args, first, &o, keep);
  }

  // Checks one option of `verb` as the core does (the value is not kept), for a
  // front that needs an option before the call; errors as apply_options.
  void check_option (context& ctx, const char *verb, const std::string& name,
                     const octave_value& value);

  // A kernel whose lengthscale array lives as long as this object.
  struct kernel_spec
  {
    Matrix lengthscale;
    sgp_kernel k;
  };

  // ---------------------------------------------------------------- views
  // Non-owning views on Octave's column-major storage (no copies).
  sgp_cmat cview (const Matrix& m);
  // Mutable view; the matrix must be unshared (freshly allocated output).
  sgp_mat mview (Matrix& m);

  // ---------------------------------------------------------- arguments
  // Argument checks of the private oct-files. The public .m functions validate
  // values with user-facing messages; these only guard the types, and the core
  // checks values again (finite, sizes, positivity).

  // A real (non-complex) numeric or logical 2-D array as a double Matrix.
  Matrix matrix_arg (const octave_value& v, const std::string& fname,
                     const char *argname);
  double scalar_arg (const octave_value& v, const std::string& fname,
                     const char *argname);
  // A whole number in [lo, hi].
  long integer_arg (const octave_value& v, const std::string& fname,
                    const char *argname, long lo, long hi);
  std::string string_arg (const octave_value& v, const std::string& fname,
                          const char *argname);
  // Kernel from (name, lengthscale, outputscale); an unknown name is reported
  // through ctx.check with the core's message.
  void kernel_arg (context& ctx, const octave_value& name,
                   const octave_value& lengthscale,
                   const octave_value& outputscale, kernel_spec& out);
  // A result the core gives back as plain data (sgp_options.h) as Octave data: the
  // one converter from the core to Octave, the inverse of fit_value. Structs,
  // matrices (a plain vector as a column), named numbers as a struct of scalars,
  // logicals (NA as a double NA), strings and cellstrs, NULL as [].
  octave_value host_value (const sgp_value& v);
  // The struct of build (arena), a core builder of a result's fields
  // (sgp_hyper_plain, sgp_ski_stats_plain, ...); the arena is freed on every path.
  // after (when given) runs once build has returned, before the conversion: the
  // check of a status the builder computed (ctx.check raises the core's error).
  octave_scalar_map build_map (const std::function<sgp_value (sgp_value_arena *)>& build,
                               const std::function<void ()>& after = nullptr);

}

#endif
