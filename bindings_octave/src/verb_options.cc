// verb_options.cc -- __sgp_call__ ("options") and ("option_check"): a verb's
// options as the core defines them (sgp_options.h), for the fronts' defaults,
// docs and tests, and the core's check of one option.
#include "sgp_octave_verbs.h"
#include "sgp_octave.h"

// Usage: t = __sgp_call__ ("options", verb)
// Private: the options of verb (e.g. "gp_laplace") as the core writes them
// (sgp_options_plain): a struct of cellstr columns name, kind, default and doc,
// and context (whether the verb takes the context options).
octave_value_list
sgp_verbs::options (const octave_value_list& args, int)
{
  if (args.length () != 1 || ! args(0).is_string ())
    print_usage ();
  const std::string verb = args(0).string_value ();
  const sgp_verb_table *t = sgp_verb_options (verb.c_str ());
  if (! t)
    error ("__sgp_call__: unknown verb '%s'", verb.c_str ());
  return ovl (sgp_octave::build_map ([&] (sgp_value_arena *a)
                                     { return sgp_options_plain (t, a); }));
}

// Usage: __sgp_call__ ("option_check", verb, name, value)
// Usage: __sgp_call__ ("option_check", verb, name, value, fname)
// Private: checks one option of verb as the core does (an error in the
// user's form "verb: 'name' ...", or "fname: ..." with fname).
octave_value_list
sgp_verbs::option_check (const octave_value_list& args, int)
{
  if (args.length () < 3 || args.length () > 4 || ! args(0).is_string ()
      || ! args(1).is_string ())
    print_usage ();
  const std::string verb = args(0).string_value ();
  // errors name the user's function (fname) or the verb
  sgp_octave::context ctx (args.length () == 4 ? args(3).string_value () : verb, 0);
  sgp_octave::check_option (ctx, verb.c_str (), args(1).string_value (), args(2));
  return ovl ();
}

/*
%!test
%! t = __sgp_call__ ("options", "gp_laplace");
%! assert (any (strcmp (t.name, "max_newton")));
%! assert (t.default{strcmp (t.name, "max_newton")}, "20");
%!error <unknown verb> __sgp_call__ ("options", "nonsense")
%!test
%! __sgp_call__ ("option_check", "valla", "learn", {"A", "noise"});
%!error <valla: 'learn' has unknown entries "x"> __sgp_call__ ("option_check", "valla", "learn", {"A", "x"})
%!error <valla: 'method' must be one of> __sgp_call__ ("option_check", "valla", "method", "z")
*/
