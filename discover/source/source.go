// Package source is what a format package sees of the repository while
// discover scans it: the Source interface every format implements, Repo (safe
// reads, globs, the workflow definitions in force and the index of parsed
// stories), the built-in and repository workflow definitions, and the helpers
// formats share to read a state file: referenced-file sets, phase references
// and records, state-file unwrapping and the parse findings. Format packages
// import source; discover imports the format packages, so source cannot
// import discover.
package source

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// Source is one kind of saved state.
type Source interface {
	// Kind names the source (workflow.Kind* constants).
	Kind() string
	// Priority is the source's priority (lower is more specific; see docs/ARCHITECTURE.md).
	Priority() int
	// Scan returns the candidates found in the repository and the findings
	// that belong to no candidate. A file that cannot be parsed still yields a
	// candidate when it is a state file, carrying a parse finding.
	Scan(r *Repo) ([]workflow.Candidate, []workflow.Finding)
}

// Repo is what a source sees of the repository: its root, the configuration
// and the workflow definitions, plus safe file access.
type Repo struct {
	Root        string
	Config      config.Config
	Definitions map[string]workflow.Definition
	// Stories are the parsed story files by id, filled by Scan before the
	// state-file sources run so they can look stories up.
	Stories map[string]*workflow.Story
	// Times, set by discover's Scan before the sources run (nil without
	// git), returns the last-commit time of files that are exactly as
	// committed in HEAD; a file missing from the answer has uncommitted
	// changes or no history. Formats use it to compare recency by git.
	Times func(paths []string) map[string]Stamp
	// Cache, when not nil, keeps what a scan derived from files that have
	// not changed since (internal/diskcache); formats may use it.
	Cache *diskcache.Cache

	reader *safefile.Reader
	// ahead holds the globs expanded ahead (PrefetchGlobs): set before the
	// sources run and cleared after (EndPrefetch), by Scan's goroutine.
	ahead *globAhead
	// budget is the scan's element budget (BeginBudget): set before the
	// sources run and cleared after (EndBudget), by Scan's goroutine; nil
	// outside a scan (a patch reads what it must).
	budget *tolerant.ScanBudget
	weight int // what one element counts for while the current source scans (SetWeight)
	// later, when on (BeginLater, by Scan's goroutine), takes the sources'
	// cache saves to goroutines of their own; laterDone is what EndLater
	// waits for.
	later     bool
	laterDone *sync.WaitGroup
	// kept holds the reads one source keeps for the next (Keep, Kept),
	// from BeginBudget to EndBudget; nil outside a scan.
	kept *keptFiles
}

// BeginLater makes the cache saves that end each source's scan (Later) run
// beside the rest of the scan instead of before it: discover's Scan calls
// it before the sources run and EndLater before it returns.
func (r *Repo) BeginLater() { r.later, r.laterDone = true, &sync.WaitGroup{} }

// EndLater waits for every save Later started, and makes Later run at once
// again.
func (r *Repo) EndLater() {
	if r.laterDone != nil {
		r.laterDone.Wait()
	}
	r.later, r.laterDone = false, nil
}

// Later runs f, a source's cache save, on a goroutine of its own between
// BeginLater and EndLater (the next sources, the dating and the merge go on
// meanwhile on the other processor; a first run on 20,000 stories writes a
// 6 MB table), else at once (a source scanned on its own, as in its tests,
// has its table written when its scan returns).
func (r *Repo) Later(f func()) {
	if r == nil || !r.later {
		f()
		return
	}
	done := r.laterDone
	done.Add(1)
	go func() {
		defer done.Done()
		f()
	}()
}

// SetWeight makes each element the files read from now on draw w from the
// scan's budget (1 when w < 1): Scan sets the weight of each source before
// it runs (Format.ElementWeight).
func (r *Repo) SetWeight(w int) { r.weight = max(w, 1) }

// BeginBudget gives the scan about to run a full element budget of size
// (tolerant.MaxScanReadElements when size <= 0): every file read with Read
// or ReadWithTime until EndBudget draws from it (see Spend).
// The scan's kept reads (Keep) begin with it too.
func (r *Repo) BeginBudget(size int) {
	r.budget = tolerant.NewScanBudget(size)
	r.kept = &keptFiles{files: map[string]keptFile{}}
}

// EndBudget ends the scan's budget and returns the warning that says where
// it ran out and how many files were not read (ok false when it did not).
// The reads kept and not taken are dropped.
func (r *Repo) EndBudget() (f workflow.Finding, ok bool) {
	b := r.budget
	r.budget, r.kept = nil, nil
	at, refused := b.Spent()
	if at == "" {
		return f, false
	}
	return workflow.Finding{
		Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "too-many", Path: at,
		Message: fmt.Sprintf("this scan read the %s elements (lines, commas and brackets) orchestrate reads in one scan over all the repository's files; the budget ran out at %s: %s not read (each with a too-many finding), the rest of the repository is listed",
			workflow.Thousands(b.Size()), at, filesNotRead(refused)),
	}, true
}

// filesNotRead is "1 file was" or "N files were".
func filesNotRead(n int) string {
	if n == 1 {
		return "1 file was"
	}
	return workflow.Thousands(n) + " files were"
}

// Spend draws the elements of data, the content of the repository file
// file, from the scan's budget (tolerant.ScanBudget): nil when the budget
// covers them (or outside a scan), else the too-many error to report
// instead of reading data (ReadFinding and DecodeFinding make it a parse
// finding). Read and ReadWithTime call it: a format calls it only for
// bytes it reads another way (a cache's ReadRegular).
func (r *Repo) Spend(file string, data []byte) error {
	if r == nil || r.budget == nil {
		return nil
	}
	if err := r.budget.TakeN(file, tolerant.FileElements(file, data)*max(r.weight, 1)); err != nil {
		return err
	}
	return nil
}

// SpendN is Spend for n elements counted by the caller (a file given from
// a cache without being read: its decoded entries).
func (r *Repo) SpendN(file string, n int) error {
	if r == nil || r.budget == nil {
		return nil
	}
	if err := r.budget.TakeN(file, n*max(r.weight, 1)); err != nil {
		return err
	}
	return nil
}

// Stamp is when a file last changed according to git.
type Stamp struct {
	When time.Time
	From string // "git:<short hash>"
}

// SerializeTimes wraps a Times function so that calls from several
// goroutines (discover dates stories while the formats scan) take turns: the
// git reader behind it is not safe for concurrent use. Nil stays nil.
func SerializeTimes(f func(paths []string) map[string]Stamp) func(paths []string) map[string]Stamp {
	if f == nil {
		return nil
	}
	var mu sync.Mutex
	return func(paths []string) map[string]Stamp {
		mu.Lock()
		defer mu.Unlock()
		return f(paths)
	}
}

// CommitTimes returns r.Times(paths) without the zero stamps, or nil when
// there is no git (Times unset) or no path.
func (r *Repo) CommitTimes(paths []string) map[string]Stamp {
	if r == nil || r.Times == nil || len(paths) == 0 {
		return nil
	}
	out := map[string]Stamp{}
	for p, st := range r.Times(paths) {
		if !st.When.IsZero() {
			out[p] = st
		}
	}
	return out
}

// NewRepo returns a Repo for root with cfg, loading workflow definitions.
func NewRepo(root string, cfg config.Config) (*Repo, []workflow.Finding) {
	r := &Repo{Root: root, Config: cfg, Stories: map[string]*workflow.Story{}, reader: safefile.NewReader(root)}
	defs, findings := LoadDefinitions(r)
	r.Definitions = defs
	globs, fs := FrameworkStoryGlobs(r)
	r.Config.Sources.Stories = addGlobs(cfg.Sources.Stories, globs)
	return r, append(findings, fs...)
}

// Definition returns the workflow definition id, or the built-in one.
func (r *Repo) Definition(id string) workflow.Definition {
	if d, ok := r.Definitions[id]; ok {
		return d
	}
	d, _ := BuiltinDefinition(id)
	return d
}

// Read reads a repository-relative file safely (size limit, no binary, no
// symlink out of the repository).
//
// During a scan the file's elements are drawn from the scan's budget (see
// Spend): past it, Read returns the too-many error and no data.
func (r *Repo) Read(rel string) ([]byte, error) {
	var data []byte
	var err error
	if r.reader == nil {
		data, err = safefile.Read(r.Root, rel, r.Config.MaxFileSize)
	} else {
		data, err = r.reader.Read(rel, r.Config.MaxFileSize)
	}
	if err == nil {
		if err = r.Spend(rel, data); err != nil {
			data = nil
		}
	}
	return data, err
}

// Peek is Read without drawing from the scan's budget, for a look at the
// bytes that decodes nothing (a search for a key): a caller that goes on
// to decode them draws them first with Spend.
func (r *Repo) Peek(rel string) ([]byte, error) {
	if r.reader == nil {
		return safefile.Read(r.Root, rel, r.Config.MaxFileSize)
	}
	return r.reader.Read(rel, r.Config.MaxFileSize)
}

// ReadWithTime is Read that also returns the file's modification time.
func (r *Repo) ReadWithTime(rel string) ([]byte, time.Time, error) {
	if r.reader == nil {
		data, err := r.Read(rel)
		return data, r.ModTime(rel), err
	}
	data, mt, err := r.reader.ReadWithTime(rel, r.Config.MaxFileSize)
	if err == nil {
		if err = r.Spend(rel, data); err != nil {
			data = nil
		}
	}
	return data, mt, err
}

// Exists reports whether a repository-relative path exists (without following
// it out of the repository).
func (r *Repo) Exists(rel string) bool {
	if r.reader != nil {
		return r.reader.Exists(rel)
	}
	clean, err := safefile.CheckPath(r.Root, rel)
	if err != nil {
		return false
	}
	_, err = os.Stat(filepath.Join(r.Root, filepath.FromSlash(clean)))
	return err == nil
}

// ModTime returns the modification time of a repository-relative path, or
// the zero time.
func (r *Repo) ModTime(rel string) time.Time {
	fi, err := os.Stat(filepath.Join(r.Root, filepath.FromSlash(rel)))
	if err != nil {
		return time.Time{}
	}
	return fi.ModTime().UTC()
}

// Glob expands patterns (files, or folders with dirs) and returns the
// de-duplicated matches, sorted.
func (r *Repo) Glob(patterns []string, dirs bool) []string {
	if out, ok := r.prefetched(patterns, dirs); ok {
		return out
	}
	return r.glob(patterns, dirs)
}

// glob is Glob without the prefetched answers.
func (r *Repo) glob(patterns []string, dirs bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range patterns {
		for _, e := range pathglob.Expand(r.Root, p, dirs) {
			if !seen[e.Path] {
				seen[e.Path] = true
				out = append(out, e.Path)
			}
		}
	}
	sort.Strings(out)
	return out
}

// ReadFinding turns an error from Read into a parse finding for path.
func ReadFinding(path string, err error) workflow.Finding {
	if de := (*tolerant.DecodeError)(nil); errors.As(err, &de) && de.Code == "too-many" {
		return DecodeFinding(path, err) // the scan's budget (Spend)
	}
	code := "unreadable"
	switch {
	case errors.Is(err, safefile.ErrTooLarge):
		code = "too-large"
	case errors.Is(err, safefile.ErrBinary):
		code = "binary"
	case errors.Is(err, safefile.ErrUnsafe):
		code = "unsafe-path"
	case errors.Is(err, safefile.ErrNotFile):
		code = "not-a-file"
	case errors.Is(err, fs.ErrPermission):
		code = "permission"
	}
	return workflow.Finding{
		Check:    workflow.CheckParse,
		Severity: workflow.Blocking,
		Code:     code,
		Message:  fmt.Sprintf("cannot read %s: %v", path, err),
		Path:     path,
	}
}

// ParseFinding is a parse finding for path at line (0 when unknown).
func ParseFinding(path string, line int, code, format string, args ...any) workflow.Finding {
	msg := fmt.Sprintf(format, args...)
	if line > 0 {
		msg = fmt.Sprintf("line %d: %s", line, msg)
	}
	return workflow.Finding{
		Check:    workflow.CheckParse,
		Severity: workflow.Blocking,
		Code:     code,
		Message:  msg,
		Path:     path,
		Line:     line,
	}
}

// DecodeFinding turns a decode error into a parse finding for path.
func DecodeFinding(path string, err error) workflow.Finding {
	var de *tolerant.DecodeError
	if errors.As(err, &de) {
		return ParseFinding(path, de.Line, de.Code, "%s", de.Msg)
	}
	return ParseFinding(path, 0, "syntax", "%v", err)
}

// Format is a Source given by its parts: each format package declares its
// source as one Format value, and discover lists it in DefaultSources.
type Format struct {
	FormatKind     string // a workflow.Kind* constant
	FormatPriority int    // a workflow.Priority* constant (lower is more specific)
	ScanFunc       func(r *Repo) ([]workflow.Candidate, []workflow.Finding)
	// ElementWeight is what one element of the files this source reads
	// counts for in the scan's budget (0: 1, see tolerant.FileElements), for
	// a format whose parse costs several times the usual per line.
	ElementWeight int
}

// Weight is the source's ElementWeight, at least 1.
func (f Format) Weight() int { return max(f.ElementWeight, 1) }

// Kind is the format's kind.
func (f Format) Kind() string { return f.FormatKind }

// Priority is the format's priority.
func (f Format) Priority() int { return f.FormatPriority }

// Scan runs the format's scan over r.
func (f Format) Scan(r *Repo) ([]workflow.Candidate, []workflow.Finding) { return f.ScanFunc(r) }

// addGlobs returns base with the globs it lacks appended (a new slice: the
// caller's configuration is not modified).
func addGlobs(base, more []string) []string {
	if len(more) == 0 {
		return base
	}
	if len(base) == 0 {
		base = config.Default().Sources.Stories // keep docs/stories as the default
	}
	out := append([]string(nil), base...)
	for _, g := range more {
		dup := false
		for _, b := range out {
			if b == g {
				dup = true
			}
		}
		if !dup {
			out = append(out, g)
		}
	}
	return out
}
