#!/usr/bin/env bash
# Duplicated code in the non-test files (issue 22, item 7: at most 24 pairs).
# Runs the `duplicates` tool (`duplicates --help`) with --most 200 --seconds 120
# and prints only the pairs where
#   - neither side is a _test.go file or anything under a testdata/ folder, and
#   - the pair is not wholly inside the import blocks of both files (the Go
#     files are parsed with go/parser to find the import block's lines);
# then, last, the count of those pairs.
#
# The tool lists the pairs most-shared first and at most 200 of them, and the
# tests alone hold more than that, so it is not run over the checkout itself:
# the files git tracks (and the untracked ones it does not ignore) minus the
# tests and testdata are copied, paths kept, into a temporary folder and the
# tool runs there. The filter above is still applied to its rows.
#
# The tool exists on the development machine only: where it is missing the
# script says so and exits 0. It is not part of `make test`.
#
# Usage: scripts/dups.sh
# Environment: GO  the go command (default go)
set -euo pipefail

GO=${GO:-go}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if ! command -v duplicates >/dev/null 2>&1; then
	echo "dups.sh: the duplicates tool is not installed on this machine; nothing checked" >&2
	exit 0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/dups.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree" "$tmp/filter"

# The non-test source files, as the tool would see them in the checkout.
(cd "$root" && git ls-files -z --cached --others --exclude-standard) |
	while IFS= read -r -d '' f; do
		case "$f" in
		*_test.go | testdata/* | */testdata/*) continue ;;
		esac
		[ -f "$root/$f" ] && [ ! -L "$root/$f" ] || continue
		mkdir -p "$tmp/tree/$(dirname "$f")"
		cp "$root/$f" "$tmp/tree/$f"
	done

duplicates --most 200 --seconds 120 --repo "$tmp/tree" >"$tmp/rows"

# The filter: a row `D1 a.go:10-24 ~ b.go:40-54 ...` is kept unless a side is a
# test file or under testdata, or both sides lie wholly inside their file's
# import block. The tool's `incomplete:` and `(+N more pairs)` lines go to
# stderr: the count is then a lower bound.
cat >"$tmp/filter/go.mod" <<'EOF'
module dupsfilter

go 1.22
EOF
cat >"$tmp/filter/main.go" <<'EOF'
package main

import (
	"bufio"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

var row = regexp.MustCompile(`^D\d+ (\S+):(\d+)-(\d+) ~ (\S+):(\d+)-(\d+)`)

type span struct{ from, to int }

var imports = map[string]*span{}

// importBlock returns the lines from the first import declaration to the end
// of the last one, or nil when the file is not Go, has none or does not parse.
func importBlock(root, path string) *span {
	if s, ok := imports[path]; ok {
		return s
	}
	var s *span
	if strings.HasSuffix(path, ".go") {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(root, path), nil, parser.ImportsOnly)
		if err == nil {
			for _, d := range f.Decls {
				from, to := fset.Position(d.Pos()).Line, fset.Position(d.End()).Line
				if s == nil {
					s = &span{from, to}
				} else {
					s.to = to
				}
			}
		}
	}
	imports[path] = s
	return s
}

func testSide(path string) bool {
	return strings.HasSuffix(path, "_test.go") || strings.HasPrefix(path, "testdata/") ||
		strings.Contains(path, "/testdata/")
}

func inImports(root, path, from, to string) bool {
	s := importBlock(root, path)
	a, _ := strconv.Atoi(from)
	b, _ := strconv.Atoi(to)
	return s != nil && a >= s.from && b <= s.to
}

func main() {
	root := os.Args[1]
	n := 0
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		m := row.FindStringSubmatch(line)
		if m == nil {
			if strings.HasPrefix(line, "incomplete:") || strings.HasPrefix(line, "(+") {
				fmt.Fprintln(os.Stderr, "dups.sh: duplicates:", line, "(the count below is a lower bound)")
			}
			continue
		}
		if testSide(m[1]) || testSide(m[4]) {
			continue
		}
		if inImports(root, m[1], m[2], m[3]) && inImports(root, m[4], m[5], m[6]) {
			continue
		}
		n++
		fmt.Println(line)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "dups.sh: reading the rows:", err)
		os.Exit(1)
	}
	fmt.Printf("%d pairs of duplicated code in non-test files (import blocks aside)\n", n)
}
EOF
(cd "$tmp/filter" && GOWORK=off GOFLAGS=-mod=mod "$GO" build -o "$tmp/dupsfilter" .)
"$tmp/dupsfilter" "$tmp/tree" <"$tmp/rows"
