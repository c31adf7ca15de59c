// verb_h5_rows.cc -- __sgp_call__ ("h5_rows") behind ski_stats.m's HDF5 chunks:
// the row count of an x / y pair of datasets and one block of their rows, read
// as a hyperslab, so a chunk is never held whole (Octave's load reads whole
// datasets). Layout as R's hdf5r reads it (ski_hdf5_reader in
// R/ski_stats_sources.R): an n-by-d matrix written by R or Octave has the
// HDF5 dims {d, n} (column-major storage), so a row is one index of the last
// dimension; y is a vector of n. A name that is a group holding a dataset
// "value" (a variable of Octave's save -hdf5) reads that dataset.
// Uses only the HDF5 C API (Octave links the same libhdf5); needs no core.
#include <octave/oct.h>
#include <hdf5.h>
#include <string>

#include "sgp_octave_verbs.h"

namespace {

// HDF5's error stack printing off while we hold the library, then restored:
// our messages replace its dump, and Octave's own load/save see it as it was.
struct quiet_hdf5 {
  H5E_auto2_t fn = nullptr;
  void *data = nullptr;
  quiet_hdf5 () { H5Eget_auto2 (H5E_DEFAULT, &fn, &data); H5Eset_auto2 (H5E_DEFAULT, nullptr, nullptr); }
  ~quiet_hdf5 () { H5Eset_auto2 (H5E_DEFAULT, fn, data); }
};

// An HDF5 handle closed on every path (octave's error() unwinds the stack).
struct handle {
  hid_t id;
  herr_t (*close) (hid_t);
  handle (hid_t i, herr_t (*c) (hid_t)) : id (i), close (c) {}
  ~handle () { if (id >= 0) close (id); }
  handle (const handle &) = delete;
  handle &operator= (const handle &) = delete;
};

// One open dataset: its file and name for messages, its rank and dims (at
// most 2).
struct dataset {
  std::string file, name;
  handle h { -1, H5Dclose };
  int rank = 0;
  hsize_t dims[2] = { 0, 0 };
};

void open_dataset (hid_t file, const std::string &path, const std::string &name, dataset &d)
{
  d.file = path;
  d.name = name;
  d.h.id = H5Dopen2 (file, name.c_str (), H5P_DEFAULT);
  if (d.h.id < 0) {
    handle g (H5Gopen2 (file, name.c_str (), H5P_DEFAULT), H5Gclose);
    if (g.id >= 0)
      d.h.id = H5Dopen2 (g.id, "value", H5P_DEFAULT);
    if (d.h.id < 0)
      error ("%s: the file has no dataset '%s'", path.c_str (), name.c_str ());
  }
  handle type (H5Dget_type (d.h.id), H5Tclose);
  H5T_class_t cls = H5Tget_class (type.id);
  if (cls != H5T_INTEGER && cls != H5T_FLOAT)
    error ("%s: dataset '%s' is not numeric", path.c_str (), name.c_str ());
  handle space (H5Dget_space (d.h.id), H5Sclose);
  d.rank = H5Sget_simple_extent_ndims (space.id);
  if (d.rank < 1 || d.rank > 2)
    error ("%s: dataset '%s' has %d dimensions; 'x' and 'y' must have 1 or 2", path.c_str (),
           name.c_str (), d.rank);
  H5Sget_simple_extent_dims (space.id, d.dims, nullptr);
}

// n and d from x and y, or an error that says what does not match.
void shape (const dataset &x, const dataset &y, hsize_t &n, hsize_t &d)
{
  if (y.rank == 2 && y.dims[0] != 1 && y.dims[1] != 1)
    error ("%s: dataset '%s' (y) is a %llu-by-%llu matrix, not a vector", y.file.c_str (),
           y.name.c_str (),
           (unsigned long long) y.dims[1], (unsigned long long) y.dims[0]);
  n = y.rank == 1 ? y.dims[0] : y.dims[0] * y.dims[1];
  const hsize_t rows = x.rank == 1 ? x.dims[0] : x.dims[1];
  d = x.rank == 1 ? 1 : x.dims[0];
  if (rows != n)
    error ("%s: dataset '%s' (x) has %llu rows but '%s' (y) has %llu values (an n-by-d matrix "
           "written by R or Octave has the HDF5 dims {d, n})", x.file.c_str (), x.name.c_str (),
           (unsigned long long) rows, y.name.c_str (), (unsigned long long) n);
}

// Rows [r0, r0 + nr) of a dataset into out (nr-by-cols, column-major: the
// selection {cols, nr} of a {cols, n} dataset in C order is exactly that).
void read_rows (const dataset &ds, hsize_t r0, hsize_t nr, hsize_t cols, double *out)
{
  handle space (H5Dget_space (ds.h.id), H5Sclose);
  hsize_t start[2], count[2];
  if (ds.rank == 1) {
    start[0] = r0; count[0] = nr;
  } else if (ds.dims[0] == cols || ds.dims[1] != 1) {   // {cols, n}: x, or a 1-by-n y as {1, n}
    start[0] = 0; start[1] = r0; count[0] = cols; count[1] = nr;
  } else {                                              // {n, 1}: a y written as a row vector
    start[0] = r0; start[1] = 0; count[0] = nr; count[1] = 1;
  }
  hsize_t total = nr * cols;
  handle mem (H5Screate_simple (1, &total, nullptr), H5Sclose);
  if (H5Sselect_hyperslab (space.id, H5S_SELECT_SET, start, nullptr, count, nullptr) < 0
      || H5Dread (ds.h.id, H5T_NATIVE_DOUBLE, mem.id, space.id, H5P_DEFAULT, out) < 0)
    error ("%s: cannot read rows %llu to %llu of dataset '%s'", ds.file.c_str (),
           (unsigned long long) r0 + 1,
           (unsigned long long) (r0 + nr), ds.name.c_str ());
}

}  // namespace

// Usage: n = __sgp_call__ ("h5_rows", file, xname, yname)
// Usage: [x, y] = __sgp_call__ ("h5_rows", file, xname, yname, r0, nr)
// Private: the row count n of the HDF5 datasets xname (n-by-d, or
// n values) and yname (n values), or their rows r0 + 1 to
// r0 + nr (fewer at the end), read as one hyperslab each.
// See ski_stats.
octave_value_list
sgp_verbs::h5_rows (const octave_value_list& args, int nargout)
{
  const int nargs = args.length ();
  if (nargs != 3 && nargs != 5)
    print_usage ();
  for (int i = 0; i < 3; i++)
    if (! args(i).is_string ())
      error ("h5_rows: argument %d must be a string", i + 1);
  const std::string path = args(0).string_value ();
  quiet_hdf5 quiet;
  if (H5Fis_hdf5 (path.c_str ()) <= 0)
    error ("%s: the file is not an HDF5 file", path.c_str ());
  handle file (H5Fopen (path.c_str (), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (file.id < 0)
    error ("%s: cannot open the HDF5 file (it may be damaged)", path.c_str ());
  dataset x, y;
  open_dataset (file.id, path, args(1).string_value (), x);
  open_dataset (file.id, path, args(2).string_value (), y);
  hsize_t n, d;
  shape (x, y, n, d);
  if (nargs == 3)
    return ovl (static_cast<double> (n));
  const double r0 = args(3).double_value (), nr = args(4).double_value ();
  if (! (r0 >= 0 && nr >= 0 && r0 == (hsize_t) r0 && nr == (hsize_t) nr))
    error ("h5_rows: r0 and nr must be whole numbers >= 0");
  const hsize_t first = (hsize_t) r0;
  const hsize_t count = first >= n ? 0 : std::min ((hsize_t) nr, n - first);
  Matrix xm (count, d);
  ColumnVector ym (count);
  if (count > 0) {
    read_rows (x, first, count, d, xm.fortran_vec ());
    read_rows (y, first, count, 1, ym.fortran_vec ());
  }
  return ovl (xm, ym);
}

/*
%!shared f, a, b
%! f = [tempname() ".h5"];
%! a = reshape (1:12, 6, 2); b = (1:6)' / 8; c = a'; s = [1+2i; 3];
%! save ("-hdf5", f, "a", "b", "c", "s");
%!test
%! assert (__sgp_call__ ("h5_rows", f, "a", "b"), 6);
%! [x, y] = __sgp_call__ ("h5_rows", f, "a", "b", 2, 3);
%! assert (x, a(3:5, :));
%! assert (y, b(3:5));
%! [x, y] = __sgp_call__ ("h5_rows", f, "b/value", "b", 4, 10);
%! assert (x, b(5:6));
%! assert (size (__sgp_call__ ("h5_rows", f, "a", "b", 6, 10)), [0 2]);
%!error <dataset 'c' \(x\) has 2 rows but 'b' \(y\) has 6 values> __sgp_call__ ("h5_rows", f, "c", "b")
%!error <dataset 'a' \(y\) is a 6-by-2 matrix> __sgp_call__ ("h5_rows", f, "b", "a")
%!error <the file has no dataset 'z'> __sgp_call__ ("h5_rows", f, "a", "z")
%!error <dataset 's' is not numeric> __sgp_call__ ("h5_rows", f, "s", "b")
%!error <the file is not an HDF5 file> __sgp_call__ ("h5_rows", tempname (), "a", "b")
%!test
%! ## every message names the file first
%! try
%!   __sgp_call__ ("h5_rows", f, "c", "b");
%!   error ("no error");
%! catch e
%!   assert (strncmp (e.message, [f ": dataset 'c' (x) has 2 rows"], numel (f) + 28));
%! end_try_catch
%!error <Invalid call> __sgp_call__ ("h5_rows", "a")
%!test
%! delete (f);
*/
