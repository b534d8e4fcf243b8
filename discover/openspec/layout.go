package openspec

import (
	"path"

	"github.com/orchestrate-dev/orchestrate/discover/source"
)

// Layout is the OpenSpec generation a root shows (Rule A1.1): it decides
// which command continues a change, never where the state lives.
type Layout struct {
	// Version is "0.x" (project.md/AGENTS.md, /openspec:* commands) or
	// "1.x" (config.yaml, .openspec.yaml, /opsx:* commands and skills).
	Version string
	// Evidence is the file that decided ("" when assumed).
	Evidence string
}

// Framework is the candidate's framework name: "openspec-1.x".
func (l Layout) Framework() string { return "openspec-" + l.Version }

// Apply is the framework's own command to continue change id (Part D.9).
func (l Layout) Apply(id string) string {
	if l.Version == "0.x" {
		return "/openspec:apply " + id
	}
	return "/opsx:apply " + id
}

// Archive is the framework's own command to archive a finished change.
func (l Layout) Archive(id string) string {
	if l.Version == "0.x" {
		return "/openspec:archive " + id + " (or openspec archive " + id + ")"
	}
	return "/opsx:archive " + id + " (or openspec archive " + id + ")"
}

// Describe is the layout with what decided it, for notes.
func (l Layout) Describe() string {
	if l.Evidence == "" {
		return "OpenSpec " + l.Version + " (no marker file; the current layout assumed)"
	}
	return "OpenSpec " + l.Version + " (" + l.Evidence + ")"
}

// DetectLayout tells the generation of the root dir from the files the CLI
// leaves: 1.x command files or skills first, then 0.x command files (a
// 0.22–0.23 project has config.yaml and still /openspec:apply), then the
// 1.x metadata (config.yaml, .openspec.yaml), then the 0.x documents
// (project.md, AGENTS.md, README.md). None of them is required: without a
// marker the current layout is assumed.
func DetectLayout(r *source.Repo, dir string) Layout {
	parent := path.Dir(dir)
	var bases []string
	if parent != "." {
		bases = append(bases, parent+"/")
	}
	bases = append(bases, "")
	glob := func(pats ...string) string {
		var all []string
		for _, b := range bases {
			for _, p := range pats {
				all = append(all, b+p)
			}
		}
		if got := r.Glob(all, true); len(got) > 0 {
			return got[0]
		}
		if got := r.Glob(all, false); len(got) > 0 {
			return got[0]
		}
		return ""
	}
	if p := glob(".*/commands/opsx", ".*/skills/openspec-apply-change", ".*/prompts/opsx-apply*", ".*/workflows/opsx-apply*", ".*/commands/opsx-apply*"); p != "" {
		return Layout{Version: "1.x", Evidence: p}
	}
	if p := glob(".*/commands/openspec", ".*/commands/openspec-apply*", ".*/prompts/openspec-apply*", ".*/workflows/openspec-apply*"); p != "" {
		return Layout{Version: "0.x", Evidence: p}
	}
	for _, f := range []string{"config.yaml", "config.yml"} {
		if r.Exists(dir + "/" + f) {
			return Layout{Version: "1.x", Evidence: dir + "/" + f}
		}
	}
	if got := r.Glob([]string{dir + "/changes/*/.openspec.yaml"}, false); len(got) > 0 {
		return Layout{Version: "1.x", Evidence: got[0]}
	}
	for _, f := range []string{"project.md", "AGENTS.md", "README.md"} {
		if r.Exists(dir + "/" + f) {
			return Layout{Version: "0.x", Evidence: dir + "/" + f}
		}
	}
	return Layout{Version: "1.x"}
}

// projectDir is the folder a root's commands run from ("" for the
// repository's own openspec/).
func projectDir(rt *root) string {
	if rt.Prefix == "" {
		return ""
	}
	return path.Dir(rt.Dir)
}
