package spec

import (
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// specResolve places a bare artifact name in the spec folder; other paths
// are repository-relative.
func specResolve(dir, p string) string {
	p = refpath.CleanPath(p)
	if p != "" && !strings.Contains(p, "/") && dir != "" && dir != "." {
		return dir + "/" + p
	}
	return p
}

// specArtifact is one artifact file found in a spec folder.
type specArtifact struct {
	Phase   string
	Path    string
	ModTime time.Time
	rank    int
}

// specArtifactNames are the artifact names of the nexos spec tasks and
// their variants, critique first so `spec-critique.md` is a critique.
var specArtifactNames = []struct {
	phase    string
	bases    []string
	prefixes []string
}{
	{"critique", []string{"critique", "critique-report", "critique_report", "spec-critique", "spec_critique"}, []string{"critique-", "critique_"}},
	{"gather", []string{"requirements", "requirements-gathering", "requirements_gathering"}, []string{"requirements-", "requirements_"}},
	{"assess", []string{"complexity", "complexity-assessment", "complexity_assessment", "assessment"}, []string{"complexity-", "complexity_"}},
	{"research", []string{"research", "research-findings", "research_findings", "dependency-research", "dependency_research"}, []string{"research-", "research_"}},
	{"spec", []string{"spec", "specification"}, []string{"spec-", "spec_"}},
}

var specExts = map[string]int{".json": 0, ".yaml": 1, ".yml": 2, ".md": 3}

// specArtifactPhase returns the phase an artifact file name belongs to and
// its rank among that phase's names (lower is preferred), or "".
func specArtifactPhase(name string) (string, int) {
	lower := strings.ToLower(name)
	ext := path.Ext(lower)
	er, ok := specExts[ext]
	if !ok {
		return "", 0
	}
	base := strings.TrimSuffix(lower, ext)
	for _, a := range specArtifactNames {
		if a.phase == "spec" { // the spec is markdown first
			er = map[string]int{".md": 0, ".json": 1, ".yaml": 2, ".yml": 3}[ext]
		}
		for i, b := range a.bases {
			if base == b {
				return a.phase, i*10 + er
			}
		}
		for _, p := range a.prefixes {
			if strings.HasPrefix(base, p) && len(base) > len(p) {
				return a.phase, 1000 + er
			}
		}
	}
	return "", 0
}

// ListDir lists the file names of a spec folder, sorted.
func ListDir(r *source.Repo, dir string) []string {
	clean, err := safefile.CheckPath(r.Root, dir)
	if err != nil {
		return nil
	}
	entries, err := os.ReadDir(filepath.Join(r.Root, filepath.FromSlash(clean)))
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if len(names) >= specMaxEntries {
			break
		}
		t := e.Type()
		if t.IsRegular() || t&os.ModeSymlink != 0 {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names
}

// FindArtifacts maps the phases of def to the artifact files in dir.
func FindArtifacts(r *source.Repo, dir string, names []string, def workflow.Definition) map[string]specArtifact {
	out := map[string]specArtifact{}
	for _, n := range names {
		phase, rank := specArtifactPhase(n)
		if phase == "" || def.Index(phase) < 0 {
			continue
		}
		a := specArtifact{Phase: phase, Path: dir + "/" + n, ModTime: r.ModTime(dir + "/" + n), rank: rank}
		old, ok := out[phase]
		switch {
		case !ok, a.rank < old.rank:
			out[phase] = a
		case a.rank == old.rank && a.ModTime.After(old.ModTime):
			out[phase] = a // e.g. critique-2.json after critique-1.json
		}
	}
	return out
}

// MergeArtifacts adds the artifacts found on disk to info: the paths of
// phases the state gives none, the phases themselves when the state records
// none, and the complexity and verdict read from the artifacts when the
// state has none.
func MergeArtifacts(r *source.Repo, info *specInfo, arts map[string]specArtifact, recorded bool) {
	phases := make([]string, 0, len(arts))
	for p := range arts {
		phases = append(phases, p)
	}
	sort.Strings(phases)
	for _, p := range phases {
		a := arts[p]
		if info.Artifacts[p] == "" {
			info.Artifacts[p] = a.Path
			info.From[p] = "artifact"
		}
		if !recorded && info.States[p] == "" {
			info.States[p] = workflow.PhaseCompleted
		}
	}
	if a, ok := arts["assess"]; ok && info.Complexity == "" {
		info.Complexity = specReadArtifact(r, info, a, specReadComplexity)
	}
	if a, ok := arts["critique"]; ok && info.Verdict == "" {
		info.Verdict = specReadArtifact(r, info, a, specReadVerdict)
	}
}

// specReadArtifact reads the artifact a with read and adds its findings to
// info's; one that cannot be read gives a downgraded finding and "".
func specReadArtifact(r *source.Repo, info *specInfo, a specArtifact, read func(file string, data []byte) (string, []workflow.Finding)) string {
	data, err := r.Read(a.Path)
	if err != nil {
		info.Findings = append(info.Findings, specDowngrade(source.ReadFinding(a.Path, err)))
		return ""
	}
	v, fs := read(a.Path, data)
	info.Findings = append(info.Findings, fs...)
	return v
}

// specDowngrade makes a finding about an artifact a warning: the pipeline
// can still resume, the phase that wrote it runs again.
func specDowngrade(f workflow.Finding) workflow.Finding {
	f.Severity = workflow.Warning
	return f
}

// StoryFromRepo names the story of a spec folder under a story folder
// from the stories the repository knows.
func StoryFromRepo(r *source.Repo, info *specInfo) {
	dir := refpath.CleanPath(info.Dir)
	if !strings.EqualFold(path.Base(dir), "spec") || len(r.Stories) == 0 {
		return
	}
	parent := path.Dir(dir)
	if st, ok := r.Stories[path.Base(parent)]; ok && st != nil {
		info.Story, info.StoryPath = st.ID, st.Path
		return
	}
	var found []*workflow.Story
	for _, st := range r.Stories {
		if st != nil && path.Dir(st.Path) == parent {
			found = append(found, st)
		}
	}
	if len(found) == 1 {
		info.Story, info.StoryPath = found[0].ID, found[0].Path
	} else if info.Story != "" {
		if st, ok := r.Stories[info.Story]; ok && st != nil {
			info.StoryPath = st.Path
		}
	}
}

// specVerdict canonicalises a critique verdict: APPROVED, NEEDS_REVISION,
// BLOCKED; anything else is kept upper-cased.
func specVerdict(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	m := specVerdictRe().FindStringSubmatch(s)
	if m == nil {
		return ""
	}
	v := strings.ToUpper(strings.NewReplacer(" ", "_", "-", "_").Replace(m[1]))
	for strings.Contains(v, "__") {
		v = strings.ReplaceAll(v, "__", "_")
	}
	switch v {
	case "APPROVE", "APPROVED":
		return specApproved
	case "NEEDS_REVISION", "NEEDS_REVISIONS", "REVISION_NEEDED":
		return specNeedsRevision
	case "BLOCKED":
		return specBlocked
	}
	if len(v) > 40 {
		v = v[:40]
	}
	return v
}

// specMarkdownLine strips list markers, quotes and emphasis from a line.
func specMarkdownLine(line string) string {
	line = strings.TrimSpace(line)
	line = strings.TrimLeft(line, ">-+ \t")
	return strings.TrimSpace(strings.NewReplacer("**", "", "__", "", "`", "").Replace(line))
}

// specReadVerdict reads the verdict of a critique artifact: `verdict:` in
// JSON or YAML (top level or under `critique:`), or a `Verdict:` line or a
// `## Verdict` heading in markdown.
func specReadVerdict(file string, data []byte) (string, []workflow.Finding) {
	if strings.EqualFold(path.Ext(file), ".md") {
		lines := strings.Split(string(data), "\n")
		for i, line := range lines {
			if i > 5000 {
				break
			}
			l := specMarkdownLine(line)
			if m := specMDVerdictRe().FindStringSubmatch(strings.TrimLeft(l, "# ")); m != nil && strings.TrimSpace(m[1]) != "" {
				return specVerdict(m[1]), nil
			}
			if specMDHeadingRe().MatchString(l) {
				for _, next := range lines[i+1:] {
					if n := specMarkdownLine(next); n != "" {
						return specVerdict(n), nil
					}
				}
			}
		}
		return "", nil
	}
	m, err := specDecodeArtifact(file, data)
	if err != nil {
		return "", []workflow.Finding{specDowngrade(source.DecodeFinding(file, err))}
	}
	f := &source.Fields{Path: file}
	v := f.Str(m, "verdict")
	for _, k := range []string{"critique", "result", "review"} {
		if v != "" {
			break
		}
		if inner, ok := m[k].(map[string]any); ok {
			v = f.Str(inner, "verdict")
		}
	}
	return specVerdict(v), f.Findings
}

// specReadComplexity reads the complexity class of an assessment artifact:
// a class field (top level or nested), a score (≤8 SIMPLE, 9–15 STANDARD,
// ≥16 COMPLEX, as the pipeline's definition says), or a markdown line.
func specReadComplexity(file string, data []byte) (string, []workflow.Finding) {
	if strings.EqualFold(path.Ext(file), ".md") {
		text := string(data)
		if len(text) > 256<<10 {
			text = text[:256<<10]
		}
		if m := specComplexityRe().FindStringSubmatch(text); m != nil {
			return strings.ToUpper(m[1]), nil
		}
		return "", nil
	}
	m, err := specDecodeArtifact(file, data)
	if err != nil {
		return "", []workflow.Finding{specDowngrade(source.DecodeFinding(file, err))}
	}
	f := &source.Fields{Path: file}
	for _, src := range []map[string]any{m, specMap(m, "assessment"), specMap(m, "result"), specMap(m, "complexity")} {
		if src == nil {
			continue
		}
		if v, k, ok := tolerant.Lookup(src, []string{"class", "complexity_class", "complexityClass", "classification", "complexity", "level"}); ok {
			if cx := specComplexityValue(f, k, v); cx != "" {
				return cx, f.Findings
			}
		}
		if n, ok := f.Int(src, "score", "total_score", "totalScore"); ok {
			return specClassOfScore(n), f.Findings
		}
	}
	return "", f.Findings
}

func specMap(m map[string]any, k string) map[string]any {
	inner, _ := m[k].(map[string]any)
	return inner
}

// specDecodeArtifact decodes a JSON or YAML artifact.
func specDecodeArtifact(file string, data []byte) (map[string]any, error) {
	if strings.EqualFold(path.Ext(file), ".json") {
		return tolerant.DecodeJSONMap(data)
	}
	return tolerant.DecodeYAMLMap(data)
}

func specClassOfScore(n int) string {
	switch {
	case n <= 8:
		return "SIMPLE"
	case n <= 15:
		return "STANDARD"
	}
	return "COMPLEX"
}

// specComplexityValue reads a complexity field: a class name, or a mapping
// with a class or a score.
func specComplexityValue(f *source.Fields, key string, v any) string {
	switch t := v.(type) {
	case map[string]any:
		if s := f.Str(t, "class", "complexity_class", "complexityClass", "level", "classification"); s != "" {
			return specClass(s)
		}
		if n, ok := f.Int(t, "score", "total_score", "totalScore"); ok {
			return specClassOfScore(n)
		}
		return ""
	}
	s, ok := tolerant.ScalarString(v)
	if !ok {
		f.Wrong(key, "a complexity class", v)
		return ""
	}
	if n, ok := tolerant.ToInt(s); ok {
		return specClassOfScore(n)
	}
	cx := specClass(s)
	if cx == "" && s != "" {
		f.Findings = append(f.Findings, workflow.Finding{Check: workflow.CheckParse, Severity: workflow.Info, Code: "unknown-complexity", Path: f.Path,
			Message: "field " + key + ": complexity " + wfQuote(s) + " is not SIMPLE, STANDARD or COMPLEX; STANDARD assumed"})
	}
	return cx
}

func specClass(s string) string {
	switch u := strings.ToUpper(strings.TrimSpace(s)); u {
	case "SIMPLE", "STANDARD", "COMPLEX":
		return u
	}
	return ""
}
