#!/bin/sh
# tools/octave_pkg.sh -- builds the Octave package tarball of scalegp.
#
# Run from the repository root:  sh tools/octave_pkg.sh
# Stages build/octave/scalegp/ from bindings_octave/ plus a copy of core/ in
# src/core/, takes the version from the R DESCRIPTION's `Version:` line (when
# ./DESCRIPTION exists; otherwise the one in bindings_octave/DESCRIPTION), and
# writes build/scalegp-<version>.tar.gz, whose path is printed last.
# Install in Octave with:  pkg install build/scalegp-<version>.tar.gz
set -eu

root=$(pwd)
if [ ! -d "$root/bindings_octave" ] || [ ! -f "$root/core/core.mk" ]; then
  echo "octave_pkg.sh: run from the repository root (bindings_octave/ and core/ not found)" >&2
  exit 1
fi

version=
if [ -f "$root/DESCRIPTION" ]; then
  version=$(sed -n 's/^Version:[[:space:]]*//p' "$root/DESCRIPTION" | head -n 1 | tr -d '[:space:]')
fi
if [ -z "$version" ]; then
  version=$(sed -n 's/^Version:[[:space:]]*//p' "$root/bindings_octave/DESCRIPTION" | head -n 1 | tr -d '[:space:]')
fi
# R allows 1.2-3 (the same as 1.2.3); Octave wants dots only.
version=$(printf '%s' "$version" | tr '-' '.')
case $version in
  ''|*[!0-9.]*|.*|*.) echo "octave_pkg.sh: bad version '$version' (Octave wants digits and dots)" >&2; exit 1 ;;
esac

build="$root/build"
stage="$build/octave/scalegp"
tarball="$build/scalegp-$version.tar.gz"
rm -rf "$stage"
mkdir -p "$stage/inst" "$stage/src"

# Metadata; the version (and date) in DESCRIPTION are substituted.
today=$(date +%Y-%m-%d)
sed -e "s/^Version:.*/Version: $version/" -e "s/^Date:.*/Date: $today/" \
  "$root/bindings_octave/DESCRIPTION" > "$stage/DESCRIPTION"
cp "$root/bindings_octave/INDEX" "$root/bindings_octave/COPYING" "$stage/"

# The .m front (including private/ helpers) and the oct-file sources.
cp -R "$root/bindings_octave/inst/." "$stage/inst/"
for f in "$root"/bindings_octave/src/Makefile "$root"/bindings_octave/src/*.cc \
         "$root"/bindings_octave/src/*.h; do
  [ -f "$f" ] && cp "$f" "$stage/src/"
done

# The C core with all its folders, without build products.
cp -R "$root/core" "$stage/src/core"
# The optional CUDA backend (compiled only where nvcc exists).
cp -R "$root/cuda" "$stage/src/cuda"
find "$stage" \( -name '*.o' -o -name '*.oct' -o -name '*.so' -o -name '*.a' \
  -o -name '*.d' -o -name '*~' -o -name '.*.swp' \) -exec rm -f {} +
rm -rf "$stage/src/obj"

rm -f "$tarball"
(cd "$build/octave" && tar -czf "$tarball" scalegp)
echo "$tarball"
