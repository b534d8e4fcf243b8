package discover

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/epic"
	"github.com/orchestrate-dev/orchestrate/discover/internal/sourcetest"
	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/discover/wfstate"
	"github.com/orchestrate-dev/orchestrate/internal/config"
	"github.com/orchestrate-dev/orchestrate/internal/diskcache"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// TestStateFilesReadOnce: within one scan, a workflow-state file the epic
// source read while looking for an epic key is not read again by the
// workflow-state source, which decodes the very bytes the epic source read
// (source.Repo.Keep): a file rewritten between the two sources reads as it
// was when the epic source read it, with the cache off and on (there with
// the stat data of that read). A file the epic source read and found to be
// an epic's is not the workflow-state source's, and nothing is kept past
// the scan: the next scan reads the file as it is now. It fails when the
// workflow-state source reads the files again.
func TestStateFilesReadOnce(t *testing.T) {
	state := func(status string) string {
		return "execution_id: sdc-1\nworkflow: story-development-cycle\nstatus: " + status + "\nstory: \"1.1\"\n"
	}
	for _, cached := range []bool{false, true} {
		root := t.TempDir()
		write := func(p, text string) { sourcetest.Write(t, root, map[string]string{p: text}) }
		write(".orchestrate/workflows/sdc-1.yaml", state("paused"))
		write(".orchestrate/workflows/epic-1.yaml", "epic_state:\n  epic_id: \"7\"\n  status: running\n")
		r, _ := source.NewRepo(root, config.Default())
		if cached {
			r.Cache = diskcache.New(filepath.Join(t.TempDir(), "cache"))
		}
		scanStates := func(rewrite string) map[string]string {
			t.Helper()
			r.BeginBudget(0)
			epics, _ := epic.EpicSource.Scan(r)
			if len(epics) != 1 || epics[0].Source.Path != ".orchestrate/workflows/epic-1.yaml" {
				t.Fatalf("cached %v: epics %+v", cached, epics)
			}
			if rewrite != "" {
				write(".orchestrate/workflows/sdc-1.yaml", rewrite)
			}
			cs, _ := wfstate.WorkflowStateSource.Scan(r)
			r.EndBudget()
			got := map[string]string{}
			for _, c := range cs {
				got[c.Source.Path] = string(c.Status)
			}
			return got
		}
		first := scanStates(state("completed"))
		if len(first) != 1 || first[".orchestrate/workflows/sdc-1.yaml"] != "paused" {
			t.Errorf("cached %v: the workflow-state source read the file again: %v", cached, first)
		}
		if next := scanStates(""); next[".orchestrate/workflows/sdc-1.yaml"] != "completed" {
			t.Errorf("cached %v: the next scan kept the last one's bytes: %v", cached, next)
		}
	}
}

// TestKeepOnceWithinAScan: Repo.Keep holds bytes only within a scan, for
// one Kept each, within maxKeptBytes, with the stat data when given.
func TestKeepOnceWithinAScan(t *testing.T) {
	r, _ := source.NewRepo(t.TempDir(), config.Default())
	if r.Keep("a", []byte("x"), nil) {
		t.Error("kept outside a scan")
	}
	r.BeginBudget(0)
	fs := safefile.FileStat{Ino: 7, Size: 1}
	if !r.Keep("a", []byte("x"), &fs) || r.Keep("a", []byte("y"), nil) {
		t.Error("a path kept twice, or not at all")
	}
	if !r.Keep("b", []byte("z"), nil) {
		t.Error("b not kept")
	}
	if data, got, withStat, ok := r.Kept("a"); !ok || string(data) != "x" || !withStat || got != fs {
		t.Errorf("Kept(a) = %q %+v %v %v", data, got, withStat, ok)
	}
	if _, _, _, ok := r.Kept("a"); ok {
		t.Error("a given twice")
	}
	if _, _, withStat, ok := r.Kept("b"); !ok || withStat {
		t.Errorf("Kept(b): ok %v, withStat %v", ok, withStat)
	}
	if r.Keep("big", make([]byte, 9<<20), nil) {
		t.Error("kept past the bound")
	}
	r.Keep("c", []byte("w"), nil)
	r.EndBudget()
	if _, _, _, ok := r.Kept("c"); ok {
		t.Error("kept past the scan")
	}
}

// TestKeptReadsChangeNoCandidate: what the workflow-state source makes of
// each state file is the same whether the epic source looked at the files
// first (and kept what it read) or not, with the cache off and on: a plain
// state, one that is a symbolic link, one over the size cap, one that is
// not YAML, and an epic's state (which neither scan gives the
// workflow-state source).
func TestKeptReadsChangeNoCandidate(t *testing.T) {
	files := map[string]string{
		".orchestrate/workflows/sdc-1.yaml":  "execution_id: sdc-1\nworkflow: story-development-cycle\nstatus: paused\n",
		".orchestrate/workflows/big.yaml":    "execution_id: big-1\nstatus: paused\nnotes: \"" + strings.Repeat("x", 600) + "\"\n",
		".orchestrate/workflows/bad.yaml":    "execution_id: [unclosed\n",
		".orchestrate/workflows/epic-1.yaml": "epic_state:\n  epic_id: \"7\"\n  status: running\n",
	}
	for _, cached := range []bool{false, true} {
		scan := func(withEpic bool) []workflow.Candidate {
			t.Helper()
			root := t.TempDir()
			sourcetest.Write(t, root, files)
			if err := os.Symlink("sdc-1.yaml", filepath.Join(root, ".orchestrate/workflows/link.yaml")); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			cfg := config.Default()
			cfg.MaxFileSize = 512 // big.yaml is over it
			r, _ := source.NewRepo(root, cfg)
			if cached {
				r.Cache = diskcache.New(filepath.Join(t.TempDir(), "cache"))
			}
			r.BeginBudget(0)
			defer r.EndBudget()
			if withEpic {
				epic.EpicSource.Scan(r)
			}
			cs, _ := wfstate.WorkflowStateSource.Scan(r)
			for i := range cs { // the same files at another root
				cs[i].UpdatedAt, cs[i].UpdatedFrom = time.Time{}, ""
				for k := range cs[i].Findings {
					cs[i].Findings[k].Message = strings.ReplaceAll(cs[i].Findings[k].Message, root, "ROOT")
				}
			}
			return cs
		}
		alone, after := scan(false), scan(true)
		if len(alone) != 4 || !reflect.DeepEqual(alone, after) {
			t.Errorf("cached %v: the workflow-state source alone made\n%+v\nafter the epic source\n%+v", cached, alone, after)
		}
	}
}
