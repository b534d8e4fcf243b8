#!/usr/bin/env bash
# Performance benchmark (README.md, Performance; issue 15): builds bin/orchestrate, generates the
# benchmark repositories with cmd/benchgen (reused when already generated with
# the same parameters) and measures them with cmd/benchrun:
#   - the standard repository at 10,000 and 100,000 tracked files (2,000
#     stories, 300 commits, 300 referenced files): `orchestrate resume
#     --dry-run --json --mode preflight` against `git status --porcelain` and
#     go-git's Worktree.Status(), then how each grew from 10k to 100k files;
#   - the shapes of issue 15, each a repository of its own at 100,000 files
#     (benchgen -shape; written with git fast-import, so git is required):
#     20,000 commits since the interruption, merge-heavy history (2,000
#     merges x 10 side commits), 20,000 stories (`orchestrate status`), 200
#     interrupted workflows x 300 referenced files and 1,000 x 50 (of 4,000
#     files; `orchestrate status`), one workflow referencing 5,000 files,
#     20,000 stories with 500 OpenSpec changes and 500 Kiro specs
#     (`orchestrate status`);
#     and, in `huge` mode only, 1,000,000 files;
# then prints one table of every result (medians; the ratios to git status
# of the warm cache, the cache off and the first run, each measured in the
# same rounds as git status; peak RSS; pass/fail against the targets).
# BENCH_SHAPES="workflows" (a list) measures only those shapes.
#
# Usage: scripts/bench.sh [full|small|shapes|huge]
#   full: standard sizes and the shapes (not 1M); small: the 10,000-file size only;
#   shapes: the shapes only (not 1M); huge: the 1,000,000-file shape only
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
  full) sizes="10000 100000"; shapes="commits merges stories workflows workflows1000 refs specs" ;;
  small) sizes="10000"; shapes="" ;;
  shapes) sizes=""; shapes="commits merges stories workflows workflows1000 refs specs" ;;
  huge) sizes=""; shapes="huge" ;;
  *) echo "usage: scripts/bench.sh [full|small|shapes|huge]" >&2; exit 2 ;;
esac
if [ -n "${BENCH_SHAPES:-}" ]; then shapes="$BENCH_SHAPES"; fi
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
  "$GO" build -tags osusergo,netgo -o "$bin" ./cmd/orchestrate # as make build: linked statically
fi
"$GO" build -o "$dir/bin/benchgen" ./cmd/benchgen
"$GO" build -o "$dir/bin/benchrun" ./cmd/benchrun

status=0
results=()
t0=$(date +%s)
for n in $sizes; do
  repo="$dir/files-$n"
  echo
  echo "== $n tracked files, $stories stories, $commits commits, $refs referenced files"
  "$dir/bin/benchgen" -q -dir "$repo" -files "$n" -stories "$stories" -commits "$commits" -refs "$refs" -seed "$seed"
  "$dir/bin/benchrun" -dir "$repo" -bin "$bin" -runs "$runs" -out "$dir/result-$n.json" ${strict[@]+"${strict[@]}"} || status=1
  results+=("$dir/result-$n.json")
done

for s in $shapes; do
  repo="$dir/shape-$s"
  cmd=resume
  case "$s" in stories|workflows*|specs*) cmd=status ;; esac
  echo
  echo "== shape $s (orchestrate $cmd)"
  "$dir/bin/benchgen" -q -dir "$repo" -shape "$s" -seed "$seed"
  "$dir/bin/benchrun" -dir "$repo" -bin "$bin" -runs "$runs" -cmd "$cmd" -no-go-git -out "$dir/result-shape-$s.json" ${strict[@]+"${strict[@]}"} || status=1
  results+=("$dir/result-shape-$s.json")
done

if [ "$mode" = full ]; then
  echo
  echo "== growth"
  "$dir/bin/benchrun" -growth "$dir/result-10000.json,$dir/result-100000.json" ${strict[@]+"${strict[@]}"} || status=1
fi

if [ "${#results[@]}" -gt 0 ]; then
  echo
  echo "== summary ($(( $(date +%s) - t0 ))s, generation included)"
  (IFS=,; "$dir/bin/benchrun" -table "${results[*]}") || true
fi
exit "$status"
