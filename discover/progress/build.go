package progress

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/storyid"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// progFields are the fields of a progress file: its metadata and execution
// state items, normalised, with the lines they stand on.
type progFields struct {
	file                 string
	f                    *source.Fields
	meta, exec           map[string]any
	metaItems, execItems map[string]*progItem
}

// progReadFields collects the metadata and execution state items; a fenced
// YAML/JSON block in the execution state adds the keys the list lacks.
func progReadFields(file string, doc *progDoc) *progFields {
	p := &progFields{file: file, f: &source.Fields{Path: file}}
	p.meta, p.metaItems = progItems(doc.Meta, false)
	p.exec, p.execItems = progItems(doc.Exec, true)
	for _, b := range doc.Blocks {
		if b.Section != progExecState || b.Owned || !progDataInfo(b.Info) || strings.TrimSpace(b.Body) == "" {
			continue
		}
		m, err := tolerant.DecodeYAMLMap([]byte(b.Body))
		if err != nil {
			if b.Info != "" { // an untagged block may be anything
				p.f.Findings = append(p.f.Findings, progBlockFinding(file, b, "execution state", err))
			}
			continue
		}
		for k, v := range m {
			n := progNorm(k)
			if _, ok := p.exec[n]; !ok && n != "" {
				p.exec[n] = v
			}
		}
	}
	return p
}

// both looks keys up in the metadata, then in the execution state.
func (p *progFields) both(keys []string) (any, string) {
	if v, k := progLookup(p.meta, keys...); k != "" {
		return v, k
	}
	return progLookup(p.exec, keys...)
}

// str is both as text (a warning when the value is not text).
func (p *progFields) str(keys []string) (string, string) {
	v, k := p.both(keys)
	if k == "" {
		return "", ""
	}
	s, ok := tolerant.ScalarString(v)
	if !ok {
		p.f.Wrong(k, "text", v)
		return "", ""
	}
	return s, k
}

// progBuild turns a parsed progress file into a candidate.
func progBuild(file string, doc *progDoc) workflow.Candidate {
	p := progReadFields(file, doc)
	c := workflow.Candidate{
		Type:     workflow.TypeProgress,
		Source:   workflow.SourceRef{Kind: workflow.KindProgress, Path: file, Priority: workflow.PriorityWorkflow},
		Workflow: "progress",
		Stories:  []string{},
		Context:  map[string]any{},
	}
	p.identify(&c)
	p.status(&c)
	p.plainFields(&c, doc)
	progConfiguration(&c, p.f, doc)
	if conv := progConversationList(doc); len(conv) > 0 {
		c.Context[ProgressCtxConversation] = conv
	}
	progSteps(&c, p.f, p.exec, p.execItems)
	p.files(&c)
	if len(c.Files) == 0 {
		c.Files = nil
	}
	if len(c.Context) == 0 {
		c.Context = nil
	}
	c.Findings = append(c.Findings, p.f.Findings...)
	return c
}

// identify sets the key and id (the session id, else the file name) and
// the workflow: a definition id, or the workflow prompt file it runs.
func (p *progFields) identify(c *workflow.Candidate) {
	key, _ := p.str(progIDKeys)
	if key == "" {
		key = source.Stem(p.file)
	}
	c.Key = storyid.Sanitize(key)
	c.ID = "progress:" + c.Key
	if wf, _ := p.str(progWorkflowKeys); wf != "" {
		wf = progCleanName(wf)
		if progIsDefID(wf) {
			c.Workflow = wf
			if alias := source.AliasDef(wf); alias != "" {
				c.Workflow = alias
			}
		} else {
			c.Context[ProgressCtxWorkflowFile] = wf
		}
	}
}

// status sets the status; a missing, ambiguous or unknown one is treated as
// interrupted, with a finding.
func (p *progFields) status(c *workflow.Candidate) {
	raw, _ := p.str(progStatusKeys)
	c.StatusRaw = raw
	status := progStatus(raw)
	finding := func(sev workflow.Severity, code, msg string, line int) {
		c.Findings = append(c.Findings, workflow.Finding{
			Check: workflow.CheckParse, Severity: sev, Code: code, Path: p.file, Line: line, Message: msg,
		})
	}
	switch {
	case raw == "":
		status = "unknown"
		finding(workflow.Info, "no-status", "the progress file records no status; treated as interrupted", 0)
	case status == "":
		status = "unknown"
		finding(workflow.Warning, "ambiguous-status",
			fmt.Sprintf("status %q names several statuses (an unfilled template?); treated as interrupted", workflow.Truncate(raw, 80)),
			progLine(p.metaItems, p.execItems, progStatusKeys))
	case !progKnownStatus(status):
		finding(workflow.Info, "unknown-status",
			fmt.Sprintf("status %q is not one a progress file uses (paused, failed, interrupted, in_progress, completed); treated as interrupted", workflow.Truncate(raw, 80)),
			progLine(p.metaItems, p.execItems, progStatusKeys))
	}
	c.Status = status
	c.Resumable = !workflow.IsTerminalStatus(status)
}

// plainFields reads the times, agent, mode, commit, AI session, stories,
// stop reason, title and the metadata and execution state themselves.
func (p *progFields) plainFields(c *workflow.Candidate, doc *progDoc) {
	f, meta, exec := p.f, p.meta, p.exec
	c.UpdatedAt, c.UpdatedFrom = progTime(f, meta, exec, progUpdatedKeys)
	if c.UpdatedFrom != "" {
		c.UpdatedFrom = "field:" + c.UpdatedFrom
	}
	c.StartedAt, _ = progTime(f, meta, exec, progStartedKeys)
	c.Agent, _ = p.str([]string{"agent", "current_agent", "executor"})
	c.Agent = strings.TrimPrefix(progCleanName(c.Agent), "@")
	mode, _ := p.str([]string{"mode", "execution_mode"})
	c.Mode = source.Mode(mode)
	c.Commit, _ = p.str([]string{"base_commit", "commit", "git_commit", "head_commit"})
	c.AISessionID, _ = p.str([]string{"ai_session_id", "ai_session", "resume_token", "conversation_id"})
	c.AISessionID = progCleanName(c.AISessionID)
	if v, k := p.both([]string{"story", "story_id", "stories"}); k != "" {
		for _, s := range progList(f, k, v) {
			if id, path := storyid.FromRef(s); id != "" && !c.HasStory(id) {
				c.Stories = append(c.Stories, id)
				c.StoryRefs = append(c.StoryRefs, workflow.StoryRef{ID: id, Path: path})
			}
		}
		sort.Strings(c.Stories)
	}
	if reason, _ := p.str(progReasonKeys); reason != "" {
		c.Context[ProgressCtxReason] = reason
	}
	if doc.Title != "" {
		c.Context[ProgressCtxTitle] = doc.Title
	}
	if len(meta) > 0 {
		c.Context[ProgressCtxMetadata] = meta
	}
	if len(exec) > 0 {
		c.Context[ProgressCtxExecutionState] = exec
	}
}

// files collects the referenced files: the workflow prompt file, then the
// paths in the variable state and the file lists of the execution state.
func (p *progFields) files(c *workflow.Candidate) {
	set := source.NewFileSet(nil)
	if wfFile, ok := c.Context[ProgressCtxWorkflowFile].(string); ok && refpath.LooksLikePath(wfFile) {
		set.Add(workflow.RefFile{Path: wfFile, From: "metadata.workflow"})
	}
	phase := source.CurrentPhaseID(c)
	keys := source.SortedKeys(p.exec)
	for _, k := range keys {
		switch {
		case progIsVarKey(k):
			if v, ok := p.variables(c, k); ok {
				progPaths(set, v, "execution_state."+k, phase, 0)
			}
		case progIsFileKey(k):
			v := p.exec[k]
			if s, ok := v.(string); ok {
				if d, ok := progDecodeValue(s); ok {
					v = d
				} else {
					var l []any
					for _, x := range progList(p.f, k, s) {
						l = append(l, x)
					}
					v = l
				}
			}
			progPaths(set, v, "execution_state."+k, phase, 0)
		}
	}
	set.Finish(c, p.file)
}

// variables decodes the variable state under k (text holding JSON or YAML,
// or a mapping) and keeps the first mapping as the candidate's variables;
// ok is false (with a warning) for text that looks like a mapping but does
// not decode.
func (p *progFields) variables(c *workflow.Candidate, k string) (any, bool) {
	v := p.exec[k]
	keep := func(m map[string]any) {
		if _, have := c.Context[ProgressCtxVariables]; !have {
			c.Context[ProgressCtxVariables] = m
		}
	}
	if s, ok := v.(string); ok {
		if d, ok := progDecodeValue(s); ok {
			if m, ok := d.(map[string]any); ok {
				keep(m)
			}
			return d, true
		}
		if strings.HasPrefix(strings.TrimSpace(s), "{") {
			p.f.Findings = append(p.f.Findings, workflow.Finding{
				Check: workflow.CheckParse, Severity: workflow.Warning, Code: "bad-variables", Path: p.file,
				Line:    progItemLine(p.execItems, k),
				Message: fmt.Sprintf("%s is not a well-formed JSON or YAML mapping; kept as text", k),
			})
			return nil, false
		}
	} else if m, ok := v.(map[string]any); ok {
		keep(m)
	}
	return v, true
}

// progIsDefID reports whether a workflow name is a definition id
// ("story-development-cycle") rather than a file ("workflow.prompt.md").
func progIsDefID(s string) bool {
	if s == "" || len(s) > 100 || strings.ContainsAny(s, "/\\ .") {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func progIsVarKey(k string) bool {
	return slices.Contains(progVarKeys, k) || strings.HasPrefix(k, "variable")
}

func progIsFileKey(k string) bool {
	for _, s := range []string{"file", "path", "artifact", "output"} {
		if strings.Contains(k, s) {
			return true
		}
	}
	return false
}

// progPaths adds every text in v that looks like a file path (non-critical).
func progPaths(set *source.FileSet, v any, from, phase string, depth int) {
	if depth > tolerant.MaxDepth {
		return
	}
	switch t := v.(type) {
	case []any:
		for _, x := range t {
			progPaths(set, x, from, phase, depth+1)
		}
	case map[string]any:
		keys := source.SortedKeys(t)
		for _, k := range keys {
			progPaths(set, t[k], from, phase, depth+1)
		}
	case string:
		if refpath.LooksLikePath(t) {
			set.Add(workflow.RefFile{Path: t, Phase: phase, From: from})
		}
	}
}
