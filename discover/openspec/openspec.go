// Package openspec is the OpenSpec format (Fission-AI/OpenSpec): change
// folders `openspec/changes/<id>/` holding proposal.md, design.md, delta
// specs and a tasks.md whose checkboxes `/opsx:apply` (1.x) or
// `/openspec:apply` (0.x) ticks. OpenSpecSource finds every `openspec/`
// root (nested ones in monorepos too), every active change and the archive,
// and turns each change into a candidate `openspec:<change-id>` of type
// change; the partly done ones are resumable, their resume point the first
// open task in document order.
//
// OpenSpec keeps no resume state of its own: the position is read from the
// boxes (counted by the 1.8+ rule, outside code fences; the older CLIs'
// column-0 figure beside when it differs), and which change is current is
// the last commit touching its folder. Archived changes are never in
// flight. The handoff never edits these files. The rules are
// FORMATS-openspec-kiro.md Part A, C and D.
package openspec

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/par"
	"github.com/orchestrate-dev/orchestrate/internal/pathglob"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// OpenSpecSource finds OpenSpec changes. The current change of a root (its
// folder committed last) has priority 4, the other changes the spec
// priority 6.
var OpenSpecSource source.Source = source.Format{FormatKind: workflow.KindOpenSpec, FormatPriority: workflow.PriorityInProgress, ScanFunc: scan}

// Workflow is the workflow id of an OpenSpec change's implementation.
const Workflow = "openspec-apply"

// Agent is the agent a change's resume is handed to: the coding agent that
// runs the apply command.
const Agent = "dev"

// Bounds on what one repository costs.
const (
	// maxListedDirs bounds the folders looked at to find the roots.
	maxListedDirs = 4000
	// maxRoots bounds the `openspec/` roots read.
	maxRoots = 64
	// maxChanges bounds the change folders (active and archived) read per
	// root.
	maxChanges = 2000
	// maxScanChanges bounds the change folders read over all roots.
	maxScanChanges = 5000
	// maxExistsLookups bounds the file-system lookups the paths of one
	// tasks.md cost (refpath.BoundedExists).
	maxExistsLookups = 1000
	// maxSmallFile bounds the YAML files read line by line.
	maxSmallFile = 64 << 10
)

// skipDirs are folders never searched for an `openspec/` root: installed
// dependencies and build output (the openspec npm package itself lives in
// node_modules/@fission-ai/openspec).
var skipDirs = map[string]bool{
	"node_modules": true, "vendor": true, "bower_components": true, "target": true, "dist": true,
	"build": true, "out": true, "venv": true, "__pycache__": true, "Pods": true,
}

// root is one `openspec/` folder.
type root struct {
	Dir    string // "openspec", "apps/desktop/openspec"
	Prefix string // "" for the repository's own openspec/, else Dir
	Layout Layout
	Store  string // config.yaml's store, when set
	Schema string // config.yaml's schema, when set
}

// change is one change folder (active or archived).
type change struct {
	Root      *root
	Dir       string // openspec/changes/add-auth
	ID        string // add-auth (as written)
	Archived  bool
	TasksPath string // "" without tasks.md
	Tasks     Tasks  // an active change's until settle (an archived one keeps only its counts)
	// d is what the candidate takes of Tasks, once settled (then Tasks is
	// dropped).
	d *draft
	// archDone and archTotal are an archived change's counts.
	archDone, archTotal int
	Docs                []string // proposal.md, design.md, .openspec.yaml, delta specs
	Created             string   // .openspec.yaml created (YYYY-MM-DD), as written
	Schema              string   // .openspec.yaml schema
	ModTime             time.Time
	From                string // "git:<hash>" when dated from git
	Findings            []workflow.Finding
	current             bool
	// unread is set when tasks.md exists but could not be read (a
	// finding says why).
	unread bool
	// copies are change folders (with a tasks.md) found inside an archive
	// folder: copies the CLI never reads.
	copies []string
	// key is the candidate key (Key, made unique by uniqueKeys).
	key string
	// exists is the bounded lookup the task paths were read with (its
	// answers remembered), nil for an archived change.
	exists func(string) bool
}

// counts returns done/total by orchestrate's rule (an archived change's
// as read: only its boxes are counted, nothing else is kept).
func (c *change) counts() (int, int) {
	switch {
	case c.Archived:
		return c.archDone, c.archTotal
	case c.d != nil:
		return c.d.done, c.d.total
	}
	return c.Tasks.Count()
}

// status is the change's derived status (FORMATS-openspec-kiro Part A5 and
// D.3): no tasks Draft; none done Ready (not started); some InProgress (in
// flight); all Done (complete, ready to archive).
func (c *change) status() (workflow.Status, string) {
	done, total := c.counts()
	switch {
	case total == 0:
		return workflow.StatusDraft, "no-tasks"
	case done == total:
		return workflow.StatusDone, "complete"
	case done == 0:
		return workflow.StatusReady, "not-started"
	}
	return workflow.StatusInProgress, "in-progress"
}

// inFlight reports an active change with 0 < done < total.
func (c *change) inFlight() bool {
	st, _ := c.status()
	return !c.Archived && st == workflow.StatusInProgress
}

// scan finds every root and change and builds the candidates.
func scan(r *source.Repo) ([]workflow.Candidate, []workflow.Finding) {
	dirs, cut := findRoots(r)
	if len(dirs) == 0 {
		return nil, nil
	}
	var findings []workflow.Finding
	if cut {
		findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "openspec-search-bounded",
			Message: fmt.Sprintf("the search for openspec/ folders stopped after %d folders; a deeper openspec/ is not read", maxListedDirs)})
	}
	var all []*change
	budget := maxScanChanges
	cache := openTasksCache(r)
	exists := source.MemoExists(r.Exists) // changes name the same files
	for _, d := range dirs {
		if budget <= 0 {
			findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "too-many-changes", Path: d,
				Message: fmt.Sprintf("%s is not read: orchestrate reads at most %d change folders in one scan", d, maxScanChanges)})
			continue
		}
		rt := &root{Dir: d}
		if d != "openspec" {
			rt.Prefix = d
		}
		rt.Store, rt.Schema = readConfig(r, d)
		rt.Layout = DetectLayout(r, d)
		active, archived, fs := readChanges(r, rt, min(budget, maxChanges), cache, exists)
		budget -= len(active) + len(archived)
		findings = append(findings, fs...)
		if len(active) == 0 && len(archived) == 0 {
			if rt.Store != "" {
				findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "openspec-external-store", Path: configPath(r, d),
					Message: fmt.Sprintf("%s keeps its changes in the OpenSpec store %q, outside this repository: nothing to resume here", d, rt.Store)})
			}
			continue
		}
		findings = append(findings, archiveFindings(rt, active, archived)...)
		all = append(all, active...)
	}
	cache.save()
	pickCurrent(r, all)
	findings = append(findings, uniqueKeys(all)...)
	out := make([]workflow.Candidate, 0, len(all))
	for _, c := range all {
		out = append(out, Build(c))
	}
	return out, findings
}

// findRoots lists the `openspec/` folders holding changes/ or a
// config.yaml, at most two folders below the repository root
// (`openspec`, `a/openspec`, `a/b/openspec`: apps/desktop/openspec in a
// monorepo), without following symlinks
// or entering hidden, dependency or build folders. The root and its
// folders are listed; the folders below those are not (one lstat of
// `<folder>/openspec` each), so the search costs a few listings and an
// lstat per second-level folder, whatever the tree holds. cut reports that
// the bound on folders looked at stopped the search.
func findRoots(r *source.Repo) (roots []string, cut bool) {
	looked := 0
	add := func(p string) {
		if len(roots) < maxRoots && isRoot(r, p) {
			roots = append(roots, p)
		}
	}
	// list reads a folder's subfolders (no symlinks, hidden, dependency or
	// build folders), adding an openspec/ among them as a root
	list := func(rel string) []string {
		ents, err := os.ReadDir(filepath.Join(r.Root, filepath.FromSlash(rel)))
		if err != nil {
			return nil
		}
		var subs []string
		for _, e := range ents {
			name := e.Name()
			if !e.IsDir() || strings.HasPrefix(name, ".") || skipDirs[name] {
				continue
			}
			p := name
			if rel != "" {
				p = rel + "/" + name
			}
			if name == "openspec" {
				add(p)
				continue
			}
			subs = append(subs, p)
		}
		sort.Strings(subs)
		return subs
	}
	for _, d1 := range list("") {
		if looked >= maxListedDirs {
			return roots, true
		}
		looked++
		for _, d2 := range list(d1) {
			if looked >= maxListedDirs {
				return roots, true
			}
			looked++
			p := d2 + "/openspec"
			if fi, err := os.Lstat(filepath.Join(r.Root, filepath.FromSlash(p))); err == nil && fi.IsDir() {
				add(p)
			}
		}
	}
	sort.Strings(roots)
	return roots, false
}

// isRoot reports whether an openspec folder is OpenSpec's: it holds
// changes/ (or specs/) or a config file.
func isRoot(r *source.Repo, dir string) bool {
	for _, p := range []string{"changes", "config.yaml", "config.yml", "specs", "project.md", "AGENTS.md"} {
		if r.Exists(dir + "/" + p) {
			return true
		}
	}
	return false
}

var (
	storeRe   = lazyre.New(`^store\s*:\s*['"]?([^'"#\s][^'"#]*?)['"]?\s*(?:#.*)?$`)
	schemaRe  = lazyre.New(`^schema\s*:\s*['"]?([^'"#\s][^'"#]*?)['"]?\s*(?:#.*)?$`)
	createdRe = lazyre.New(`^created\s*:\s*['"]?(\d{4}-\d{2}-\d{2})`)
	// archiveRe matches an archive folder's name: dates (several, as older
	// CLIs prefixed twice) and the change id.
	archiveRe = lazyre.New(`^((?:\d{4}-\d{2}-\d{2}-)*)(.+)$`)
)

// configPath is the root's config file (config.yaml, else config.yml).
func configPath(r *source.Repo, dir string) string {
	if r.Exists(dir+"/config.yml") && !r.Exists(dir+"/config.yaml") {
		return dir + "/config.yml"
	}
	return dir + "/config.yaml"
}

// readConfig reads the top-level store and schema of openspec/config.yaml,
// line by line (no YAML decoder: only two scalar keys are wanted).
func readConfig(r *source.Repo, dir string) (store, schema string) {
	data, err := r.Read(configPath(r, dir))
	if err != nil || len(data) > maxSmallFile {
		return "", ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if m := storeRe().FindStringSubmatch(line); m != nil {
			store = oneLine(m[1])
		}
		if m := schemaRe().FindStringSubmatch(line); m != nil {
			schema = oneLine(m[1])
		}
	}
	return store, schema
}

// readMeta reads a change's .openspec.yaml: created and schema (no
// cache), through its folder d when source.ReadRegularIn can, else with
// r.Read; read is false when it cannot be read.
func readMeta(r *source.Repo, p string, d *safefile.Dir) (created, schema string, read bool) {
	if d != nil {
		bp := source.GetReadBuf()
		defer source.PutReadBuf(bp)
		if data, _, done, err := source.ReadRegularIn(r, d, p, bp); done {
			if err != nil {
				return "", "", false
			}
			created, schema = parseMeta(data)
			return created, schema, true
		}
	}
	data, err := r.Read(p)
	if err != nil {
		return "", "", false
	}
	created, schema = parseMeta(data)
	return created, schema, true
}

// parseMeta reads created and schema from a change's .openspec.yaml, line
// by line; nothing from a file over maxSmallFile.
func parseMeta(data []byte) (created, schema string) {
	if len(data) > maxSmallFile {
		return "", ""
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimRight(line, "\r")
		if m := createdRe().FindStringSubmatch(line); m != nil {
			created = m[1]
		}
		if m := schemaRe().FindStringSubmatch(line); m != nil {
			schema = oneLine(m[1])
		}
	}
	return created, schema
}

// readChanges reads a root's change folders: every folder directly under
// changes/ except archive (files there are not changes), and every folder
// under changes/archive/. exists is the scan's look-up (source.MemoExists).
func readChanges(r *source.Repo, rt *root, limit int, cache *tasksCache, exists func(string) bool) (active, archived []*change, findings []workflow.Finding) {
	base := rt.Dir + "/changes"
	dirs := r.Glob([]string{base + "/*"}, true)
	arch := r.Glob([]string{base + "/archive/*"}, true)
	if len(dirs)+len(arch) > limit {
		findings = append(findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "too-many-changes", Path: base,
			Message: fmt.Sprintf("%s holds %d change folders; only the first %d are read", base, len(dirs)+len(arch), limit)})
	}
	var todo []string // the active changes, then the archived ones
	for _, d := range dirs {
		if path.Base(d) == "archive" {
			continue
		}
		if len(todo) >= limit {
			break
		}
		todo = append(todo, d)
	}
	nActive := len(todo)
	for _, d := range arch {
		if len(todo) >= limit {
			break
		}
		todo = append(todo, d)
	}
	// the change folders are read on a few workers (mostly system calls
	// and independent parses, as Kiro's spec folders); each touches only
	// its change
	read := make([]*change, len(todo))
	par.For(len(todo), par.Options{Workers: 4, Chunk: 8, Min: 16}, func(i int) {
		read[i] = readChange(r, rt, todo[i], i >= nActive, cache, exists)
		if i < nActive {
			read[i].settle() // its tasks dropped at once: only the few being read hold theirs
		}
	})
	if nActive > 0 {
		active = read[:nActive:nActive]
	}
	if len(read) > nActive {
		archived = read[nActive:]
	}
	return active, archived, findings
}

// readChange reads one change folder: one listing tells which documents
// exist; tasks.md is read (an archived change's only for its boxes), the
// other documents are referenced, not read (.openspec.yaml is read for the
// changes in flight). With the cache, the parses come from the user's
// cache when the files are unchanged (cache.go). exists answers for the
// repository's files (r.Exists, remembered for the scan).
func readChange(r *source.Repo, rt *root, dir string, archived bool, cache *tasksCache, exists func(string) bool) *change {
	c := &change{Root: rt, Dir: dir, ID: path.Base(dir), Archived: archived}
	has := map[string]bool{}
	// the folder its files are read through, with the cache or without
	// (opened inside its open parent without following a symlink), closed
	// when done; it is listed through the same descriptor (one open, not
	// two)
	folder := cache.openDir(dir)
	if folder != nil {
		defer folder.Close()
	}
	var ents []pathglob.DirEntry
	var ds source.DirStat // the folder's, once taken
	var listed, ok bool
	if folder != nil {
		ents, listed, ok = listCached(cache.folderTable(), folder, dir, &ds)
	} else {
		ents, listed, ok = listChange(filepath.Join(r.Root, filepath.FromSlash(dir)))
	}
	if !ok {
		return c // a symlink or a file: nothing is read through it
	}
	if listed {
		for _, e := range ents {
			switch name := e.Name; {
			case e.Type.IsRegular():
				has[name] = true
			case name == "tasks.md":
				// a symlink, FIFO, device, socket or folder: the safe reader
				// decides (inside the repository, or a finding such as "is a
				// FIFO"; it never opens one blocking), so the change is never a
				// silent "No tasks"
				has[name] = true
			case e.Type.IsDir() && name == "specs":
				has["specs/"] = true
			case e.Type.IsDir() && archived && len(c.copies) < 5 && exists(dir+"/"+name+"/tasks.md"):
				// a change folder copied inside its archive folder
				c.copies = append(c.copies, dir+"/"+name)
			}
		}
	}
	if !archived {
		return readActiveKept(r, rt, c, has, listed, folder, &ds, cache, exists)
	}
	p := dir + "/tasks.md"
	if has["tasks.md"] {
		c.TasksPath = p
		var mt time.Time
		var err error
		c.archDone, c.archTotal, mt, err = cache.counts(r, p, folder)
		c.ModTime = mt
		if err != nil {
			c.unread = true
			c.Findings = append(c.Findings, source.ReadFinding(p, err))
		}
	}
	return c // only the boxes of an archived change matter
}

// archiveFindings reports the archive's anomalies (Rule A6.3): a change
// both active and archived (the active one counts, Part D.6), an id
// archived twice, undated and doubly dated folders, a change folder copied
// inside its archive folder, and archived changes with open boxes (never in
// flight, Rule A6.2).
func archiveFindings(rt *root, active, archived []*change) []workflow.Finding {
	var out []workflow.Finding
	byID := map[string][]string{}
	var ids []string
	var undated, doubled, badDate, open, copies []string
	for _, a := range archived {
		m := archiveRe().FindStringSubmatch(a.ID)
		id := a.ID
		if m != nil {
			id = m[2]
			switch dates := len(m[1]) / 11; {
			case dates == 0:
				undated = append(undated, a.ID)
			case dates > 1:
				doubled = append(doubled, a.ID)
			}
			for k := 0; k+11 <= len(m[1]); k += 11 {
				if _, err := time.Parse("2006-01-02", m[1][k:k+10]); err != nil {
					badDate = append(badDate, a.ID)
					break
				}
			}
		}
		copies = append(copies, a.copies...)
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], a.Dir)
		if done, total := a.counts(); done < total {
			open = append(open, fmt.Sprintf("%s (%d/%d)", a.ID, done, total))
		}
	}
	actives := map[string]*change{}
	for _, c := range active {
		actives[c.ID] = c
	}
	for _, id := range ids {
		dirs := byID[id]
		if c := actives[id]; c != nil {
			c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "openspec-active-and-archived", Path: c.Dir,
				Message: fmt.Sprintf("change %s is both active and archived (%s): the active folder counts", id, strings.Join(capList(dirs, 5), ", "))})
			continue
		}
		if len(dirs) > 1 {
			out = append(out, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "openspec-archived-twice", Path: dirs[0],
				Message: fmt.Sprintf("change %s is archived %d times: %s", id, len(dirs), strings.Join(capList(dirs, 5), ", "))})
		}
	}
	// one finding a kind of odd archive folder, naming up to 10 of them
	for _, k := range []struct {
		folders  []string
		severity workflow.Severity
		code     string
		what     string
	}{
		{undated, workflow.Info, "openspec-archive-undated", "archive folders without the YYYY-MM-DD- prefix openspec archive writes (moved by hand)"},
		{doubled, workflow.Info, "openspec-archive-double-date", "archive folders dated twice (an older CLI archived a dated id)"},
		{badDate, workflow.Info, "openspec-archive-bad-date", "archive folders whose date prefix is no calendar date (written by hand)"},
		{copies, workflow.Warning, "openspec-archive-nested-copy", "change folders copied inside an archive folder (OpenSpec never reads them; the archive folder's own tasks.md counts)"},
		{open, workflow.Info, "openspec-archived-open-tasks", "archived with open boxes (never in flight; openspec archive only warns)"},
	} {
		if len(k.folders) > 0 {
			out = append(out, workflow.Finding{Check: workflow.CheckDiscover, Severity: k.severity, Code: k.code, Path: rt.Dir + "/changes/archive",
				Message: k.what + ": " + strings.Join(capList(k.folders, 10), ", ")})
		}
	}
	return out
}

// pickCurrent dates the in-flight changes by the last commit touching
// their folder (the newest modification time of their files when not as
// committed, or without git) and marks, per root, the newest one as the
// current change (Rule A5.4, Part D.5); ties go to the later .openspec.yaml
// created, then to the id.
func pickCurrent(r *source.Repo, all []*change) {
	var dirs []string
	for _, c := range all {
		if c.inFlight() {
			dirs = append(dirs, c.Dir)
		}
	}
	if len(dirs) == 0 {
		return
	}
	stamps := r.CommitTimes(dirs)
	best := map[*root]*change{}
	for _, c := range all {
		if !c.inFlight() {
			continue
		}
		if st, ok := stamps[c.Dir]; ok {
			c.ModTime, c.From = st.When.UTC(), st.From
		}
		b := best[c.Root]
		if b == nil || newer(c, b) {
			best[c.Root] = c
		}
	}
	for _, c := range best {
		c.current = true
	}
}

// newer orders two in-flight changes for "current".
func newer(a, b *change) bool {
	if !a.ModTime.Equal(b.ModTime) {
		return a.ModTime.After(b.ModTime)
	}
	if a.Created != b.Created {
		return a.Created > b.Created
	}
	return a.ID > b.ID
}

// Key is a change's candidate key: the change id, prefixed by its root
// when the root is not the repository's own openspec/ (Part D.7).
func Key(rootPrefix, id string) string {
	k := storyid.Sanitize(id)
	if k == "" {
		k = "change"
	}
	if rootPrefix == "" {
		return k
	}
	var segs []string
	for _, s := range strings.Split(rootPrefix, "/") {
		if s = storyid.Sanitize(s); s != "" {
			segs = append(segs, s)
		}
	}
	return strings.Join(append(segs, k), "/")
}

// uniqueKeys gives every change its candidate key, unique over the scan.
// Key folds every character it does not keep into "-", so change folders
// such as add-auth, add_auth and "add auth" make the same key; one
// candidate would then absorb the others and a resume of openspec:add-auth
// could hand off a folder named to shadow it. When several changes share a
// key, the one whose folder name is the key itself keeps it and each other
// gets the key with a short hash of its folder name appended (none keeps
// it bare when no name is exact); a warning names the folders.
func uniqueKeys(all []*change) []workflow.Finding {
	byKey := map[string][]*change{}
	var keys []string
	for _, c := range all {
		k := Key(c.Root.Prefix, c.ID)
		c.key = k
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], c)
	}
	var out []workflow.Finding
	for _, k := range keys {
		group := byKey[k]
		if len(group) < 2 {
			continue
		}
		var dirs []string
		for _, c := range group {
			dirs = append(dirs, fmt.Sprintf("%q", c.Dir))
			if storyid.Sanitize(c.ID) != c.ID {
				sum := sha256.Sum256([]byte(c.Dir))
				c.key = fmt.Sprintf("%s-%x", k, sum[:4])
			}
		}
		out = append(out, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Warning, Code: "openspec-key-collision", Path: group[0].Dir,
			Message: fmt.Sprintf("change folders %s all make the id openspec:%s; only a folder named exactly %s keeps it, the others get a suffix", strings.Join(capList(dirs, 5), ", "), k, path.Base(k))})
	}
	return out
}

// capList keeps the first n items and counts the rest.
func capList(list []string, n int) []string {
	if len(list) <= n {
		return list
	}
	out := append([]string(nil), list[:n]...)
	return append(out, fmt.Sprintf("… %d more", len(list)-n))
}
