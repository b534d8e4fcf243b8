// Which feature is current: the layouts' own rules (feature.json, the branch,
// the highest number), and the git branch read from .git.

package speckit

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/gitobj"
	"github.com/orchestrate-dev/orchestrate/internal/refpath"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// resolveCurrent applies the layout's rule. The environment variables
// spec-kit reads first (SPECIFY_FEATURE, SPECIFY_FEATURE_DIRECTORY) belong
// to the shell that ran the agent, not to the repository: discover sees no
// environment, so they are treated as absent.
func resolveCurrent(r *source.Repo, lay Layout, feats []*feature) Current {
	byDir := map[string]*feature{}
	for _, f := range feats {
		byDir[f.Dir] = f
	}
	var cur Current
	if lay.Gen == "v2" {
		fj, stale := readFeatureJSON(r, byDir)
		switch {
		case fj != nil && fj.status() == workflow.StatusDone && anyPartial(feats):
			cur.Stale = "it names " + fj.Name + ", which is finished, while other features are partly done"
			cur.Named = fj.Name
			return cur
		case fj != nil:
			return Current{Name: fj.Name, Rule: ".specify/feature.json"}
		case stale != "":
			cur.Stale = stale
		}
		if lay.Ten {
			if cur.Stale == "" {
				cur.Why = "spec-kit " + lay.Version + " reads only .specify/feature.json, and there is none"
			}
			return cur
		}
	}
	branch, hasGit := ReadBranch(r)
	switch {
	case branch != "":
		if f := byBranch(lay, branch, feats); f != nil {
			cur.Name, cur.Rule = f.Name, "branch "+branch
			return cur
		}
		if cur.Why == "" {
			cur.Why = "branch " + branch + " names no feature folder"
		}
	case hasGit:
		if cur.Why == "" {
			cur.Why = "HEAD is on no branch"
		}
	case lay.Gen == "v1" || lay.Gen == "v2":
		if f := highest(feats); f != nil {
			cur.Name, cur.Rule = f.Name, "the highest feature number (no git)"
			return cur
		}
	default:
		if cur.Why == "" {
			cur.Why = "no git branch to read"
		}
	}
	return cur
}

// choose sets cur.Chosen when the layout gives no answer or a stale one:
// the partly done feature whose tasks.md has the newest last commit (its
// modification time when it is not as committed, or without git), ties to
// the highest feature id. It also dates those features by that time.
func choose(r *source.Repo, feats []*feature, cur *Current) {
	var partial []*feature
	var paths []string
	for _, f := range feats {
		if f.status() == workflow.StatusInProgress {
			partial = append(partial, f)
			paths = append(paths, f.TasksPath)
		}
	}
	if len(partial) == 0 {
		return
	}
	stamps := r.CommitTimes(paths)
	var best *feature
	var bestAt time.Time
	bestBy := ""
	for _, f := range partial {
		at, by := f.ModTime, "by modification time"
		if r.Times == nil {
			by += ", no git"
		}
		if st, ok := stamps[f.TasksPath]; ok {
			at, by = st.When.UTC(), "last commit "+strings.TrimPrefix(st.From, "git:")
			f.ModTime, f.From = at, st.From
		}
		if best == nil || at.After(bestAt) || (at.Equal(bestAt) && idLess(best.Name, f.Name)) {
			best, bestAt, bestBy = f, at, by
		}
	}
	cur.Chosen = best.Name
	cur.By = bestBy + " " + bestAt.UTC().Format(time.RFC3339)
}

// anyPartial reports whether a feature is partly done.
func anyPartial(feats []*feature) bool {
	for _, f := range feats {
		if f.status() == workflow.StatusInProgress {
			return true
		}
	}
	return false
}

// readFeatureJSON reads .specify/feature.json ({"feature_directory": …},
// a BOM and odd spacing accepted): the feature it names, or why it is stale.
func readFeatureJSON(r *source.Repo, byDir map[string]*feature) (*feature, string) {
	const p = ".specify/feature.json"
	data, err := r.Read(p)
	if err != nil {
		return nil, ""
	}
	var m map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))), &m); err != nil {
		return nil, "it does not parse as JSON"
	}
	dir, _ := m["feature_directory"].(string)
	dir = strings.TrimSpace(dir)
	if dir == "" {
		return nil, "it names no feature_directory"
	}
	clean, safe := refpath.Clean(strings.TrimPrefix(dir, "./"))
	if !safe {
		return nil, "its feature_directory " + strconv.Quote(oneLine(dir)) + " is outside the repository"
	}
	if f := byDir[clean]; f != nil {
		return f, ""
	}
	for d, f := range byDir { // a path written from the repository's parent, or with .specify/
		if strings.HasSuffix(clean, "/"+d) {
			return f, ""
		}
	}
	return nil, "it names " + strconv.Quote(oneLine(clean)) + ", which is no feature folder"
}

// byBranch finds a branch's feature: V0 the folder named like the branch;
// later layouts the one folder sharing its numeric prefix, else the folder
// named like the branch.
func byBranch(lay Layout, branch string, feats []*feature) *feature {
	m := branchRe().FindStringSubmatch(branch)
	if m == nil {
		return nil
	}
	var exact, prefixed []*feature
	for _, f := range feats {
		if f.Name == branch {
			exact = append(exact, f)
		}
		if strings.HasPrefix(f.Name, m[1]+"-") {
			prefixed = append(prefixed, f)
		}
	}
	if lay.Gen != "v0" && len(prefixed) == 1 {
		return prefixed[0]
	}
	if len(exact) > 0 {
		return exact[0]
	}
	return nil
}

// highest is the feature with the highest number.
func highest(feats []*feature) *feature {
	var best *feature
	for _, f := range feats {
		if best == nil || idLess(best.Name, f.Name) {
			best = f
		}
	}
	return best
}

// idLess compares the numeric prefixes of two feature names as numbers.
func idLess(a, b string) bool {
	na := strings.TrimLeft(featureDirRe().FindString(a), "0")
	nb := strings.TrimLeft(featureDirRe().FindString(b), "0")
	na, nb = strings.TrimSuffix(na, "-"), strings.TrimSuffix(nb, "-")
	if len(na) != len(nb) {
		return len(na) < len(nb)
	}
	if na != nb {
		return na < nb
	}
	return a < b
}

// ReadBranch reads HEAD's branch name through the repository's safe reader
// (see gitobj.ReadBranch: git is read only through the git packages).
// hasGit reports a .git entry.
func ReadBranch(r *source.Repo) (branch string, hasGit bool) {
	return gitobj.ReadBranch(r.Exists, r.Read)
}
