#!/usr/bin/env bash
# Duplicated code in the non-test files (issue 22, item 7: at most 24 pairs).
# Runs the `duplicates` tool (`duplicates --help`) with --most 200 --seconds 120
# and prints only the pairs where
#   - neither side is a _test.go file or anything under a testdata/ folder, and
#   - the pair stands without the import blocks: it is not wholly inside the
#     import blocks of both files, nor does a side that overlaps its file's
#     import block keep fewer than 6 lines of code (the tool's least run; not
#     blank, comment or lone punctuation) outside it. The tool passes over
#     single import lines but not the lines of an import block, which are all
#     alike by shape, so a run of imports plus the few declarations after
#     them is listed as a pair. The Go files are parsed with go/parser to
#     find the import block's lines;
# then, last, the count of those pairs (and, on stderr, how many were left
# aside as import blocks).
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
# test file or under testdata, or the import blocks carry it (above). The tool's `incomplete:` and `(+N more pairs)` lines go to
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

// minLines is the tool's least run (its --min-lines default).
const minLines = 6

var row = regexp.MustCompile(`^D\d+ (\S+):(\d+)-(\d+) ~ (\S+):(\d+)-(\d+)`)

type span struct{ from, to int }

type file struct {
	imports *span  // nil: none (or not Go, or does not parse)
	code    []bool // code[i]: line i+1 is code (not blank, comment or lone punctuation)
}

var files = map[string]*file{}

// load parses path's import block and classifies its lines.
func load(root, path string) *file {
	if f, ok := files[path]; ok {
		return f
	}
	f := &file{}
	files[path] = f
	data, err := os.ReadFile(filepath.Join(root, path))
	if err != nil || !strings.HasSuffix(path, ".go") {
		return f
	}
	fset := token.NewFileSet()
	if ast, err := parser.ParseFile(fset, "", data, parser.ImportsOnly); err == nil {
		for _, d := range ast.Decls {
			from, to := fset.Position(d.Pos()).Line, fset.Position(d.End()).Line
			if f.imports == nil {
				f.imports = &span{from, to}
			} else {
				f.imports.to = to
			}
		}
	}
	inComment := false
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		isCode := false
		for l != "" {
			if inComment {
				i := strings.Index(l, "*/")
				if i < 0 {
					break
				}
				inComment, l = false, strings.TrimSpace(l[i+2:])
				continue
			}
			if strings.HasPrefix(l, "//") {
				break
			}
			if strings.HasPrefix(l, "/*") {
				inComment, l = true, l[2:]
				continue
			}
			isCode = strings.Trim(l, "(){}[],;") != ""
			break
		}
		f.code = append(f.code, isCode)
	}
	return f
}

func testSide(path string) bool {
	return strings.HasSuffix(path, "_test.go") || strings.HasPrefix(path, "testdata/") ||
		strings.Contains(path, "/testdata/")
}

// side reports whether lines from-to of path lie wholly inside its import
// block, and whether the import block carries them: they overlap it and
// fewer than minLines lines of code stand outside it.
func side(root, path, from, to string) (inside, carried bool) {
	f := load(root, path)
	a, _ := strconv.Atoi(from)
	b, _ := strconv.Atoi(to)
	s := f.imports
	if s == nil || b < s.from || a > s.to {
		return false, false
	}
	if a >= s.from && b <= s.to {
		return true, true
	}
	n := 0
	for i := a; i <= b && i <= len(f.code); i++ {
		if (i < s.from || i > s.to) && f.code[i-1] {
			n++
		}
	}
	return false, n < minLines
}

func main() {
	root := os.Args[1]
	n, aside := 0, 0
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
		in1, carried1 := side(root, m[1], m[2], m[3])
		in2, carried2 := side(root, m[4], m[5], m[6])
		if (in1 && in2) || carried1 || carried2 {
			aside++
			continue
		}
		n++
		fmt.Println(line)
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "dups.sh: reading the rows:", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "dups.sh: %d pairs left aside as import blocks\n", aside)
	fmt.Printf("%d pairs of duplicated code in non-test files (import blocks aside)\n", n)
}
EOF
(cd "$tmp/filter" && GOWORK=off GOFLAGS=-mod=mod "$GO" build -o "$tmp/dupsfilter" .)
"$tmp/dupsfilter" "$tmp/tree" <"$tmp/rows"
