package story

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// The parser's differential test: every story input the repository holds
// (this package's testdata, the .md files of the testscript archives, the
// fuzz corpus, a sample of the bench's stories, generated stories) is
// parsed in several ways, and a digest of each result is compared with
// testdata/parsegolden.txt, written by the parser before its single-pass
// rewrite. Any change in what the parser returns — a field, a finding, a
// section hash, a trimmed section — changes a digest.
//
// -update-parse-golden rewrites the file (only for a deliberate change of
// the parser's results). -storydigest-dir D -storydigest-out F writes the
// digests of every .md file below D to F, to compare two parsers over a
// tree that is not committed (the bench's 20,000 stories).

var (
	updateParseGolden = flag.Bool("update-parse-golden", false, "rewrite testdata/parsegolden.txt")
	storyDigestDir    = flag.String("storydigest-dir", "", "digest every .md file below this folder")
	storyDigestOut    = flag.String("storydigest-out", "", "where -storydigest-dir writes its digests")
)

// parseGoldenExtra is the configured status spellings of some variants.
var parseGoldenExtra = map[string][]string{"Done": {"shipped", "✅ livré en prod"}, "in_progress": {"doing"}, "InReview": {"ready"}}

// storyInput is one input of the differential test.
type storyInput struct {
	name string // unique, stable
	path string // the repository path the parser is given
	data []byte
}

// storyDigests parses in with every variant and returns one line per
// variant: name, variant, digest.
func storyDigests(in storyInput) []string {
	var out []string
	// an input is named with its content's digest: an edited script's
	// story is a new input, not a changed parse
	id := sha256.Sum256(in.data)
	add := func(variant string, p storyParsed) {
		st := *p.story
		h := sha256.Sum256(fmt.Appendf(nil, "%#v|%v|%v|%v", st, p.hasID, p.hasStatus, p.hasSections))
		out = append(out, fmt.Sprintf("%s#%s %s %s", in.name, hex.EncodeToString(id[:4]), variant, hex.EncodeToString(h[:12])))
	}
	crlf := bytes.ReplaceAll(in.data, []byte("\n"), []byte("\r\n"))
	add("plain", storyParse(in.path, in.data, nil, false))
	add("extra", storyParse(in.path, in.data, parseGoldenExtra, false))
	add("scan", storyParse(in.path, bytes.Clone(in.data), nil, true))
	add("scan-extra", storyParse(in.path, bytes.Clone(in.data), parseGoldenExtra, true))
	add("scan-crlf", storyParse(in.path, crlf, parseGoldenExtra, true))
	// the same state reused, as a scan's worker reuses it
	var s storyState
	s.parse(in.path, bytes.Clone(in.data), nil, true)
	add("reused", s.parse(in.path, bytes.Clone(in.data), parseGoldenExtra, true))
	return out
}

// storyInputs gathers the differential test's inputs.
func storyInputs(t *testing.T) []storyInput {
	t.Helper()
	var ins []storyInput
	// this package's testdata
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(p)
		ins = append(ins, storyInput{name: rel, path: "docs/stories/" + path.Base(rel), data: data})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// the .md files of the testscript archives
	archives, err := filepath.Glob("../../testdata/script/*/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(archives)
	for _, a := range archives {
		ar, err := txtar.ParseFile(a)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, ".md") {
				name := strings.TrimPrefix(filepath.ToSlash(a), "../../") + ":" + f.Name
				ins = append(ins, storyInput{name: name, path: f.Name, data: f.Data})
			}
		}
	}
	// the fuzz corpus
	corpus, err := filepath.Glob("testdata/fuzz/FuzzParseStory/*")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(corpus)
	for _, c := range corpus {
		p, data := readFuzzStory(t, c)
		ins = append(ins, storyInput{name: filepath.ToSlash(c), path: p, data: data})
	}
	// generated stories
	for i, data := range generatedStories(600) {
		ins = append(ins, storyInput{name: fmt.Sprintf("gen/%03d", i), path: fmt.Sprintf("docs/stories/%d.%d.gen.md", i%7, i), data: data})
	}
	return ins
}

// readFuzzStory reads a FuzzParseStory corpus file: a path and the data.
func readFuzzStory(t *testing.T, file string) (string, []byte) {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, l := range strings.Split(string(raw), "\n")[1:] {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		i := strings.IndexByte(l, '(')
		v, err := strconv.Unquote(strings.TrimSuffix(l[i+1:], ")"))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		vals = append(vals, v)
	}
	if len(vals) != 2 {
		t.Fatalf("%s: %d values", file, len(vals))
	}
	return vals[0], []byte(vals[1])
}

// storyFragments are the lines generated stories are made of: every
// construct the line parser tells apart, well and badly formed.
var storyFragments = []string{
	"# Story 4.2: Login", "# 7.1 - Title", "# Story 9.9: Other", "#NoSpace", "####### seven", "   ## indented heading ##",
	"## Status", "## Story Status", "### Status", "## 📋 STORY STATUS ✅ COMPLETE", "## Status: Done", "## Status Report", "## Status In Progress",
	"## Current Status", "## Statut", "## Estado: En curso", "## **Status:**", "## Status — Ready", "## Status ##",
	"**Status:** Done", "**Status:** In Progress", "**Status**: InReview", "Status: Ready for Review", "- Status: Blocked", "> Status: Draft",
	"**Status:** ✅ **COMPLETED** - 2026-10-01", "**Status:** Done - 100% Complete", "**Status:** Complete (Backend Implementation)",
	"**Status:**", "Status:", "**Statut :** Terminé", "**Estado:** Hecho", "Status: shipped", "Status: doing", "status: \"done\"",
	"| Status | Done |", "| **Status** | In Progress |", "|---|---|", "| Field | Value |", "| a | b | c |", "| Status | --- |",
	"**Executor:** @dev (Dex)", "**Quality Gate:** @qa", "**Epic:** 12 **Core**", "- **Executor:** @sm.", "**Dependencies:** Story 2.3",
	"**Dependencies:**", "Depends on **Story 1.1**", "- Story 1.9", "  - nested Story 2.0", "\t- tabbed", "- [x] task (AC: 1)", "- [ ] todo",
	"## Story", "## User Story", "## Acceptance Criteria", "## Acceptance Criteria (MVP Scope)", "## 3. Scope", "## Dependencies",
	"## File List", "## Files List", "### File List", "## Change Log", "## Changelog", "## Dev Notes", "## Tasks / Subtasks", "## Tasks",
	"## Dev Agent Record", "### Agent Model Used", "### Completion Notes", "### QA Results", "## QA Results", "### Debug Log References",
	"## Metadata", "## Overview", "## Testing", "### Dependencies", "## Revision History",
	"- `src/a.ts`", "- src/b/c.go - the handler", "* /packages/app/x.ts", "- ../escape.go", "- `/etc/passwd`", "| `src/t.go` | new |",
	"| File | Change |", "- **API:**", "- `src/dir/`", "1. src/numbered.go",
	"```", "```go", "~~~", "````", "```x`y", "    ```", "---", "...", "", "", "", "   ", "  trailing  ", "text with ** emphasis **",
	"Plain body line.", "**As a** user, **I want** x, **so that** y.", "Status words Done in a sentence", "caf\u00e9 \u00fcber na\u00efve",
	"\u200b**Status:**\u200d Done", "\ufeff# Story 1.1: BOM", "**Status:** 🚧 In Progress", "**Status:** ~~Done~~", "trailing\r",
	"| 2026-10-01 | @sm | Drafted |", "**Status:** Ready | **Epic:** 3", "> **Status:** Approved | owner",
}

// generatedStories makes n stories of storyFragments with a fixed seed:
// the same stories on every run.
func generatedStories(n int) [][]byte {
	rng := rand.New(rand.NewPCG(25, 2026))
	out := make([][]byte, n)
	for i := range out {
		var b bytes.Buffer
		if rng.IntN(8) == 0 {
			b.WriteString("---\nstatus: " + []string{"done", "in progress", "\"Ready\"", ""}[rng.IntN(4)] + "\ntitle: x\n---\n")
		}
		lines := 5 + rng.IntN(60)
		for j := 0; j < lines; j++ {
			b.WriteString(storyFragments[rng.IntN(len(storyFragments))])
			if rng.IntN(40) > 0 || j < lines-1 {
				b.WriteByte('\n')
			}
		}
		out[i] = b.Bytes()
	}
	return out
}

const parseGoldenFile = "testdata/parsegolden.txt"

// TestParseGolden is the differential test (see above).
func TestParseGolden(t *testing.T) {
	var got []string
	for _, in := range storyInputs(t) {
		got = append(got, storyDigests(in)...)
	}
	if *updateParseGolden {
		if err := os.WriteFile(parseGoldenFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(parseGoldenFile)
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
	if len(want) < 5000 {
		t.Fatalf("%s has %d lines: too few inputs", parseGoldenFile, len(want))
	}
	// by input (name, content digest) and parse: an input added since the
	// file was written has nothing to compare with, one removed is gone
	recorded := make(map[string]string, len(want))
	for _, l := range want {
		if i := strings.LastIndexByte(l, ' '); i > 0 {
			recorded[l[:i]] = l[i+1:]
		}
	}
	diffs, compared := 0, 0
	for _, l := range got {
		i := strings.LastIndexByte(l, ' ')
		w, ok := recorded[l[:i]]
		if !ok {
			continue
		}
		compared++
		if w != l[i+1:] {
			if diffs++; diffs <= 20 {
				t.Errorf("%s: digest %s, recorded %s", l[:i], l[i+1:], w)
			}
		}
	}
	if diffs > 0 {
		t.Errorf("%d of %d digests differ", diffs, compared)
	}
	if compared < len(want)*9/10 {
		t.Errorf("only %d of the %d recorded digests were compared: the inputs moved (-update-parse-golden rewrites the file, but only with the parser they were recorded with)", compared, len(want))
	}
}

// TestStoryDigestDir writes the digests of a folder's stories (see
// -storydigest-dir); it is skipped without it.
func TestStoryDigestDir(t *testing.T) {
	if *storyDigestDir == "" || *storyDigestOut == "" {
		t.Skip("needs -storydigest-dir and -storydigest-out")
	}
	out, err := os.Create(*storyDigestOut)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(out)
	n := 0
	err = filepath.WalkDir(*storyDigestDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(*storyDigestDir, p)
		for _, l := range storyDigests(storyInput{name: rel, path: filepath.ToSlash(rel), data: data}) {
			fmt.Fprintln(w, l)
		}
		n++
		return nil
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = out.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d files", n)
}
