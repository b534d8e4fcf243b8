package rebuild

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/qaloop"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// rbHit is a story found for a rebuild, and where.
type rbHit struct {
	id, from string
	story    *workflow.Story // nil when the repository has no such story file
}

// rawText reads the corrupt file as it is (binary content included), up to
// the configured size limit.
func (b *rbBuilder) rawText() []byte {
	if b.rawRead {
		return b.raw
	}
	b.rawRead = true
	clean, err := safefile.CheckPath(b.r.Root, b.c.Source.Path)
	if err != nil {
		return nil
	}
	f, err := os.Open(filepath.Join(b.r.Root, filepath.FromSlash(clean)))
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	max := b.r.Config.MaxFileSize
	if max <= 0 {
		max = 8 << 20
	}
	data, err := io.ReadAll(io.LimitReader(f, max))
	if err != nil {
		return nil
	}
	b.raw = data
	return data
}

var (
	// rbTokenRe finds words, ids and paths in a damaged file.
	rbTokenRe = lazyre.New(`[A-Za-z0-9][A-Za-z0-9._/\-]*[A-Za-z0-9]|[A-Za-z0-9]`)
	// rbStoryKeyRe finds a story id written after a story key (id: "3.5",
	// story: 4.2, storyId=2.1), even for a story without a file.
	rbStoryKeyRe = lazyre.New(`(?i)(?:^|[\s{,\[])["']?(?:id|story|story_id|storyid|current_story|currentstory)["']?\s*[:=]\s*["']?(\d{1,6}(?:\.\d{1,6}){1,3})\b`)
	// rbWorkflowRe salvages the workflow id of a workflow state.
	rbWorkflowRe = lazyre.New(`(?im)^\s*["']?(?:workflow|workflow_id|workflowid)["']?\s*:\s*["']?([A-Za-z0-9_.\-]{1,100})`)
	// rbMentionRe finds an agent mentioned in a Change Log item.
	rbMentionRe = lazyre.New(`@([A-Za-z][\w-]*)`)
)

// storyByPath maps story file paths to stories.
func (b *rbBuilder) storyByPath() map[string]*workflow.Story {
	out := make(map[string]*workflow.Story, len(b.r.Stories))
	for _, st := range b.r.Stories {
		if st != nil && st.Path != "" {
			out[st.Path] = st
		}
	}
	return out
}

// salvage finds the stories a rebuild is about, in the order found: ids and
// story paths in the corrupt file's text and path, stories other candidates
// link to it, and (for an epic) stories whose Epic line names it. unknown
// story ids (no file) are kept only when written after a story key.
func (b *rbBuilder) salvage() []rbHit {
	var hits []rbHit
	seen := map[string]bool{}
	byPath := b.storyByPath()
	add := func(id, from string, needFile bool) {
		if id == "" || seen[id] || len(hits) >= 1000 {
			return
		}
		st := b.r.Stories[id]
		if st == nil && needFile {
			return
		}
		seen[id] = true
		hits = append(hits, rbHit{id: id, from: from, story: st})
	}
	word := func(tok, from string) {
		tok = strings.Trim(tok, "./-")
		if tok == "" {
			return
		}
		if st := b.r.Stories[tok]; st != nil {
			add(tok, from, true)
			return
		}
		if strings.Contains(tok, "/") {
			if st := byPath[path.Clean(tok)]; st != nil {
				add(st.ID, from, true)
				return
			}
		}
		if strings.ContainsAny(tok, "-_") {
			for _, part := range strings.FieldsFunc(tok, func(r rune) bool { return r == '-' || r == '_' || r == '/' }) {
				if b.r.Stories[part] != nil {
					add(part, from, true)
				}
			}
		}
	}

	src := b.c.Source.Path
	fromText := "text of " + src
	raw := b.rawText()
	if len(raw) > 0 {
		text := strings.ToValidUTF8(string(raw), " ")
		for _, tok := range rbTokenRe().FindAllString(text, rbMaxSalvage) {
			word(tok, fromText)
		}
		if b.c.Source.Kind == workflow.KindEpicState {
			for _, m := range rbStoryKeyRe().FindAllStringSubmatch(text, 1000) {
				add(m[1], fromText, false)
			}
		}
	}
	for _, part := range strings.FieldsFunc(src, func(r rune) bool { return r == '/' || r == '-' || r == '_' }) {
		if b.r.Stories[part] != nil {
			add(part, "path "+src, true)
		}
	}
	dir := path.Base(path.Dir(src))
	if b.r.Stories[dir] != nil {
		add(dir, "path "+src, true)
	}

	// a loops index entry folded into this candidate names its story
	for _, e := range b.c.Evidence {
		if e.Kind != workflow.KindQALoopIndex {
			continue
		}
		data, err := b.r.Read(e.Path)
		if err != nil {
			continue
		}
		entries, _ := qaloop.ParseIndex(e.Path, data, b.r.Definition(workflow.DefQALoop))
		for _, en := range entries {
			if en.StatusFile == src || path.Join(path.Dir(e.Path), en.StatusFile) == src {
				for _, id := range en.Cand.Stories {
					add(id, e.Path, true)
				}
			}
		}
	}
	// other candidates that point at this state file
	others := append([]workflow.Candidate(nil), b.others...)
	sort.SliceStable(others, func(i, j int) bool { return others[i].ID < others[j].ID })
	for _, o := range others {
		if o.ID == b.c.ID || !rbLinks(o, src) {
			continue
		}
		for _, id := range o.Stories {
			add(id, o.Source.Path, true)
		}
	}
	// stories of the epic
	if b.c.Source.Kind == workflow.KindEpicState {
		ids := make([]string, 0, len(b.r.Stories))
		for id, st := range b.r.Stories {
			if st != nil && rbSameEpic(st.Epic, b.c.Key) {
				ids = append(ids, id)
			}
		}
		sort.Strings(ids)
		for _, id := range ids {
			add(id, "Epic line of story "+id, true)
		}
	}
	return hits
}

// rbLinks reports whether candidate o refers to the state file p. A story
// candidate refers to its own file, which a story not in flight no longer
// lists in its Files (discover/story): a story glob configured over state
// files reads the same as before that.
func rbLinks(o workflow.Candidate, p string) bool {
	if o.Source.Kind == workflow.KindStory && o.Source.Path == p {
		return true
	}
	for _, f := range o.Files {
		if f.Path == p {
			return true
		}
	}
	for _, e := range o.Evidence {
		if e.Path == p {
			return true
		}
	}
	return false
}

// rbSameEpic compares a story's Epic line with an epic key: "3", "Epic 3",
// "EPIC-3" and "epic-3: Title" all name epic 3.
func rbSameEpic(line, key string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if i := strings.IndexAny(s, ":(—"); i > 0 {
			s = strings.TrimSpace(s[:i])
		}
		s = strings.TrimPrefix(s, "epic")
		return strings.Trim(s, " -_#")
	}
	k := norm(key)
	return k != "" && norm(line) == k
}

// rbKnownStories returns the hits that have a story file.
func rbKnownStories(hits []rbHit) []rbHit {
	var out []rbHit
	for _, h := range hits {
		if h.story != nil {
			out = append(out, h)
		}
	}
	return out
}
