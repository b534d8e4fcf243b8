#!/usr/bin/env bash
# Runs every go test -fuzz target in the module for a while each.
# Usage: scripts/fuzz.sh [DURATION|COUNTx]   (default 10s; make test runs 3000 inputs each)
# FUZZMINTIME bounds the minimisation of a new input (default 5s).
#
# Each package with fuzz targets is built once (go test -c -fuzz: the same
# coverage-instrumented binary go test -fuzz builds), and its targets run one
# after the other from that binary, in the package's folder, with go test's
# fuzz cache: the same fuzzing as `go test -fuzz=^Target$` per target, without
# a build and link per target and per package without targets.
set -euo pipefail
dur="${1:-10s}"
cd "$(dirname "$0")/.."
gocache="$(go env GOCACHE)"
bindir="$(mktemp -d "${TMPDIR:-/tmp}/orchestrate-fuzz.XXXXXX")"
trap 'rm -rf "$bindir"' EXIT
log="$bindir/fuzz.log"
total=0
while read -r pkg dir; do
  # only packages whose test files declare a fuzz target (the binary's list decides which)
  grep -qs '^func Fuzz' "$dir"/*_test.go || continue
  bin="$bindir/pkg.test"
  go test -c -fuzz=. -o "$bin" "$pkg" >"$log" 2>&1 || { cat "$log"; exit 1; }
  [ -x "$bin" ] || continue
  for target in $(cd "$dir" && "$bin" -test.list '^Fuzz' | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($dur)"
    (cd "$dir" && "$bin" -test.run='^$' -test.fuzz="^${target}\$" -test.fuzztime="$dur" \
      -test.fuzzminimizetime="${FUZZMINTIME:-5s}" -test.fuzzcachedir="$gocache/fuzz/$pkg" \
      -test.paniconexit0 -test.timeout=10m) >"$log" 2>&1 || { cat "$log"; echo "FAIL $pkg $target"; exit 1; }
    total=$((total+1))
  done
  rm -f "$bin"
done < <(go list -f '{{.ImportPath}} {{.Dir}}' ./...)
# (go list runs in a process substitution: its failure would only show as no targets)
[ "$total" -gt 0 ] || { echo "fuzz: no fuzz targets found" >&2; exit 1; }
echo "fuzz: $total targets, $dur each, no failures"
