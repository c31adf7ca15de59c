#!/bin/sh
# tools/check_octave.sh -- builds the Octave package, installs it into a
# temporary prefix and runs the Octave tests against that installation.
#
# Run from the repository root:  sh tools/check_octave.sh
# Environment: OCTAVE (default octave-cli), KEEP_OCTAVE_PREFIX=1 keeps the
# temporary prefix (its path is printed) for inspection.
# Nothing is written outside build/ and the temporary folder: the install uses
# its own package lists and prefix (tests/octave/use_prefix.m) and a temporary
# HOME, so the user's ~/.local/share/octave and ~/.octave* are not touched.
# Exit status: 0 when every test passed, 1 otherwise.
set -eu

root=$(pwd)
if [ ! -f "$root/tests/octave/run_all.m" ] || [ ! -f "$root/tools/octave_pkg.sh" ]; then
  echo "check_octave.sh: run from the repository root" >&2
  exit 1
fi
OCTAVE=${OCTAVE:-octave-cli}
if ! command -v "$OCTAVE" >/dev/null 2>&1; then
  echo "check_octave.sh: $OCTAVE not found (install octave and liboctave-dev)" >&2
  exit 1
fi

tarball=$(sh "$root/tools/octave_pkg.sh" | tail -n 1)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/scalegp-octave.XXXXXX")
cleanup() {
  if [ "${KEEP_OCTAVE_PREFIX:-0}" = 1 ]; then
    echo "check_octave.sh: kept $tmp"
  else
    rm -rf "$tmp"
  fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM
mkdir -p "$tmp/prefix" "$tmp/home"

# Install (compiles the oct-files; pkg runs make with --jobs).
echo "check_octave.sh: installing $tarball into $tmp/prefix"
start=$(date +%s)
if ! HOME="$tmp/home" TMPDIR="$tmp" "$OCTAVE" --no-gui --norc --no-history --eval "
    addpath ('$root/tests/octave');
    use_prefix ('$tmp/prefix');
    pkg ('install', '-local', '$tarball');" >"$tmp/install.log" 2>&1; then
  cat "$tmp/install.log"
  echo "check_octave.sh: pkg install failed" >&2
  echo "octave: 0 passed, 1 failed"
  exit 1
fi
echo "check_octave.sh: installed in $(( $(date +%s) - start )) s"

# Test against the installed package.
status=0
HOME="$tmp/home" TMPDIR="$tmp" SCALEGP_OCT_PREFIX="$tmp/prefix" \
  "$OCTAVE" --no-gui --norc --no-history "$root/tests/octave/run_all.m" || status=$?
exit "$status"
