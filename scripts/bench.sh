#!/usr/bin/env bash
# Performance benchmark (DESIGN §11): builds bin/orchestrate, generates the
# benchmark repositories with cmd/benchgen (10,000 and 100,000 tracked files,
# 2,000 stories, 300 commits, 300 referenced files; reused when already
# generated with the same parameters) and measures, with cmd/benchrun,
# `orchestrate resume --dry-run --json --mode preflight` against
# `git status --porcelain` and go-git's Worktree.Status(), then prints how
# each grew from 10k to 100k files.
#
# Usage: scripts/bench.sh [full|small]     (small: the 10,000-file size only)
# Environment:
#   BENCH_DIR      where the repositories and results go (default ${TMPDIR:-/tmp}/orchestrate-bench)
#   BENCH_BIN      an orchestrate binary to measure (default: build bin/orchestrate)
#   BENCH_RUNS     measured runs of each command (default 7)
#   BENCH_STORIES, BENCH_COMMITS, BENCH_REFS, BENCH_SEED   benchgen parameters (2000, 300, 300, 1)
#   BENCH_STRICT=1 exit 1 when a target is missed
#   GO             the go command (default go)
set -euo pipefail
cd "$(dirname "$0")/.."

mode="${1:-full}"
case "$mode" in
  full) sizes="10000 100000" ;;
  small) sizes="10000" ;;
  *) echo "usage: scripts/bench.sh [full|small]" >&2; exit 2 ;;
esac
GO="${GO:-go}"
dir="${BENCH_DIR:-${TMPDIR:-/tmp}/orchestrate-bench}"
runs="${BENCH_RUNS:-7}"
stories="${BENCH_STORIES:-2000}"
commits="${BENCH_COMMITS:-300}"
refs="${BENCH_REFS:-300}"
seed="${BENCH_SEED:-1}"
strict=()
if [ "${BENCH_STRICT:-}" = 1 ]; then strict=(-strict); fi

mkdir -p "$dir/bin"
bin="${BENCH_BIN:-}"
if [ -z "$bin" ]; then
  bin=bin/orchestrate
  echo "bench: building $bin"
  "$GO" build -o "$bin" ./cmd/orchestrate
fi
"$GO" build -o "$dir/bin/benchgen" ./cmd/benchgen
"$GO" build -o "$dir/bin/benchrun" ./cmd/benchrun

status=0
for n in $sizes; do
  repo="$dir/files-$n"
  echo
  echo "== $n tracked files, $stories stories, $commits commits, $refs referenced files"
  "$dir/bin/benchgen" -q -dir "$repo" -files "$n" -stories "$stories" -commits "$commits" -refs "$refs" -seed "$seed"
  "$dir/bin/benchrun" -dir "$repo" -bin "$bin" -runs "$runs" -out "$dir/result-$n.json" ${strict[@]+"${strict[@]}"} || status=1
done

if [ "$mode" = full ]; then
  echo
  echo "== growth"
  "$dir/bin/benchrun" -growth "$dir/result-10000.json,$dir/result-100000.json" ${strict[@]+"${strict[@]}"} || status=1
fi
exit "$status"
