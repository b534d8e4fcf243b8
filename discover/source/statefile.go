package source

import (
	"path"
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// UnreadableStatus is the status of a candidate whose file cannot be
// read or decoded.
const UnreadableStatus = "unreadable"

// StampMTime falls back to the file's modification time when the state
// records no update time.
func StampMTime(r *Repo, c *workflow.Candidate, p string) {
	if !c.UpdatedAt.IsZero() {
		return
	}
	if t := r.ModTime(p); !t.IsZero() {
		c.UpdatedAt = t
		c.UpdatedFrom = "mtime"
	}
}

// StateCommon fills the fields every state-file candidate reads the same way:
// update and start times, commit, mode, agent and context.
func StateCommon(f *Fields, st map[string]any, c *workflow.Candidate) {
	if t, k := f.Time(st, "updatedAt", "updated_at", "lastUpdated", "last_updated", "paused_at", "pausedAt"); !t.IsZero() {
		c.UpdatedAt, c.UpdatedFrom = t, "field:"+k
	}
	c.StartedAt, _ = f.Time(st, "startedAt", "started_at")
	c.Commit = f.Str(st, "base_commit", "baseCommit", "commit", "git_commit")
	c.Mode = f.Str(st, "mode")
	c.Agent = strings.TrimPrefix(f.Str(st, "current_agent", "currentAgent", "agent"), "@")
	c.Context = f.Map(st, "context")
}

// StateStem is the file name without its folder, a .bak suffix and its
// extension.
func StateStem(p string) string {
	base := path.Base(strings.TrimSuffix(p, ".bak"))
	if ext := path.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	if base == "." || base == "/" {
		return ""
	}
	return base
}

// IsBackup reports whether p is a .bak copy (never a candidate itself).
func IsBackup(p string) bool { return strings.HasSuffix(p, ".bak") }

// DecodeMap decodes a state file by its extension: .json as JSON,
// .yaml/.yml as YAML, anything else as JSON when preferJSON, else YAML.
func DecodeMap(p string, data []byte, preferJSON bool) (map[string]any, error) {
	switch strings.ToLower(path.Ext(strings.TrimSuffix(p, ".bak"))) {
	case ".json":
		return tolerant.DecodeJSONMap(data)
	case ".yaml", ".yml":
		return tolerant.DecodeYAMLMap(data)
	}
	if preferJSON {
		return tolerant.DecodeJSONMap(data)
	}
	return tolerant.DecodeYAMLMap(data)
}

// Overlay returns outer without skip, with inner's keys over it: the
// fields of a wrapped state, with the wrapper's siblings as fallbacks.
func Overlay(outer, inner map[string]any, skip string) map[string]any {
	out := make(map[string]any, len(outer)+len(inner))
	for k, v := range outer {
		if k != skip {
			out[k] = v
		}
	}
	for k, v := range inner {
		if v != nil {
			out[k] = v
		}
	}
	return out
}

// PathField reads a path field that may be text or a mapping with a
// path; it returns the value and the key used.
func PathField(f *Fields, m map[string]any, keys ...string) (string, string) {
	return f.TextOrMap(m, keys, []string{"path", "file"}, "a path")
}

// TextOrMap returns the first of keys whose value gives text, and the key:
// text itself, or a mapping's text under the first of sub present. A value
// of another type is a wrong type (want says what it should be).
func (f *Fields) TextOrMap(m map[string]any, keys, sub []string, want string) (string, string) {
	for _, k := range keys {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		if mm, ok := v.(map[string]any); ok {
			if s := f.Str(mm, sub...); s != "" {
				return s, k
			}
			continue
		}
		s, ok := tolerant.ScalarString(v)
		if !ok {
			f.Wrong(k, want, v)
			continue
		}
		if s != "" {
			return s, k
		}
	}
	return "", ""
}

// AddFile appends rf unless its path is already listed; a repeat makes
// the listed entry critical when rf is.
func AddFile(files []workflow.RefFile, rf workflow.RefFile) []workflow.RefFile {
	if rf.Path == "" {
		return files
	}
	for i := range files {
		if files[i].Path == rf.Path {
			files[i].Critical = files[i].Critical || rf.Critical
			if files[i].Hash == "" {
				files[i].Hash = rf.Hash
			}
			return files
		}
	}
	return append(files, rf)
}

// RefFiles reads a file list: text paths, mappings {path|file, hash},
// or a mapping path -> hash. Entries get phase and From = the key.
func RefFiles(f *Fields, m map[string]any, phase string, keys ...string) []workflow.RefFile {
	var out []workflow.RefFile
	for _, k := range keys {
		v, ok := m[k]
		if !ok || v == nil {
			continue
		}
		one := func(item any, hashHint string) {
			switch t := item.(type) {
			case map[string]any:
				p := f.Str(t, "path", "file", "name")
				h := f.Str(t, "hash", "sha", "blob", "blob_hash", "git_hash")
				if h == "" {
					h = hashHint
				}
				if p = refpath.KeepUnsafe(p); p != "" {
					out = AddFile(out, workflow.RefFile{Path: p, Phase: phase, Hash: h, From: k})
				}
			default:
				s, ok := tolerant.ScalarString(item)
				if !ok {
					f.Wrong(k+"[]", "a path", item)
					return
				}
				if s = refpath.KeepUnsafe(s); s != "" {
					out = AddFile(out, workflow.RefFile{Path: s, Phase: phase, Hash: hashHint, From: k})
				}
			}
		}
		switch t := v.(type) {
		case []any:
			for _, it := range t {
				one(it, "")
			}
		case map[string]any:
			for _, p := range SortedKeys(t) {
				h := ""
				if mm, ok := t[p].(map[string]any); ok {
					h = f.Str(mm, "hash", "sha", "blob", "blob_hash", "git_hash")
				} else if t[p] != nil {
					h, _ = tolerant.ScalarString(t[p])
				}
				one(p, h)
			}
		case string:
			one(t, "")
		default:
			f.Wrong(k, "a list of paths", v)
		}
	}
	return out
}

// SortedKeys returns m's keys sorted.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// HasRef reports whether fs lists the path p.
func HasRef(fs []workflow.RefFile, p string) bool {
	for _, f := range fs {
		if f.Path == p {
			return true
		}
	}
	return false
}

// SortEvidence orders evidence by source priority, then path.
func SortEvidence(ev []workflow.SourceRef) {
	sort.SliceStable(ev, func(i, j int) bool {
		if ev[i].Priority != ev[j].Priority {
			return ev[i].Priority < ev[j].Priority
		}
		return ev[i].Path < ev[j].Path
	})
}

// Unreadable is the candidate of a state file that cannot be read or is not
// in its format: it keeps the file's place in the list (status
// "unreadable", resumable, id "<prefix>:<key>") and carries the findings
// that say why. Stories is an empty list, not nil.
func Unreadable(src workflow.SourceRef, typ workflow.Type, prefix, key, wf string, findings ...workflow.Finding) workflow.Candidate {
	return workflow.Candidate{
		ID:        prefix + ":" + key,
		Type:      typ,
		Key:       key,
		Source:    src,
		Workflow:  wf,
		Stories:   []string{},
		Status:    UnreadableStatus,
		Resumable: true,
		Findings:  append([]workflow.Finding(nil), findings...),
	}
}
