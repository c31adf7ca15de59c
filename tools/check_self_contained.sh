#!/bin/sh
# The sources cite only what the repository holds: papers (authors and title),
# docs/ pages, ARCHITECTURE.md. A citation of a document outside it or of an
# issue number is a hit: a path under shared, a spec's section sign, a section
# of some <name>.md, an issue and its number (the pattern below).
# Run by `make check` (target check-self-contained) from the repository root.
# Expectation: no hits in any source folder, core/ and cuda/ included.
# Folders that are absent (an unpacked package, R CMD check) are skipped; with
# none present the check says so and passes. Exit 1 lists every hit.
# (written in pieces so that this file does not match itself)
pattern='shared''/|spec'' §|[Ii]ssue'' [0-9]|\.md'' §'
cd "$(dirname "$0")/.." || exit 2
paths=
for p in core cuda src R bindings_r bindings_octave tests inst tools ARCHITECTURE.md Makefile; do
  [ -e "$p" ] && paths="$paths $p"
done
if [ -z "$paths" ]; then
  echo "check_self_contained: no source folders here; skipped"
  exit 0
fi
# bin/, build/ and obj/ hold build outputs
# shellcheck disable=SC2086
hits=$(grep -rEnI "$pattern" $paths --exclude-dir=bin --exclude-dir=build \
         --exclude-dir=obj)
if [ -n "$hits" ]; then
  printf '%s\n' "$hits"
  echo "check_self_contained: $(printf '%s\n' "$hits" | wc -l) citations of documents" \
       "outside the repository or of issue numbers (cite a paper or a docs/ page)" >&2
  exit 1
fi
echo "check_self_contained: no citations outside the repository in$paths"
