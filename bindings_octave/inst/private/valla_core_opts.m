## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## Private (valla): the options struct __sgp_valla__ takes, from the parsed
## name/value options.  Types are checked here; ranges the core checks (one
## message for R and Octave) are only coerced.
function o = valla_core_opts (opts, likelihood, method, n_inducing, fname)
  noise = 0;                      # core default: exp(-5) on the standardized scale
  if (! isempty (opts.noise))
    if (! strcmp (likelihood, "gaussian"))
      arg_error (fname, "noise", "is only used with likelihood = \"gaussian\"");
    endif
    noise = check_positive (opts.noise, fname, "noise", 1);
  endif
  o = struct ("likelihood", likelihood, "method", method, "n_inducing", n_inducing,
              "prior_var", check_real_scalar (opts.prior_var, fname, "prior_var"),
              "noise", noise, "learn", valla_learn_bits (opts.learn, fname),
              "closed_form", check_flag (opts.closed_form, fname, "closed_form"),
              "iterations", check_count (opts.iterations, fname, "iterations", 0),
              "batch_size", check_count (opts.batch_size, fname, "batch_size", 1),
              "lr", check_real_scalar (opts.lr, fname, "lr"),
              "alpha", check_real_scalar (opts.alpha, fname, "alpha"),
              "eval_every", check_count (opts.eval_every, fname, "eval_every", 1),
              "patience", check_count (opts.patience, fname, "patience", 1),
              "restore_best", check_flag (opts.restore_best, fname, "restore_best"),
              "beta1", unit_interval (opts.beta1, fname, "beta1"),
              "beta2", unit_interval (opts.beta2, fname, "beta2"),
              "adam_eps", check_positive (opts.adam_eps, fname, "adam_eps", 1),
              "init_A", check_choice (opts.init_A, {"identity", "closed_form"}, fname, "init_A"),
              "standardize_y", check_flag (opts.standardize_y, fname, "standardize_y"),
              "kmeans_iter", check_count (opts.kmeans_iter, fname, "kmeans_iter", 0),
              "kmeans_max", check_count (opts.kmeans_max, fname, "kmeans_max", 1),
              "jitter", check_nonneg (opts.jitter, fname, "jitter"),
              "cache_max_bytes", check_count_or_inf (opts.cache_max_bytes, fname, "cache_max_bytes"),
              "val_frac", unit_interval (opts.val_frac, fname, "val_frac"),
              "val_max", check_count_or_inf (opts.val_max, fname, "val_max"),
              "lla_max", check_count (opts.lla_max, fname, "lla_max", 1),
              "ella_rank", check_count (opts.ella_rank, fname, "ella_rank", 1),
              "backend", check_choice (opts.backend, {"auto", "cpu", "cuda"}, fname, "backend"));
  if (isinf (o.val_max))
    o.val_max = -1;
  endif
endfunction
