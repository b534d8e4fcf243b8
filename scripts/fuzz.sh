#!/usr/bin/env bash
# Runs every go test -fuzz target in the module for a while each.
# Usage: scripts/fuzz.sh [DURATION]   (default 10s; make test uses a short smoke run)
set -euo pipefail
dur="${1:-10s}"
cd "$(dirname "$0")/.."
total=0
for pkg in $(go list ./...); do
  for target in $(go test -list '^Fuzz' "$pkg" 2>/dev/null | grep '^Fuzz' || true); do
    echo "fuzz $pkg $target ($dur)"
    go test -run='^$' -fuzz="^${target}\$" -fuzztime="$dur" "$pkg" >/tmp/orchestrate-fuzz.log 2>&1 || { cat /tmp/orchestrate-fuzz.log; exit 1; }
    total=$((total+1))
  done
done
echo "fuzz: $total targets, $dur each, no failures"
