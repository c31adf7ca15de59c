## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT

## -*- texinfo -*-
## @deftypefn {} {@var{val} =} valla_oof_validation (@var{model}, @var{x}, @var{y}, @var{refit}, @var{opts}, @var{fname})
## Private: validation data whose residuals y - g(x) are the out-of-fold
## residuals of @qcode{"folds"} refits of the network by the function handle
## @var{refit} (as R's valla_oof_validation), or [] when the fit does
## not run Adam, @qcode{"folds"} is below 2 or there are fewer than 2 folds rows.
## @end deftypefn

function val = valla_oof_validation (model, x, y, refit, opts, fname)
  val = [];
  if (! is_function_handle (refit))
    arg_error (fname, "refit", "must be a function(x, y) returning a network");
  endif
  folds = option_value (fname, opts, "folds");
  uses_adam = strcmp (option_value (fname, opts, "method"), "valla") ...
              && ! option_value (fname, opts, "closed_form") ...
              && option_value (fname, opts, "iterations") > 0;
  n = rows (x);
  if (folds < 2 || ! uses_adam || n < 2 * folds)
    return;
  endif
  part = zeros (n, 1);
  part(randperm (n)) = mod ((0:n-1)', folds) + 1;  # Octave's RNG: rand ("seed") reproduces it
  oof = zeros (n, 1);
  for k = 1:folds
    out = part == k;
    try
      net = refit (x(! out, :), y(! out));
    catch err
      arg_error (fname, "refit", "failed: %s", err.message);
    end_try_catch
    oof(out) = y(out) - __sgp_call__ ("valla_forward", net, x(out, :));
  endfor
  val = struct ("x", x, "y", __sgp_call__ ("valla_forward", model, x) + oof);
endfunction
