#!/usr/bin/env bash
# Runs every go test -fuzz target in the module for a while each.
# Usage: scripts/fuzz.sh [DURATION|COUNTx]   (default 10s; make test runs 3000 inputs each)
# FUZZMINTIME bounds the minimisation of a new input (default 5s).
# FUZZBUILDJOBS is how many packages' fuzz binaries build at once (default:
# the number of processors).
#
# Each package with fuzz targets is built once (go test -c -fuzz: the same
# coverage-instrumented binary go test -fuzz builds), and its targets run one
# after the other from that binary, in the package's folder, with go test's
# fuzz cache: the same fuzzing as `go test -fuzz=^Target$` per target, without
# a build and link per target and per package without targets. The builds
# come first, several at once (go test refuses -fuzz with several packages,
# and one package's compile and link keep about one processor busy); the
# targets then run one at a time, each with go test's fuzz workers (one per
# processor).
set -euo pipefail
dur="${1:-10s}"
cd "$(dirname "$0")/.."
gocache="$(go env GOCACHE)"
bindir="$(mktemp -d "${TMPDIR:-/tmp}/orchestrate-fuzz.XXXXXX")"
trap 'rm -rf "$bindir"' EXIT
log="$bindir/fuzz.log"
jobs="${FUZZBUILDJOBS:-$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)}"

# the packages whose test files declare a fuzz target (the binary's list
# decides which targets), in go list's order; go list runs first, on its
# own, so that its failure fails the script
list="$(go list -f '{{.ImportPath}} {{.Dir}}' ./...)"
pkgs="$bindir/pkgs"
: >"$pkgs"
n=0
while read -r pkg dir; do
  grep -qs '^func Fuzz' "$dir"/*_test.go || continue
  n=$((n+1))
  echo "$n $pkg $dir" >>"$pkgs"
done <<<"$list"
[ "$n" -gt 0 ] || { echo "fuzz: no fuzz targets found" >&2; exit 1; }

# build: bin/N.test and its log bin/N.log per package, $jobs at once
build() { go test -c -fuzz=. -o "$1/$2.test" "$3" >"$1/$2.log" 2>&1 || { echo "$2" >>"$1/failed"; }; }
export -f build
cut -d' ' -f1,2 "$pkgs" | xargs -P "$jobs" -L 1 bash -c 'build "$0" "$1" "$2"' "$bindir"
if [ -s "$bindir/failed" ]; then
  for i in $(sort -n "$bindir/failed"); do cat "$bindir/$i.log"; done
  echo "fuzz: a build failed" >&2
  exit 1
fi

total=0
while read -r i pkg dir; do
  bin="$bindir/$i.test"
  [ -x "$bin" ] || continue
  for target in $(cd "$dir" && "$bin" -test.list '^Fuzz' | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($dur)"
    (cd "$dir" && "$bin" -test.run='^$' -test.fuzz="^${target}\$" -test.fuzztime="$dur" \
      -test.fuzzminimizetime="${FUZZMINTIME:-5s}" -test.fuzzcachedir="$gocache/fuzz/$pkg" \
      -test.paniconexit0 -test.timeout=10m) >"$log" 2>&1 || { cat "$log"; echo "FAIL $pkg $target"; exit 1; }
    total=$((total+1))
  done
  rm -f "$bin"
done <"$pkgs"
[ "$total" -gt 0 ] || { echo "fuzz: no fuzz targets found" >&2; exit 1; }
echo "fuzz: $total targets, $dur each, no failures"
