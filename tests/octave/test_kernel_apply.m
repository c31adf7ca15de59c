## Copyright (C) 2026 scalegp authors
## SPDX-License-Identifier: MIT
##
## The matrix-free dense kernel operator (internal __sgp_call__ ("kernel_apply"))
## against gp_kernel (x) * v, its memory cache, threads, and the simulated
## interrupt (interrupt_after) that stands in for Ctrl-C.

%!shared x, v, K
%! setenv ("SCALEGP_TEST_HOOKS", "1");  # interrupt_after is a test hook; unset at the end
%! state = randn ("state");
%! randn ("state", 42);
%! x = randn (203, 3);
%! v = randn (203, 4);
%! randn ("state", state);
%! K = gp_kernel (x, "kernel", "matern52", "lengthscale", [0.8, 1.1, 1.6],
%!                "outputscale", 1.3);

%!function check_apply (x, v, K, tile, cache_bytes, threads)
%!  [Y, cached] = __sgp_call__ ("kernel_apply", x, v, "matern52", [0.8, 1.1, 1.6], 1.3,
%!                                       tile, cache_bytes, threads, -1);
%!  assert (size (Y), size (v));
%!  assert (Y, K * v, 1e-10);
%!  assert (cached, cache_bytes >= 8 * rows (x) ^ 2);
%!endfunction

## tile in {0 (default), 7} x cache {off, on} x threads {1, 2}
%!test check_apply (x, v, K, 0, 0, 1)
%!test check_apply (x, v, K, 0, 0, 2)
%!test check_apply (x, v, K, 7, 0, 1)
%!test check_apply (x, v, K, 7, 0, 2)
%!test check_apply (x, v, K, 0, 1e9, 1)
%!test check_apply (x, v, K, 0, 1e9, 2)
%!test check_apply (x, v, K, 7, 1e9, 1)
%!test check_apply (x, v, K, 7, 1e9, 2)

%!test
%! ## results do not depend on the thread count (rows are split, not sums)
%! Y1 = __sgp_call__ ("kernel_apply", x, v, "rbf", 0.9, 1, 7, 0, 1);
%! Y2 = __sgp_call__ ("kernel_apply", x, v, "rbf", 0.9, 1, 7, 0, 2);
%! assert (Y1, Y2);

%!test
%! ## every kernel, isotropic, one right-hand side; cache exactly at 8 n^2 bytes
%! for kernel = {"rbf", "matern12", "matern32", "matern52"}
%!   Kk = gp_kernel (x, "kernel", kernel{1}, "lengthscale", 0.6, "outputscale", 2);
%!   [Y, cached] = __sgp_call__ ("kernel_apply", x, v(:, 1), kernel{1}, 0.6, 2, 16, 8 * 203^2);
%!   assert (cached);
%!   assert (Y, Kk * v(:, 1), 1e-10);
%!   [Y, cached] = __sgp_call__ ("kernel_apply", x, v(:, 1), kernel{1}, 0.6, 2, 16, 8 * 203^2 - 1);
%!   assert (! cached);
%!   assert (Y, Kk * v(:, 1), 1e-10);
%! endfor

%!test
%! ## the shared fixtures through the operator
%! d = getenv ("SCALEGP_EXTDATA");
%! if (isempty (d))
%!   d = fullfile (pwd (), "inst", "extdata");
%! endif
%! xf = csvread (fullfile (d, "kernel_x.csv"));
%! p = csvread (fullfile (d, "kernel_params.csv"));
%! w = (1:rows (xf))';
%! Kf = gp_kernel (xf, "kernel", "matern32", "lengthscale", p(3, :), "outputscale", p(1, 1));
%! assert (__sgp_call__ ("kernel_apply", xf, w, "matern32", p(3, :), p(1, 1)), Kf * w, 1e-10);

## ---- simulated interrupts (interrupt_after = 2: two polls pass, the third stops)

%!error <interrupted>
%! xi = randn (3000, 2);
%! __sgp_call__ ("kernel_apply", xi, ones (3000, 1), "rbf", 1, 1, 64, 0, 2, 2);

%!error <interrupted>
%! ## while the cache is filled (one poll per 512-row tile)
%! xi = randn (3000, 2);
%! __sgp_call__ ("kernel_apply", xi, ones (3000, 1), "rbf", 1, 1, 0, 1e9, 2, 2);

%!test
%! ## the error is "gp_kernel: interrupted" with an identifier
%! xi = randn (3000, 2);
%! try
%!   __sgp_call__ ("kernel_apply", xi, ones (3000, 1), "rbf", 1, 1, 8, 0, 1, 2);
%!   error ("no interrupt");
%! catch err
%!   assert (err.message, "gp_kernel: interrupted");
%!   assert (err.identifier, "scalegp:interrupted");
%! end_try_catch
%! ## the same call without the simulated interrupt completes
%! [Y, cached] = __sgp_call__ ("kernel_apply", xi(1:500, :), ones (500, 1), "rbf", 1, 1, 8, 0, 1, -1);
%! assert (Y, gp_kernel (xi(1:500, :)) * ones (500, 1), 1e-10);

%!test
%! ## interrupted operators are freed: neither an interrupted cached build
%! ## (the core cleans up) nor an interrupted product after a complete 72 MB
%! ## cache (interrupt_after = 6: the 6 polls of the fill pass; the shim's
%! ## guard destroys the operator) grows the process
%! if (! exist ("/proc/self/status", "file"))
%!   return;
%! endif
%! xi = randn (3000, 2);
%! rss = @() sscanf (regexp (fileread ("/proc/self/status"), 'VmRSS:\s*(\d+)', "tokens", "once"){1}, "%d");
%! for k = 1:2  # warm up the allocator
%!   try, __sgp_call__ ("kernel_apply", xi, ones (3000, 1), "rbf", 1, 1, 0, 1e9, 2, 2); end_try_catch
%! endfor
%! before = rss ();
%! for k = 1:10
%!   try, __sgp_call__ ("kernel_apply", xi, ones (3000, 1), "rbf", 1, 1, 0, 1e9, 2, 2); end_try_catch
%!   try, __sgp_call__ ("kernel_apply", xi, ones (3000, 1), "rbf", 1, 1, 16, 0, 2, 2); end_try_catch
%!   try
%!     __sgp_call__ ("kernel_apply", xi, ones (3000, 1), "rbf", 1, 1, 0, 1e9, 2, 6);
%!     error ("no interrupt");
%!   catch err
%!     assert (err.message, "gp_kernel: interrupted");
%!   end_try_catch
%! endfor
%! grown_mb = (rss () - before) / 1024;
%! assert (grown_mb < 50, sprintf ("RSS grew by %.0f MB", grown_mb));

%!test unsetenv ("SCALEGP_TEST_HOOKS");
