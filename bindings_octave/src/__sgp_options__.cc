// __sgp_options__.cc -- private oct-file: a verb's options as the core defines
// them (sgp_options.h), for the fronts' defaults, docs and tests.
#include "sgp_octave.h"

DEFUN_DLD (__sgp_options__, args, ,
           "-*- texinfo -*-\n\
@deftypefn {} {@var{t} =} __sgp_options__ (@var{verb})\n\
@deftypefnx {} {} __sgp_options__ (@var{verb}, @var{name}, @var{value}, @var{fname})\n\
Private: the options of @var{verb} (e.g. @qcode{\"gp_laplace\"}) as a struct\n\
of cellstr columns name, kind, default and doc.  With @var{name} and\n\
@var{value}: checks that one option as the core does (an error in the\n\
user's form \"verb: 'name' ...\", or \"fname: ...\" with @var{fname}).\n\
@seealso{scalegp_options}\n\
@end deftypefn")
{
  if (args.length () < 1 || args.length () == 2 || args.length () > 4 || ! args(0).is_string ())
    print_usage ();
  const std::string verb = args(0).string_value ();
  if (args.length () >= 3)
    {
      if (! args(1).is_string ())
        print_usage ();
      // errors name the user's function (fname) or the verb
      sgp_octave::context ctx (args.length () == 4 ? args(3).string_value () : verb, 0);
      sgp_octave::check_option (ctx, verb.c_str (), args(1).string_value (), args(2));
      return ovl ();
    }
  const sgp_verb_table *t = sgp_verb_options (verb.c_str ());
  if (! t)
    error ("__sgp_options__: unknown verb '%s'", verb.c_str ());
  Cell name (t->n, 1), kind (t->n, 1), def (t->n, 1), doc (t->n, 1);
  for (int i = 0; i < t->n; i++)
    {
      name(i) = std::string (t->opts[i].name);
      kind(i) = std::string (sgp_opt_kind_name (t->opts[i].kind));
      def(i) = std::string (t->opts[i].def);
      doc(i) = std::string (t->opts[i].doc);
    }
  octave_scalar_map out;
  out.assign ("name", name);
  out.assign ("kind", kind);
  out.assign ("default", def);
  out.assign ("doc", doc);
  return ovl (out);
}

/*
%!test
%! t = __sgp_options__ ("gp_laplace");
%! assert (any (strcmp (t.name, "max_iter")));
%! assert (t.default{strcmp (t.name, "max_iter")}, "5");
%!error <unknown verb> __sgp_options__ ("nonsense")
%!test
%! __sgp_options__ ("valla", "learn", {"A", "noise"});
%!error <valla: 'learn' has unknown entries "x"> __sgp_options__ ("valla", "learn", {"A", "x"})
%!error <valla: 'method' must be one of> __sgp_options__ ("valla", "method", "z")
*/
