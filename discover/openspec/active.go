package openspec

// An active change folder's documents (readChange reads them through
// readActiveKept: from the draft cache, else here).

import (
	"fmt"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// readActive reads active change c's documents (its folder's files has,
// opened as folder; specs its delta specs when already listed, else nil):
// tasks.md parsed, the other documents referenced, .openspec.yaml read
// when in flight. clean reports that every document read gave no error.
func readActive(r *source.Repo, rt *root, c *change, has map[string]bool, folder *safefile.Dir, cache *tasksCache, exists func(string) bool, specs []string) (clean bool) {
	dir := c.Dir
	p := dir + "/tasks.md"
	clean = true
	if has["tasks.md"] {
		c.TasksPath = p
		var mt time.Time
		var err error
		c.Tasks, c.exists, mt, err = cache.parse(r, p, folder, exists)
		c.ModTime = mt
		if err != nil {
			c.unread, clean = true, false
			c.Findings = append(c.Findings, source.ReadFinding(p, err))
		}
	}
	if c.exists == nil {
		c.exists = refpath.BoundedExists(exists, maxExistsLookups) // no tasks.md
	}
	if c.ModTime.IsZero() {
		c.ModTime = r.ModTime(dir)
	}
	c.Docs = changeDocs(r, cache, folder, dir, has, specs)
	if c.TasksPath == "" && has["task.md"] {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "openspec-task-md", Path: dir + "/task.md",
			Message: "task.md is not read by OpenSpec (it tracks tasks.md): the change shows as \"No tasks\""})
	}
	if c.Tasks.Truncated {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Warning, Code: "too-many-tasks", Path: p,
			Message: fmt.Sprintf("more than %d task lines; the rest are not read", maxTasks)})
	}
	if c.Tasks.UnclosedFence > 0 {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Info, Code: "unclosed-code-fence", Path: p, Line: c.Tasks.UnclosedFence,
			Message: fmt.Sprintf("line %d: a code fence is never closed; the boxes after it are counted", c.Tasks.UnclosedFence)})
	}
	if has[".openspec.yaml"] && c.inFlight() {
		var read bool
		c.Created, c.Schema, read = cache.meta(r, dir+"/.openspec.yaml", folder)
		clean = clean && read
	}
	schema := c.Schema
	if schema == "" {
		schema = rt.Schema
	}
	if schema != "" && schema != "spec-driven" {
		c.Findings = append(c.Findings, workflow.Finding{Check: workflow.CheckDiscover, Severity: workflow.Info, Code: "openspec-custom-schema", Path: dir,
			Message: fmt.Sprintf("schema %q may track another file than tasks.md; orchestrate reads only tasks.md", schema)})
	}
	return clean
}

// changeDocs are an active change's documents besides tasks.md: its
// proposal.md, design.md and .openspec.yaml, then its delta specs (specs
// when already listed, else specDocs), at most source.MaxFiles of them.
func changeDocs(r *source.Repo, cache *tasksCache, folder *safefile.Dir, dir string, has map[string]bool, specs []string) []string {
	var docs []string
	for _, doc := range []string{"proposal.md", "design.md", ".openspec.yaml"} {
		if has[doc] {
			docs = append(docs, dir+"/"+doc)
		}
	}
	if has["specs/"] {
		if specs == nil {
			specs = deltaSpecs(r, cache, folder, dir)
		}
		docs = append(docs, specs...)
	}
	return docs
}

// deltaSpecs are the delta specs of the change folder dir (specDocs), at
// most source.MaxFiles of them.
func deltaSpecs(r *source.Repo, cache *tasksCache, folder *safefile.Dir, dir string) []string {
	specs := specDocs(r, cache.folderTable(), folder, dir)
	if len(specs) > source.MaxFiles {
		specs = specs[:source.MaxFiles]
	}
	return specs
}
