// Package refpath cleans the file paths state files and stories reference,
// the same way everywhere, without judging them: validation reports what is
// unsafe.
package refpath

import (
	"path"
	"slices"
	"strings"
)

// Clean is the one rule for a path a state file or a story references: it
// trims the path, turns backslashes into slashes and cleans it ("./a//b"
// and "a/x/../b" become "a/b"; "." becomes ""), repeating until the result
// is stable. safe is false for a path validation must refuse: absolute, a
// drive letter, leaving the repository, or holding control characters (the
// path is cleaned all the same, so two spellings of one unsafe path are one
// reference). Clean never judges whether the file exists.
//
// The formats differ only in what they do around it: a leading "/" in a
// story's File List means the repository root (the story format strips it
// before calling Clean and ignores unsafe paths); epic and QA-loop states
// show an unsafe path as written (KeepUnsafe).
func Clean(p string) (clean string, safe bool) {
	switch cleanScan(p) {
	case scanClean:
		// alreadyClean rules out "..", "../" and "."; no control byte
		return p, p[0] != '/' && (len(p) < 2 || p[1] != ':')
	case scanCleanCtl:
		return p, false // a NUL, CR or LF inside
	}
	p = cleanSlow(p)
	if p == "." || p == "" {
		return "", true
	}
	unsafe := strings.ContainsAny(p, "\x00\r\n") || strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':') ||
		p == ".." || strings.HasPrefix(p, "../")
	return p, !unsafe
}

// What cleanScan finds.
const (
	scanDirty    = iota // cleaning may change the path (or it is not ASCII)
	scanClean           // cleaning leaves it as it is; no NUL, CR or LF
	scanCleanCtl        // cleaning leaves it as it is; it holds a NUL, CR or LF
)

// cleanScan tells, in one pass and for ASCII paths only, whether cleaning
// leaves p as it is (alreadyClean) and whether p holds one of the control
// bytes Clean finds unsafe.
func cleanScan(p string) int {
	n := len(p)
	if n == 0 || isSpaceByte(p[0]) || isSpaceByte(p[n-1]) || p[n-1] == '/' {
		return scanDirty
	}
	// each segment is looked at from the "/" before it; the first from
	// here (a leading "/" is the root's empty segment, the one allowed)
	if dotSegment(p, 0) {
		return scanDirty
	}
	ctl := false
	for i := 0; i < n; i++ {
		k := byteKind[p[i]]
		if k == 0 {
			continue
		}
		switch k {
		case kindSlash: // p[i+1] exists: p does not end with "/"
			if p[i+1] == '/' || dotSegment(p, i+1) {
				return scanDirty
			}
		case kindCtl:
			ctl = true
		default:
			return scanDirty
		}
	}
	if ctl {
		return scanCleanCtl
	}
	return scanClean
}

// dotSegment reports whether the segment of p starting at i is "." or "..".
func dotSegment(p string, i int) bool {
	if i >= len(p) || p[i] != '.' {
		return false
	}
	if i+1 == len(p) || p[i+1] == '/' {
		return true
	}
	return p[i+1] == '.' && (i+2 == len(p) || p[i+2] == '/')
}

// The kinds of byte cleanScan tells apart; 0 is any other.
const (
	kindSlash = 1 + iota // '/'
	kindCtl              // NUL, CR, LF: clean, but unsafe
	kindDirty            // a backslash or a non-ASCII byte: the slow way
)

// byteKind is each byte's kind for cleanScan.
var byteKind = func() (t [256]uint8) {
	t['/'] = kindSlash
	t[0], t['\r'], t['\n'] = kindCtl, kindCtl, kindCtl
	t['\\'] = kindDirty
	for c := 0x80; c < 0x100; c++ {
		t[c] = kindDirty
	}
	return t
}()

// alreadyClean reports, in one pass and for ASCII paths only, whether
// cleaning leaves p as it is: no space around it, no backslash, no empty,
// "." or ".." segment, no trailing "/". Every path a state file lists
// twice or a story's File List holds is usually so (60,000 references of
// 200 workflows).
func alreadyClean(p string) bool { return cleanScan(p) != scanDirty }

// isSpaceByte reports whether the ASCII byte c is white space
// (strings.TrimSpace's ASCII set).
func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// cleanSlow is Clean's cleaning: trimmed, backslashes turned into slashes,
// path.Clean, repeated until stable.
func cleanSlow(p string) string {
	p = strings.ReplaceAll(strings.TrimSpace(p), `\`, "/")
	for p != "" { // cleaning can expose spaces ("a /" -> "a "): repeat until stable
		next := strings.TrimSpace(path.Clean(p))
		if next == p {
			break
		}
		p = next
	}
	return p
}

// CleanPath is Clean without the verdict.
func CleanPath(p string) string {
	c, _ := Clean(p)
	return c
}

// KeepUnsafe is Clean for a format that shows an unsafe path the way the
// file wrote it: a path Clean finds unsafe, or one written with
// backslashes, is returned trimmed but otherwise verbatim, so that the
// finding validation reports names it as written.
func KeepUnsafe(p string) string {
	t := strings.TrimSpace(p)
	if strings.ContainsRune(t, '\\') {
		return t
	}
	if c, safe := Clean(t); safe {
		return c
	}
	return t
}

// LooksLikePath tells a file path from a description ("validated story",
// a URL): on one line, not a URL, and IsPath.
func LooksLikePath(s string) bool {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > 1024 || strings.ContainsAny(s, "\n\r") || strings.Contains(s, "://") {
		return false
	}
	if strings.ContainsAny(s, "/\\") && strings.Contains(s, ": ") {
		return false // "see: docs/x" is a sentence
	}
	return IsPath(s)
}

// IsPath is the one rule telling a file reference from an identifier or a
// piece of code: p is a path when it names a folder ("src/a.go",
// "build/Makefile", "docs/") or its name has a known file extension
// ("README.md", ".env.example") or is a dot file (".gitignore"), and it is
// not code. So "item.notes", "foo.bar.baz" (identifier chains with no known
// extension), "json", "obj.method()" and "pkg.Func(x)" are not paths. A call
// is a name with "(" after an identifier character in the last element; a
// folder in parentheses ("app/(auth)/page.tsx") is not a call. Spaces make
// a path only when it has a folder.
func IsPath(p string) bool {
	p = strings.TrimSpace(strings.ReplaceAll(p, `\`, "/"))
	if p == "" || len(p) > 4096 {
		return false
	}
	base := p
	if i := strings.LastIndexByte(strings.TrimRight(p, "/"), '/'); i >= 0 {
		base = strings.TrimRight(p, "/")[i+1:]
	}
	if isCall(base) {
		return false
	}
	if strings.Contains(p, "/") {
		return strings.Trim(p, "/. ") != ""
	}
	if strings.ContainsAny(p, " \t") {
		return false
	}
	if strings.HasPrefix(p, ".") && len(p) > 1 && !strings.Contains(p[1:], ".") {
		return isWord(p[1:]) // a dot file: ".gitignore", ".env"
	}
	return KnownExt(path.Ext(p))
}

// isCall reports whether name reads as a function or method call:
// "method()", "obj.method(x)".
func isCall(name string) bool {
	i := strings.IndexByte(name, '(')
	if i <= 0 {
		return false
	}
	c := name[i-1]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// isWord reports whether s is letters, digits, '-' and '_' only.
func isWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// KnownExt reports whether ext (with its dot, any case) is the extension of
// a file kind a repository holds: source code, markup, data, configuration,
// documents, images, archives.
func KnownExt(ext string) bool {
	if len(ext) < 2 || ext[0] != '.' {
		return false
	}
	return knownExts[strings.ToLower(ext[1:])]
}

// knownExts are the file extensions KnownExt knows, without the dot.
var knownExts = func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`
		md markdown mdx txt rst adoc asciidoc org tex rtf pdf doc docx odt xls xlsx ppt pptx go
		mod sum ts tsx mts cts js jsx mjs cjs vue svelte astro json jsonc json5 yaml yml toml
		ini cfg conf properties lock xml xsd xsl html htm xhtml css scss sass less styl py pyi
		pyx ipynb rb erb rake gemspec rs java kt kts groovy gradle scala clj cljs edn swift mm
		c h cc cpp cxx hpp hh hxx cs fsx vb php phtml pl pm jl lua dart exs erl hrl elm hs lhs
		ml mli nim zig sol cairo sh bash zsh fish ps1 psm1 bat cmd sql prisma graphql gql proto
		thrift avsc tf tfvars hcl nix dockerfile containerfile csv tsv parquet ndjson jsonl
		diff snap golden txtar tmpl tpl gotmpl j2 jinja jinja2 ejs hbs handlebars mustache njk
		liquid pug haml twig svg png jpg jpeg gif ico webp bmp tif tiff avif mp3 mp4 wav webm
		mov zip gz tgz tar bz2 xz 7z jar war wasm so dll exe sqlite sqlite3 pem crt pub gpg asc
		example sample bak orig gitignore gitattributes editorconfig npmrc nvmrc dockerignore
		eslintrc prettierrc babelrc stylelintrc browserslistrc vtt srt po pot mo arb xib
		storyboard plist entitlements pbxproj xcconfig cmake mk ninja bazel bzl sln csproj
		fsproj vbproj nuspec resx aspx cshtml razor`) {
		m[e] = true
	}
	return m
}()

// Output reads a phase output as a path, dropping trailing
// commentary ("docs/stories/4.2.md (Draft)", "spec.md - revised"); ok is
// false for a description or a URL.
func Output(s string) (string, bool) {
	s = strings.TrimSpace(s)
	for _, sep := range []string{" (", " - ", " — ", " # "} {
		if i := strings.Index(s, sep); i > 0 {
			s = strings.TrimSpace(s[:i])
		}
	}
	s = strings.Trim(s, "`'\"")
	return s, LooksLikePath(s)
}

// Prose reads a token taken from prose — a backticked span or a word of a
// task's description — as a repository path, or says it is none. Prose
// names many things that are not files, and none of them may become a
// referenced path (and so a finding about one): URLs ("https://x",
// "mailto:a"), API routes ("/api/v2/contacts", "/users/:id",
// "/items/{id}"), globs ("src/**/*.ts"), commands ("npm run build"),
// option flags, package scopes ("@scope/pkg"), versions. A token is a path
// only when it is clearly one:
//
//   - it holds no URL, glob, template or shell character (* ? { } < > | $
//     and no ':' once a trailing ":line[:col]" is dropped) and LooksLikePath;
//   - it stays inside the repository once cleaned: a path Clean finds
//     unsafe ("../x", "C:\x", control characters) is not a path of this
//     repository, never read and never reported;
//   - a leading "/" is the repository root only when the rest exists in the
//     repository ("/src/app.ts" for src/app.ts); otherwise the token is a
//     route or a path on another machine, not a path of this repository;
//   - a token without a known file extension (and not a dot file) is a
//     path only when its first folder exists ("src/components" where src/
//     exists; "api/v2/contacts" where there is no api/ is a route);
//   - a token with spaces is a path only when it exists as written.
//
// exists reports whether a repository-relative path exists; nil (no
// repository at hand) answers no, so only tokens with an extension or a dot
// file name are paths then. Prose never judges whether a file-like token
// exists: a task may name a file it is still to create.
func Prose(tok string, exists func(string) bool) (string, bool) {
	s := strings.TrimSpace(strings.Trim(strings.TrimSpace(tok), `"'`))
	if s == "" || len(s) > 1024 || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "@") || strings.HasPrefix(s, "~") {
		return "", false
	}
	s = lineSuffix(s)
	if strings.ContainsAny(s, "*?{}<>|$:#=\"'`") || strings.Contains(s, "//") {
		return "", false
	}
	if !LooksLikePath(s) {
		return "", false
	}
	has := func(p string) bool { return exists != nil && p != "" && exists(p) }
	rooted := strings.HasPrefix(strings.ReplaceAll(s, `\`, "/"), "/")
	c, safe := Clean(strings.TrimLeft(strings.ReplaceAll(s, `\`, "/"), "/"))
	if !safe || c == "" {
		return "", false
	}
	switch {
	case rooted || strings.ContainsAny(c, " \t"):
		return c, has(c)
	case fileLike(c):
		return c, true
	}
	first := c
	if i := strings.IndexByte(c, '/'); i > 0 {
		first = c[:i]
	}
	return c, first != c && has(first)
}

// fileLike reports whether the last element of a cleaned path has a known
// file extension or is a dot file.
func fileLike(c string) bool {
	base := path.Base(c)
	if strings.HasPrefix(base, ".") && len(base) > 1 && !strings.Contains(base[1:], ".") {
		return isWord(base[1:])
	}
	return KnownExt(path.Ext(base))
}

// lineSuffix drops a trailing ":line" or ":line:col" ("src/a.go:42").
func lineSuffix(s string) string {
	for k := 0; k < 2; k++ {
		i := strings.LastIndexByte(s, ':')
		if i <= 0 || i == len(s)-1 || strings.Trim(s[i+1:], "0123456789") != "" {
			break
		}
		s = s[:i]
	}
	return s
}

// BoundedExists wraps exists for Prose over a whole file: it remembers
// answers and asks at most max distinct questions, answering no after that,
// so a hostile file naming thousands of paths costs a bounded number of
// file-system lookups. nil stays nil.
func BoundedExists(exists func(string) bool, max int) func(string) bool {
	if exists == nil {
		return nil
	}
	seen := map[string]bool{}
	return func(p string) bool {
		if v, ok := seen[p]; ok {
			return v
		}
		if len(seen) >= max {
			return false
		}
		v := exists(p)
		seen[p] = v
		return v
	}
}

// Token is Prose for one token of a task's text: a version number ("1.2.3",
// "v2.0") is never a path. The task-list readers (spec-kit, OpenSpec, Kiro)
// share it.
func Token(s string, exists func(string) bool) (string, bool) {
	s = strings.TrimSpace(s)
	if v := strings.TrimLeft(s, "vV"); v != "" && strings.Trim(v, "0123456789.") == "" {
		return "", false
	}
	return Prose(s, exists)
}

// AppendNew appends the paths of ps that list does not hold yet, while it
// holds fewer than max.
func AppendNew(list []string, max int, ps ...string) []string {
	for _, p := range ps {
		if len(list) >= max {
			break
		}
		if !slices.Contains(list, p) {
			list = append(list, p)
		}
	}
	return list
}

// Listed reads a "Files: a, b" detail of a task: its quoted (backticked)
// spans when it has any, else its comma-separated parts, each kept when
// Token takes it, in order.
func Listed(rest string, quoted []string, exists func(string) bool) []string {
	var out []string
	if len(quoted) > 0 {
		for _, q := range quoted {
			if p, ok := Token(q, exists); ok {
				out = append(out, p)
			}
		}
		return out
	}
	for _, part := range strings.Split(rest, ",") {
		if s, ok := Output(part); ok {
			if p, ok := Token(s, exists); ok {
				out = append(out, p)
			}
		}
	}
	return out
}
