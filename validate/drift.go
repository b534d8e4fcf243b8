package validate

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitrepo"
	"github.com/orchestrate-dev/orchestrate/validate/gitmemo"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// commitLimit is how many commits are named per changed path.
const commitLimit = 3

// change is how one path differs from the interruption.
type change struct {
	known       bool // git compared the path
	changed     bool
	committed   bool // changed by commits since the base
	uncommitted bool // an edit not committed
	own         bool // an uncommitted edit from before the interruption
	vsRecord    bool // judged against the hash the state recorded
	deleted     bool // present at base, missing now
	added       bool // absent at base, present now
}

// drift is conflicts (b) and (c): what changed in the referenced files and
// the involved stories since the interruption — through git when the
// interruption commit is known, else by modification time.
func (v *validator) drift() {
	storyByPath := map[string]*storyState{}
	for _, s := range v.stories {
		if s.story != nil && s.path != "" {
			storyByPath[s.path] = s
		}
	}
	for _, f := range v.files {
		if f.safe {
			f.story = storyByPath[f.clean]
		}
	}
	// Stories compared section by section: existing, unfinished, and not the
	// candidate's own source (a story candidate's file is its state).
	var stories []*storyState
	if v.c.Source.Kind != workflow.KindStory {
		for _, s := range v.stories {
			if s.story != nil && s.path != "" && !s.complete() {
				stories = append(stories, s)
			}
		}
	}

	at := v.c.UpdatedAt
	if v.in.Git == nil {
		v.add(workflow.CheckGit, workflow.Info, "no-git", "", "",
			"no git repository: changes since the interruption are judged by modification times")
		v.mtimeDrift(stories)
		return
	}
	if at.IsZero() && v.c.Commit == "" {
		v.noBaseline()
		return
	}
	v.rep.TimeCut = v.timeFromCut()
	if v.rep.TimeCut != "" && v.c.Commit == "" {
		// The time is a bound: the interruption commit could be any one
		// at or before the cut, and the history before it is missing.
		v.historyMissing(stories, fmt.Sprintf("at or before %s, the time of %s, where this %s's history ends",
			stamp(at), display(v.rep.TimeCut), v.cloneKind()))
		return
	}
	base, err := v.in.Git.InterruptionCommit(v.c.Commit, at)
	if err != nil {
		switch {
		case errors.Is(err, gitrepo.ErrHistoryMissing) || (errors.Is(err, gitrepo.ErrNoCommit) && v.in.Git.Shallow()):
			v.historyMissing(stories, v.baselineText()+"; "+v.cloneKind())
			return
		case errors.Is(err, gitrepo.ErrNoCommit):
			v.add(workflow.CheckGit, workflow.Info, "git-fallback", "", "",
				fmt.Sprintf("no commit at or before the interruption (%s); comparing modification times", v.baselineText()))
		default:
			v.add(workflow.CheckGit, workflow.Warning, "git-error", "", "",
				fmt.Sprintf("cannot find the interruption commit: %v; comparing modification times", err))
		}
		v.mtimeDrift(stories)
		return
	}
	v.rep.Base = base
	v.gitDrift(base, stories)
}

// HistoryCutter is implemented by a Git (*gitrepo.Repo does) that can tell
// where its history is cut short and whether it is a partial clone (see
// gitmemo.HistoryCutter).
type HistoryCutter = gitmemo.HistoryCutter

// timeFromCut returns the commit (as the candidate names it) its time was
// dated from when that commit is where the clone's history is cut short
// (a shallow boundary, or a commit whose parent is missing): the candidate
// was then last updated at or before that time, not at it — in a depth-1
// clone every file's last change is the boundary. "" otherwise.
func (v *validator) timeFromCut() string {
	rev, ok := strings.CutPrefix(v.c.UpdatedFrom, "git:")
	if !ok || rev == "" || v.in.Git == nil {
		return ""
	}
	hc, ok := v.in.Git.(HistoryCutter)
	// A complete clone has no cut (a missing parent there is damage, not
	// asked about on every validation).
	if !ok || (!v.in.Git.Shallow() && hc.Promisor() == "") || !hc.HistoryCut(rev) {
		return ""
	}
	return rev
}

// promisor is the partial clone's remote ("" when not a partial clone).
func (v *validator) promisor() string {
	if hc, ok := v.in.Git.(HistoryCutter); ok && v.in.Git != nil {
		return hc.Promisor()
	}
	return ""
}

// cloneKind names what cuts the history short.
func (v *validator) cloneKind() string {
	switch {
	case v.in.Git.Shallow():
		return "shallow clone"
	case v.promisor() != "":
		return "partial clone"
	}
	return "repository with missing objects"
}

// fetchAdvice is the command that brings the missing history: it names
// the remote of a partial clone when its name is plain (else "origin").
func (v *validator) fetchAdvice() string {
	if v.in.Git.Shallow() {
		return "fetch the full history with `git fetch --unshallow` (GitHub Actions: actions/checkout with fetch-depth: 0) and run again"
	}
	remote := v.promisor()
	if !plainName(remote) {
		remote = "origin"
	}
	return "fetch the missing objects with `git fetch --refetch --no-filter " + remote + "` (GitHub Actions: actions/checkout without a filter) and run again"
}

// plainName reports whether a remote name can be shown in a command as it
// is: letters, digits, '.', '_' and '-', not starting with '-'.
func plainName(s string) bool {
	if s == "" || len(s) > 64 || s[0] == '-' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return false
		}
	}
	return true
}

func (v *validator) baselineText() string {
	if v.c.Commit != "" && v.c.UpdatedAt.IsZero() {
		return "recorded commit " + display(v.c.Commit)
	}
	return stamp(v.c.UpdatedAt)
}

func (v *validator) noBaseline() {
	v.add(workflow.CheckGit, workflow.Info, "no-baseline", "", "",
		"the interruption time and commit are unknown: changes since the interruption cannot be checked")
	v.rep.GitMode = GitModeNone
}

// comparable reports whether f takes part in drift detection: safe and not
// a folder.
func (f *refFile) comparable() bool {
	return f.safe && !f.isDir
}

// gitDrift compares with the interruption commit base.
func (v *validator) gitDrift(base gitrepo.Commit, stories []*storyState) {
	paths := v.pathsOf(stories, nil)
	if len(paths) == 0 {
		v.rep.GitMode = GitModeNone
		return
	}
	states, err := v.in.Git.Compare(base, paths)
	if gitrepo.MissingHistory(err) {
		// The interruption commit's trees are not here (a partial clone
		// without trees): never judged by modification times.
		v.rep.Base = gitrepo.Commit{}
		v.historyMissing(stories, fmt.Sprintf("%s; the trees of the interruption commit %s are missing from this %s", v.baselineText(), base.Short, v.cloneKind()))
		return
	}
	if err != nil {
		v.add(workflow.CheckGit, workflow.Warning, "git-error", "", "",
			fmt.Sprintf("cannot compare the referenced files with the interruption commit %s: %v; comparing modification times", base.Short, err))
		v.rep.Base = gitrepo.Commit{}
		v.mtimeDrift(stories)
		return
	}
	v.rep.GitMode = GitModeGit
	stateOf := statesByPath(paths, states)

	// Classify every path, then ask for the commits of the committed ones
	// in one walk (a story's file not among the files: in storyCh).
	var committed []string
	changedFiles := 0
	for _, f := range v.files {
		f.ch = change{}
		if !f.comparable() {
			continue
		}
		ps := stateOf(f.clean)
		if ps == nil {
			continue
		}
		recorded := ""
		if f.story == nil {
			recorded = f.ref.Hash
		}
		f.ch = v.classify(*ps, recorded, f.mtime)
		if f.ch.changed {
			changedFiles++
		}
		if f.ch.committed {
			committed = append(committed, f.clean)
		}
	}
	var storyCh map[string]change
	changeOf := func(p string) (change, bool) {
		if f := v.byPath[p]; f != nil && f.ch.known {
			return f.ch, true
		}
		ch, ok := storyCh[p]
		return ch, ok
	}
	for _, s := range stories {
		if _, done := changeOf(s.path); done {
			continue
		}
		if ps := stateOf(s.path); ps != nil {
			ch := v.classify(*ps, "", func() time.Time { return v.mtimeOf(s.path) })
			if storyCh == nil {
				storyCh = make(map[string]change, len(stories))
			}
			storyCh[s.path] = ch
			if ch.committed {
				committed = append(committed, s.path)
			}
		}
	}
	commits := map[string][]gitrepo.Commit{}
	if len(committed) > 0 {
		sort.Strings(committed)
		// enough commits to tell whether all of a path's are the
		// workflow's own (see judge); messages name commitLimit of them
		got, err := v.in.Git.CommitsTouching(base, committed, ownCommitLimit)
		if gitrepo.MissingHistory(err) {
			// The changes are known (HEAD differs from base); who made
			// them is not: the history ends before base is reached.
			noun := "file"
			if len(committed) > 1 {
				noun = "files"
			}
			v.add(workflow.CheckConflict, workflow.Blocking, "history-missing", "", "",
				fmt.Sprintf("the git history does not reach the interruption commit %s along HEAD's first parents (%s): who changed %d referenced %s (%s) since cannot be told; %s",
					base.Short, v.cloneKind(), len(committed), noun, listPaths(committed), v.fetchAdvice()))
		} else if err != nil {
			v.add(workflow.CheckGit, workflow.Warning, "git-error", "", "",
				fmt.Sprintf("cannot list the commits since %s: %v", base.Short, err))
		} else if got != nil {
			commits = got
		}
	}

	v.list.Grow(changedFiles) // about one finding per changed file
	for _, f := range v.files {
		if !f.comparable() {
			continue
		}
		if !f.ch.known {
			f.state = FileUnknown
			continue
		}
		var by []gitrepo.Commit // only a committed or deleted file's are shown []gitrepo.Commit
		if f.ch.committed || f.ch.deleted {
			by = commits[f.clean]
		}
		v.fileChange(base, f, f.ch, by)
	}
	for _, s := range stories {
		ch, _ := changeOf(s.path)
		v.storyChange(base, s, ch, commits[s.path])
	}
}

// pathsOf is the cleaned paths of the comparable files keep keeps (nil:
// all; distinct, sorted as the files are), then the stories' files not
// among them: sorted, each once.
func (v *validator) pathsOf(stories []*storyState, keep func(*refFile) bool) []string {
	paths := make([]string, 0, len(v.files)+len(stories))
	for _, f := range v.files {
		if f.comparable() && (keep == nil || keep(f)) {
			paths = append(paths, f.clean)
		}
	}
	n := len(paths)
	var added map[string]bool
	for _, st := range stories {
		if _, found := slices.BinarySearch(paths[:n], st.path); found || added[st.path] {
			continue
		}
		if added == nil {
			added = make(map[string]bool, len(stories))
		}
		added[st.path] = true
		paths = append(paths, st.path)
	}
	if !slices.IsSorted(paths) {
		sort.Strings(paths)
	}
	return paths
}

// statesByPath finds the state of a compared path. When Compare answered
// in the order of paths (gitmemo.Memo does) it is found by position — the next
// one first, the files being asked in that order — else through a map.
func statesByPath(paths []string, states []gitrepo.PathState) func(string) *gitrepo.PathState {
	aligned := len(states) == len(paths)
	for i := 0; aligned && i < len(states); i++ {
		aligned = states[i].Path == paths[i]
	}
	if !aligned {
		byPath := make(map[string]*gitrepo.PathState, len(states))
		for i := range states {
			byPath[states[i].Path] = &states[i] // the last one, as before
		}
		return func(p string) *gitrepo.PathState { return byPath[p] }
	}
	next := 0
	return func(p string) *gitrepo.PathState {
		i, ok := next, next < len(paths) && paths[next] == p
		if !ok {
			i, ok = slices.BinarySearch(paths, p)
		}
		if !ok {
			return nil
		}
		next = i + 1
		return &states[i]
	}
}

// classify turns a git comparison into a change. A recorded hash (a git blob
// hash the state saved for the file) replaces the base commit's; mtime is
// the file's modification time, asked only when the rule needs it.
func (v *validator) classify(ps gitrepo.PathState, recorded string, mtime func() time.Time) change {
	ch := change{known: true, added: ps.BaseHash == "" && ps.OnDisk}
	if !ps.OnDisk {
		ch.deleted = ps.BaseHash != ""
		ch.committed = ps.Committed
		return ch
	}
	if recorded != "" && ps.DiskHash != "" && len(recorded) == len(ps.DiskHash) {
		ch.vsRecord = true
		if strings.EqualFold(recorded, ps.DiskHash) {
			return ch
		}
		ch.changed = true
		if ps.Changed {
			// HEAD's entry is known for a path that differs from base.
			ch.committed = !strings.EqualFold(ps.HeadHash, recorded)
			ch.uncommitted = ps.Uncommited
		} else {
			// The file is back at the base version: the recorded edit was
			// undone in the working tree.
			ch.uncommitted = true
		}
	} else {
		ch.changed, ch.committed, ch.uncommitted = ps.Changed, ps.Committed, ps.Uncommited
		if ch.changed && !ch.committed && !ch.uncommitted {
			ch.uncommitted = true
		}
	}
	// An uncommitted edit from before the interruption is the workflow's own
	// unfinished work — unless the state recorded the file's hash, which
	// then says exactly what the workflow left.
	if ch.changed && ch.uncommitted && !ch.committed && !ch.vsRecord && v.beforeInterruption(mtime()) {
		ch.own = true
	}
	return ch
}

// beforeInterruption reports whether a modification time is at or before
// the interruption (compared at second precision: state files record
// seconds).
func (v *validator) beforeInterruption(mtime time.Time) bool {
	at := v.c.UpdatedAt
	return !at.IsZero() && !mtime.IsZero() && !mtime.Truncate(time.Second).After(at)
}

// afterInterruption reports whether a modification time is after it.
func (v *validator) afterInterruption(mtime time.Time) bool {
	at := v.c.UpdatedAt
	return !at.IsZero() && !mtime.IsZero() && mtime.Truncate(time.Second).After(at)
}

// fileChange records the outcome for one referenced file (conflict c): the
// workflow's own change is progress (see progress.go), anyone else's a
// conflict.
func (v *validator) fileChange(base gitrepo.Commit, f *refFile, ch change, by []gitrepo.Commit) {
	if f.state == FileMissing {
		if ch.deleted {
			by = shown(by)
			f.by = by
			f.detail = "deleted since the interruption"
			if len(by) > 0 {
				f.detail += " by " + describeCommits(by)
			}
		}
		return
	}
	if !ch.changed {
		f.state = FileUnchanged
		return
	}
	if f.story != nil {
		// An involved story's file: storyChange reports it.
		f.state = FileChangedUncommitted
		if ch.committed {
			f.state = FileChangedCommitted
			f.by = shown(by)
		}
		return
	}
	if !ch.own {
		handled, others := v.fileProgress(base, f, ch, by)
		if handled {
			return
		}
		by = others
	}
	by = shown(by)
	rf, path := *f.ref, f.clean
	rec := ""
	if ch.vsRecord {
		rec = " (it differs from the hash the state recorded)"
	}
	switch {
	case ch.own:
		f.state = FileChangedUncommitted
		f.detail = "own uncommitted work (modified before the interruption)"
		v.add(workflow.CheckConflict, workflow.Info, "own-uncommitted-work", path, rf.Phase,
			path+" has uncommitted changes from before the interruption: the workflow's own unfinished work"+phaseNote(rf))
	case ch.committed:
		f.conflict = true
		f.state = FileChangedCommitted
		f.by = by
		clause, detail := v.clause(by)
		f.detail = detail
		also := ""
		if ch.uncommitted {
			also = "; it also has an uncommitted edit"
			f.detail += " and an uncommitted edit"
		}
		v.add(workflow.CheckConflict, workflow.Blocking, "file-changed", path, rf.Phase,
			path+" was changed since the interruption "+clause+also+rec+phaseNote(rf))
	default:
		f.conflict = true
		f.state = FileChangedUncommitted
		f.detail = "uncommitted edit"
		when := ""
		if !f.mtime().IsZero() {
			when = ", modified " + stamp(f.mtime())
		}
		v.add(workflow.CheckConflict, workflow.Blocking, "file-changed-uncommitted", path, rf.Phase,
			path+" has an uncommitted edit made after the interruption"+when+rec+phaseNote(rf))
	}
}

// byClause says what made a change: "by a1b2c3d (Jane Doe, …)", "by an
// uncommitted edit", or both.
// maxClauses bounds the texts a Run keeps for clause.
const maxClauses = 1 << 14

// clause is byClause(true, false, by) and the file report's detail
// "changed " + that, the same strings for the same commits within a Run
// (made once, shared by the reports that show them). The text depends on
// each commit's short and full hash, author, email and time to the second
// (stamp), all in the key.
func (v *validator) clause(by []gitrepo.Commit) (clause, detail string) {
	r := v.in.Run
	if r == nil || len(by) == 0 {
		clause = byClause(true, false, by)
		return clause, "changed " + clause
	}
	// the key is made in the validator's buffer: a text made already is
	// found without a string made for its key
	kb := v.keyBuf[:0]
	for _, c := range by {
		kb = append(kb, c.Hash...)
		kb = append(kb, 0)
		kb = append(kb, c.Short...)
		kb = append(kb, 0)
		kb = append(kb, c.Author...)
		kb = append(kb, 0)
		kb = append(kb, c.Email...)
		kb = append(kb, 0)
		kb = strconv.AppendInt(kb, c.When.Unix(), 10)
		kb = append(kb, 0)
	}
	v.keyBuf = kb
	r.clauseMu.Lock()
	defer r.clauseMu.Unlock()
	if s, ok := r.clauses[string(kb)]; ok {
		return s[0], s[1]
	}
	clause = byClause(true, false, by)
	detail = "changed " + clause
	if r.clauses == nil || len(r.clauses) >= maxClauses {
		r.clauses = map[string][2]string{}
	}
	r.clauses[string(kb)] = [2]string{clause, detail}
	return clause, detail
}

func byClause(committed, uncommitted bool, by []gitrepo.Commit) string {
	var parts []string
	if committed {
		if len(by) > 0 {
			parts = append(parts, describeCommits(by))
		} else {
			parts = append(parts, "commits since the interruption")
		}
	}
	if uncommitted {
		parts = append(parts, "an uncommitted edit")
	}
	return "by " + strings.Join(parts, " and ")
}

// Section display names for messages.
var sectionNames = map[string]string{
	workflow.SectionAcceptance:   "Acceptance Criteria",
	workflow.SectionScope:        "Scope",
	workflow.SectionDependencies: "Dependencies",
	workflow.SectionFileList:     "File List",
	workflow.SectionChangeLog:    "Change Log",
	workflow.SectionDevNotes:     "Dev Notes",
	workflow.SectionTasks:        "Tasks",
}

func sectionName(key string) string {
	if n, ok := sectionNames[key]; ok {
		return n
	}
	words := strings.FieldsFunc(key, func(r rune) bool { return r == '-' || r == '_' || r == ' ' })
	for i, w := range words {
		words[i] = strings.ToUpper(w[:1]) + w[1:]
	}
	return display(strings.Join(words, " "))
}
