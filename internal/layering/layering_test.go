// Package layering holds no code: its tests keep the module's import
// layering true (TestLayering: no package imports a later layer) and the
// package map in docs/ARCHITECTURE.md complete (TestArchitectureMap). Both
// read the module's packages with `go list` and are skipped without a go
// command.
package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
)

// layer is one row of the layering table: its name and its packages
// (module-relative; "dir/..." is dir and every package below it).
type layer struct {
	name string
	pkgs []string
}

// layers is the one table of the allowed import direction, bottom first: a
// package may import packages of its own layer and of earlier layers, never
// of a later one. Every package of the module must be in exactly one layer
// (a new package is placed here, and in the map in docs/ARCHITECTURE.md).
// Only production imports are checked; a test may import what it tests with.
var layers = []layer{
	// the leaves: one rule or seam each, no domain or stage package
	{"leaf", []string{
		"internal/agentsession", "internal/atomicfile", "internal/cachetable", "internal/config", "internal/config/configtest",
		"internal/dirent", "internal/diskcache", "internal/exitcode", "internal/fastsys", "internal/ghactions",
		"internal/gitblob", "internal/gitcache", "internal/gitchanged", "internal/gitdelta", "internal/gitfixture", "internal/gitobj", "internal/gitremote", "internal/gitverify", "internal/gitrepo", "internal/hugeheap", "internal/inflate", "internal/lazyre",
		"internal/logging", "internal/openprobe", "internal/par", "internal/pathglob", "internal/planfile",
		"internal/prompt", "internal/redact", "internal/refpath", "internal/safedir", "internal/safefile",
		"internal/sharedlife", "internal/statepatch", "internal/storyid", "internal/strmem",
		"internal/termsafe", "internal/textfmt", "internal/tolerant", "internal/trust",
	}},
	// the domain values every stage shares
	{"domain", []string{"workflow"}},
	// the human blocks: imported only by the printers (below)
	{"templates", []string{"templates"}},
	// the stages, in data-flow order
	{"discover", []string{"discover/..."}},
	{"validate", []string{"validate", "validate/gitmemo"}},
	{"plan", []string{"plan"}},
	{"modes", []string{"modes/..."}},
	{"handoff", []string{"handoff/..."}},
	// the use cases every command builds on
	{"use case", []string{"app/loaded", "app/resumeflow", "app/verdict"}},
	// flags, wiring, rendering, exit codes
	{"command", []string{"app/cli", "app/cli/cmdutil", "app/cli/completion", "app/cli/failpoint", "app/cli/iostreams", "app/cli/jsondoc", "app/cli/tablefit", "app/cli/views", "app/mcp"}},
	// programs and whole-program tests
	{"main", []string{"cmd/...", "internal/attacktest", "internal/attacktest/rsswrap", "internal/crashtest", "internal/layering"}},
}

// printers are the only packages that may import templates: the layers that
// print.
var printers = []string{"app/cli", "app/cli/cmdutil", "app/cli/completion", "app/cli/jsondoc", "app/cli/views", "app/resumeflow"}

// edge is one import, module-relative: from imports to.
type edge struct{ from, to string }

// exceptions are imports the table forbids that are let through for now,
// each named with why it is there: debt, with its fix to follow. The house
// move (issue 4/7) removed the last of them; the test fails on an exception
// that is no longer needed, so the list only shrinks.
var exceptions = map[edge]string{}

// layerOf returns the index in layers of module-relative package p, or -1
// (and which patterns matched, when more than one did).
func layerOf(p string) (int, []string) {
	at, matched := -1, []string(nil)
	for i, l := range layers {
		for _, pat := range l.pkgs {
			if matches(pat, p) {
				if at < 0 {
					at = i
				}
				matched = append(matched, l.name+":"+pat)
			}
		}
	}
	return at, matched
}

// matches reports whether module-relative package p is pattern pat: the
// package itself, or, for "dir/...", dir or a package below it.
func matches(pat, p string) bool {
	if dir, ok := strings.CutSuffix(pat, "/..."); ok {
		return p == dir || strings.HasPrefix(p, dir+"/")
	}
	return p == pat
}

// check returns every problem of graph (module-relative package → its
// module-relative production imports): packages in no layer or in two,
// back-edges, templates imported by a package that does not print, and
// exceptions that no longer hold. The problems are sorted.
func check(graph map[string][]string) []string {
	var problems []string
	used := map[edge]bool{}
	for from, imports := range graph {
		fi, matched := layerOf(from)
		if fi < 0 {
			problems = append(problems, fmt.Sprintf("%s is in no layer: add it to the layering table (internal/layering) and to docs/ARCHITECTURE.md", from))
			continue
		}
		if len(matched) > 1 {
			problems = append(problems, fmt.Sprintf("%s is in more than one layer: %s", from, strings.Join(matched, ", ")))
		}
		for _, to := range imports {
			e := edge{from, to}
			ti, _ := layerOf(to)
			var why string
			switch {
			case ti < 0:
				continue // reported as a package of its own
			case ti > fi:
				why = fmt.Sprintf("a back-edge: %s (%s) imports %s, a later layer (%s)", from, layers[fi].name, to, layers[ti].name)
			case to == "templates" && !slices.Contains(printers, from):
				why = fmt.Sprintf("%s imports templates but does not print (only %s may)", from, strings.Join(printers, ", "))
			default:
				continue
			}
			if _, ok := exceptions[e]; ok {
				used[e] = true
				continue
			}
			problems = append(problems, why)
		}
	}
	for e := range exceptions {
		if !used[e] {
			problems = append(problems, fmt.Sprintf("the exception %s → %s is no longer needed: remove it from the table", e.from, e.to))
		}
	}
	sort.Strings(problems)
	return problems
}

func TestLayering(t *testing.T) {
	m := loadModule(t)
	for _, p := range check(m.graph) {
		t.Error(p)
	}
}

// TestCheck proves check finds what it is for, on small graphs.
func TestCheck(t *testing.T) {
	// today's exceptions, so that only the case's own problem is reported
	base := func() map[string][]string {
		g := map[string][]string{}
		for e := range exceptions {
			g[e.from] = append(g[e.from], e.to)
		}
		return g
	}
	tests := []struct {
		name string
		add  map[string][]string
		want []string
	}{
		{"clean", map[string][]string{"handoff": {"plan", "discover/story", "workflow"}, "app/cli": {"templates", "handoff"}}, nil},
		{"stage imports a later stage", map[string][]string{"validate": {"plan"}},
			[]string{"a back-edge: validate (validate) imports plan, a later layer (plan)"}},
		{"format imports handoff", map[string][]string{"discover/story": {"handoff"}},
			[]string{"a back-edge: discover/story (discover) imports handoff, a later layer (handoff)"}},
		{"leaf imports a stage", map[string][]string{"internal/safefile": {"discover"}},
			[]string{"a back-edge: internal/safefile (leaf) imports discover, a later layer (discover)"}},
		{"leaf imports the domain", map[string][]string{"internal/par": {"workflow"}},
			[]string{"a back-edge: internal/par (leaf) imports workflow, a later layer (domain)"}},
		{"use case imports the command layer", map[string][]string{"app/resumeflow": {"app/cli"}},
			[]string{"a back-edge: app/resumeflow (use case) imports app/cli, a later layer (command)"}},
		{"a stage that does not print imports templates", map[string][]string{"plan": {"templates"}},
			[]string{"plan imports templates but does not print (only " + strings.Join(printers, ", ") + " may)"}},
		{"a package in no layer", map[string][]string{"newpkg": nil},
			[]string{"newpkg is in no layer: add it to the layering table (internal/layering) and to docs/ARCHITECTURE.md"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := base()
			for k, v := range tt.add {
				g[k] = append(g[k], v...)
			}
			if got := check(g); !slices.Equal(got, tt.want) {
				t.Fatalf("check =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
	t.Run("stale exception", func(t *testing.T) {
		saved := exceptions
		t.Cleanup(func() { exceptions = saved })
		exceptions = maps.Clone(saved)
		exceptions[edge{"validate", "templates"}] = "a test's exception"
		g := base()
		g["validate"] = slices.DeleteFunc(slices.Clone(g["validate"]), func(s string) bool { return s == "templates" })
		want := []string{"the exception validate → templates is no longer needed: remove it from the table"}
		if got := check(g); !slices.Equal(got, want) {
			t.Fatalf("check =\n%q\nwant\n%q", got, want)
		}
	})
}

// module is what `go list` says of the module: its path, root folder and
// production import graph (module-relative).
type module struct {
	path, root string
	graph      map[string][]string
}

var (
	moduleOnce sync.Once
	moduleVal  module
	moduleErr  error
)

// loadModule lists the module's packages once per test binary; it skips the
// test when there is no go command.
func loadModule(t *testing.T) module {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command: the layering is checked where Go is installed")
	}
	moduleOnce.Do(func() { moduleVal, moduleErr = listModule(goCmd) })
	if moduleErr != nil {
		t.Fatal(moduleErr)
	}
	return moduleVal
}

// listModule runs `go list` in the module's root, offline (GOPROXY=off:
// a package's import paths come from its source, and an import that cannot
// be resolved is an error -e keeps, not a download).
func listModule(goCmd string) (module, error) {
	root, err := moduleRoot()
	if err != nil {
		return module{}, err
	}
	run := func(args ...string) ([]byte, error) {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=readonly")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
		}
		return out, nil
	}
	out, err := run("list", "-m")
	if err != nil {
		return module{}, err
	}
	m := module{path: strings.TrimSpace(string(out)), root: root, graph: map[string][]string{}}
	out, err = run("list", "-e", "-json=ImportPath,Imports", "./...")
	if err != nil {
		return module{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return module{}, fmt.Errorf("go list: %w", err)
		}
		from, ok := m.rel(p.ImportPath)
		if !ok {
			continue
		}
		imports := []string{}
		for _, imp := range p.Imports {
			if to, ok := m.rel(imp); ok {
				imports = append(imports, to)
			}
		}
		m.graph[from] = imports
	}
	if len(m.graph) == 0 {
		return module{}, errors.New("go list found no package in the module")
	}
	return m, nil
}

// rel is import path p relative to the module ("." for its root), and
// whether p is in the module.
func (m module) rel(p string) (string, bool) {
	if p == m.path {
		return ".", true
	}
	r, ok := strings.CutPrefix(p, m.path+"/")
	return r, ok
}

// moduleRoot is the folder of the go.mod above the working directory.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
