## inst/fuzz/fuzz_octave.m -- fuzzes every public Octave function of scalegp with
## bad inputs (wrong shapes and types, NaN/Inf, zero/negative/huge parameters,
## empty data, one class, sizes that cannot fit in memory, tampered fits given
## to scalegp_predict) and prints a table per function. The cases run in child
## octave-cli processes (a batch each, under ulimit -v), so a crash or a hang
## ends only its batch: the case that was running is recorded and the next batch
## starts after it.
##
## Usage, from the repository root:
##   make -C bindings_octave/src CORE_DIR=../../core    (or SCALEGP_OCT_PREFIX=...)
##   octave-cli --no-gui --norc inst/fuzz/fuzz_octave.m [--quick] [--filter=REGEX]
##              [--tsv=FILE] [--show=CLASSES]
## Options as in fuzz_r.R. Classes: error (clean, naming the argument or field),
## unclear (an error that does not name it), ok (accepted, sound result),
## garbage (NaN/Inf, or a tampered fit's result differing from the original's),
## crash (the process died), hang (the batch ran past its time limit).
## Exit status 1 when a case crashed, hung or returned garbage.

1;

function o = fuzz_options ()
  a = argv ();
  o = struct ("quick", any (strcmp (a, "--quick")), "filter", "", "tsv", "",
              "show", {{"unclear", "garbage", "crash", "hang"}});
  for i = 1:numel (a)
    t = regexp (a{i}, '^--(\w+)=(.*)$', "tokens", "once");
    if (! isempty (t) && any (strcmp (t{1}, {"filter", "tsv"})))
      o.(t{1}) = t{2};
    elseif (! isempty (t) && strcmp (t{1}, "show"))
      o.show = strsplit (t{2}, ",");
    endif
  endfor
  if (! isempty (getenv ("SGP_FUZZ_FILTER")))
    o.filter = getenv ("SGP_FUZZ_FILTER");
  endif
  o.quick = o.quick || strcmp (getenv ("SGP_FUZZ_QUICK"), "1");
endfunction

function here = fuzz_dir ()
  here = fileparts (mfilename ("fullpathext"));
  if (isempty (here))
    here = fullfile (pwd (), "inst", "fuzz");
  endif
endfunction

function load_scalegp ()
  root = fileparts (fileparts (fuzz_dir ()));
  prefix = getenv ("SCALEGP_OCT_PREFIX");
  if (! isempty (prefix))
    addpath (fullfile (root, "tests", "octave"));
    use_prefix (prefix);
    pkg ("load", "scalegp");
  else
    addpath (fullfile (root, "bindings_octave", "src"));
    addpath (fullfile (root, "bindings_octave", "inst"));
  endif
endfunction

## ------------------------------------------------------------ child

## Runs cases first..last, one "B i" line before and one "E i class msg" line
## after each (flushed), so the parent knows which case a dead child was running.
function fuzz_child (opt, first, last, outfile)
  load_scalegp ();
  warning ("off", "all");
  fx = fuzz_fixtures ();
  cases = fuzz_select (fuzz_all_cases (fx, opt.quick), opt.filter);
  warning ("on", "all");  # seen by fuzz_classify through lastwarn (output to /dev/null)
  fid = fopen (outfile, "a");
  for i = first:min (last, numel (cases))
    fprintf (fid, "B\t%d\n", i);
    fflush (fid);
    [cls, msg] = fuzz_classify (cases{i});
    msg = regexprep (msg, '[\t\n\r]+', " ");
    fprintf (fid, "E\t%d\t%s\t%s\n", i, cls, msg(1:min (end, 300)));
    fflush (fid);
  endfor
  fclose (fid);
endfunction

function [cls, msg] = fuzz_classify (k)
  lastwarn ("");
  try
    v = k.run ();
  catch err
    msg = err.message;
    named = any (cellfun (@(a) ! isempty (regexp (msg, arg_pattern (a), "once")), k.arg));
    cls = if_named (named, "error", "unclear");
    return;
  end_try_catch
  ## documented NaN: the optimizer's trace marks a failed evaluation, the
  ## history's trace column is NA where history_trace did not compute it (the
  ## exact path's dense solve); a fit that warned (did not converge, learning
  ## failed) may carry more non-finite diagnostics: its history, an evidence that
  ## could not be evaluated
  if (isstruct (v))
    skip = {"optim"};
    if (! isempty (lastwarn ()))
      skip = {"history", "steps", "optim", "loglik", "loglik_se", "loglik_grad", "interp_error"};
    endif
    checked = rmfield (v, intersect (fieldnames (v), skip));
    if (isfield (checked, "history") && isstruct (checked.history) && isscalar (checked)
        && isfield (checked.history, "trace"))
      checked.history = rmfield (checked.history, "trace");
    endif
  else
    checked = v;
  endif
  if (! all_finite (checked))
    cls = "garbage";
    msg = "non-finite values in the result";
  elseif (is_function_handle (k.ref) && ! isequal (k.ref (), v))
    cls = "garbage";
    msg = "differs from the untampered fit's result";
  else
    cls = "ok";
    msg = "accepted";
  endif
endfunction

function r = if_named (c, a, b)
  if (c) r = a; else r = b; endif
endfunction

## The argument as a word of a message ('x' matches "'x' has", not "x2").
function p = arg_pattern (a)
  p = ['(^|[^A-Za-z0-9_])' regexprep(a, '([.$^()])', '\\$1') '([^A-Za-z0-9_]|$)'];
endfunction

function ok = all_finite (v)
  if (isstruct (v))
    ok = true;
    f = fieldnames (v);
    for j = 1:numel (v)
      for i = 1:numel (f)
        ok = ok && all_finite (v(j).(f{i}));
      endfor
    endfor
  elseif (iscell (v))
    ok = all (cellfun (@all_finite, v(:)));
  elseif (isnumeric (v))
    ok = all (isfinite (v(:)));
  else
    ok = true;
  endif
endfunction

function c = fuzz_select (cases, filter)
  if (isempty (filter))
    c = cases;
    return;
  endif
  keys = cellfun (@(k) [k.fn ": " k.label], cases, "UniformOutput", false);
  c = cases(! cellfun (@isempty, regexp (keys, filter, "once")));
endfunction

## ------------------------------------------------------------ parent

function cls = fuzz_parent (opt)
  load_scalegp ();
  warning ("off", "all");
  cases = fuzz_select (fuzz_all_cases (fuzz_fixtures (), opt.quick), opt.filter);
  n = numel (cases);
  cls = repmat ({""}, n, 1);
  msg = repmat ({""}, n, 1);
  out = [tempname() ".fuzz"];
  t0 = tic ();
  first = 1;
  while (first <= n)
    last = min (n, first + 99);
    status = fuzz_spawn (opt, first, last, out);
    [cls, msg, done] = fuzz_read (out, cls, msg);
    unlink (out);
    if (done < last)  # the batch ended in case done + 1
      cls{done + 1} = if_named (status == 124 || status == 137, "hang", "crash");
      msg{done + 1} = sprintf ("the child octave-cli %s (status %d)",
                               if_named (status == 124, "ran past its time limit", "died"),
                               status);
      last = done + 1;
    endif
    first = last + 1;
  endwhile
  fuzz_report (cases, cls, msg, opt, toc (t0));
endfunction

function status = fuzz_spawn (opt, first, last, out)
  me = fullfile (fuzz_dir (), "fuzz_octave.m");
  kb = getenv ("SGP_FUZZ_VMEM_KB");
  if (isempty (kb))
    kb = "8000000";
  endif
  cmd = sprintf (["ulimit -v %s; SGP_FUZZ_CHILD=%d,%d,%s SGP_FUZZ_FILTER=%s ", ...
                  "SGP_FUZZ_QUICK=%d timeout -k 5 %d octave-cli --no-gui --norc --no-history '%s' ", ...
                  ">/dev/null 2>&1"], kb, first, last, out, shell_quote (opt.filter),
                 opt.quick, 60 + (last - first + 1), me);
  status = system (["sh -c " shell_quote(cmd)]);
endfunction

function q = shell_quote (s)
  q = ["'" strrep(s, "'", "'\\''") "'"];
endfunction

## Reads the child's lines; done = the last case that ended (first - 1 if none).
function [cls, msg, done] = fuzz_read (out, cls, msg)
  done = 0;
  txt = "";
  if (exist (out, "file"))
    txt = fileread (out);
  endif
  begun = 0;
  for line = strsplit (txt, "\n")
    f = strsplit (line{1}, "\t");
    if (strcmp (f{1}, "B"))
      begun = str2double (f{2});
    elseif (strcmp (f{1}, "E") && numel (f) >= 4)
      i = str2double (f{2});
      cls{i} = f{3};
      msg{i} = strjoin (f(4:end), " ");
      done = i;
    endif
  endfor
  if (begun == 0)
    done = find (cellfun (@isempty, cls), 1) - 1;
  elseif (begun > done)
    done = begun - 1;
  endif
endfunction

function fuzz_report (cases, cls, msg, opt, secs)
  classes = {"error", "unclear", "ok", "garbage", "crash", "hang"};
  fns = cellfun (@(k) k.fn, cases, "UniformOutput", false);
  ufn = unique (fns, "stable");
  idx = cellfun (@(s) find (strcmp (ufn, s)), fns);
  printf ("scalegp Octave fuzz: %d cases in %.0f s (child octave-cli processes)\n\n",
          numel (cases), secs);
  printf ("%-36s %6s", "function", "inputs");
  printf (" %7s", classes{:});
  printf ("\n");
  tot = zeros (1, numel (classes));
  for f = 1:numel (ufn)
    row = cellfun (@(c) sum (strcmp (cls(idx == f), c)), classes);
    tot += row;
    printf ("%-36s %6d", ufn{f}, sum (idx == f));
    printf (" %7d", row);
    printf ("\n");
  endfor
  printf ("%-36s %6d", "total", numel (cases));
  printf (" %7d", tot);
  printf ("\n");
  for i = find (ismember (cls, opt.show))(:).'
    printf ("\n[%s] %s: %s\n    %s", cls{i}, cases{i}.fn, cases{i}.label, msg{i});
  endfor
  printf ("\n");
  if (! isempty (opt.tsv))
    fid = fopen (opt.tsv, "w");
    fprintf (fid, "fn\tlabel\tclass\tmsg\n");
    for i = 1:numel (cases)
      fprintf (fid, "%s\t%s\t%s\t%s\n", cases{i}.fn, cases{i}.label, cls{i}, msg{i});
    endfor
    fclose (fid);
  endif
  fflush (stdout);
endfunction

## ------------------------------------------------------------ main

source (fullfile (fuzz_dir (), "fuzz_octave_cases.m"));
opt = fuzz_options ();
child = getenv ("SGP_FUZZ_CHILD");
if (isempty (child))
  cls = fuzz_parent (opt);
  exit (any (ismember (cls, {"garbage", "crash", "hang"})));
else
  f = strsplit (child, ",");
  fuzz_child (opt, str2double (f{1}), str2double (f{2}), strjoin (f(3:end), ","));
endif
