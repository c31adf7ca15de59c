/* ski.h -- ski_gsgp internals (core-internal; not part of the public API yet).
 *
 * Structured kernel interpolation (Wilson and Nickisch, "Kernel Interpolation
 * for Scalable Structured Gaussian Processes (KISS-GP)", ICML 2015) fitted from
 * sufficient statistics (Yadav, Sheldon and Musco, "Faster Kernel Interpolation
 * for Gaussian Processes", AISTATS 2021); docs/ski_gsgp.md. The regular grid, the
 * interpolation weights w(x) and the products with
 * the grid kernel matrix K_G as an sgp_op (Kronecker-of-Toeplitz and multilevel
 * circulant embedding, FFTW).
 *
 * Conventions: a grid vector is stored first dimension fastest,
 *   g = i_1 + m_1 (i_2 + m_2 (i_3 + ...)),  0 <= i_j < m_j,
 * so R's array(v, dim = grid_size) reshapes it directly, and
 * K_G = s T_d (x) ... (x) T_1 for separable kernels. Grid point i has the
 * coordinates lo_j + i_j h_j. Dimensions are numbered from 0 in C and from 1 in
 * error messages (they name the R/Octave arguments).
 *
 * The types and entry points the shims need are public (api/sgp_ski.h). The
 * internals are four headers by topic, each including the one before:
 * ski_grid.h, ski_stats.h, ski_solve.h, ski_loglik.h; this one includes them all. */
#ifndef SGP_SKI_H
#define SGP_SKI_H

#include "ski/ski_loglik.h"

#endif
