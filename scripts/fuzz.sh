#!/usr/bin/env bash
# Runs every go test -fuzz target in the module for a while each.
# Usage: scripts/fuzz.sh [DURATION|COUNTx]   (default 10s; make test runs 3000 inputs each)
# FUZZMINTIME bounds the minimisation of a new input (default 5s).
set -euo pipefail
dur="${1:-10s}"
cd "$(dirname "$0")/.."
total=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($dur)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$dur" -fuzzminimizetime="${FUZZMINTIME:-5s}" "$pkg" >/tmp/orchestrate-fuzz.log 2>&1 || { cat /tmp/orchestrate-fuzz.log; exit 1; }
    total=$((total+1))
  done
done
echo "fuzz: $total targets, $dur each, no failures"
