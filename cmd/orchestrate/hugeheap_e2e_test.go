package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestALargeRunAsksForHugePages runs the binary on a repository whose git
// index is over 2 MiB (24,000 entries, made with git update-index, no
// files written): the run asks for huge pages for its heap (the debug log
// says so where the kernel gives them), and its output is byte for byte
// the output of a run told not to (GODEBUG=disablethp=1), which asks
// nothing.
func TestALargeRunAsksForHugePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("huge pages are asked for on Linux only")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	bin := orchestrateBinary(t)
	dir, env := mcpRepo(t)
	git := func(stdin string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e",
			"GIT_AUTHOR_DATE=2026-11-20T11:00:00Z", "GIT_COMMITTER_DATE=2026-11-20T11:00:00Z")
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("", "init", "-q")
	git("", "add", "-A")
	git("", "commit", "-qm", "work")
	blob := git("package x\n", "hash-object", "-w", "--stdin")
	var info strings.Builder
	for i := range 24000 {
		fmt.Fprintf(&info, "100644 %s 0\tsrc/module-%03d/component/file-%05d.go\n", blob, i/100, i)
	}
	git(info.String(), "update-index", "--add", "--index-info")
	if fi, err := os.Stat(filepath.Join(dir, ".git", "index")); err != nil || fi.Size() < 2<<20 {
		t.Fatalf("the index is not over 2 MiB: %v, %v", fi, err)
	}
	run := func(extra ...string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(bin, "status", "--json", "--log-level", "debug", "--repo", dir)
		cmd.Env = append(append(env, "ORCHESTRATE_CACHE_DIR=off"), extra...)
		var o, e bytes.Buffer
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			if _, ok := err.(*exec.ExitError); !ok {
				t.Fatalf("orchestrate status: %v\n%s", err, e.String())
			}
		}
		return o.String(), e.String()
	}
	out, logs := run("GODEBUG=")
	plain, plainLogs := run("GODEBUG=disablethp=1")
	if out != plain || out == "" {
		t.Errorf("status with huge pages:\n%s\nwithout:\n%s", out, plain)
	}
	const said = "asked to be huge pages"
	if strings.Contains(plainLogs, said) {
		t.Errorf("with GODEBUG=disablethp=1 the run asked for huge pages:\n%s", plainLogs)
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || bytes.Contains(mode, []byte("[never]")) {
		t.Logf("no transparent huge pages here (%q, %v): only the output is compared", mode, err)
		return
	}
	if !strings.Contains(logs, said) {
		t.Errorf("the large run did not ask for huge pages:\n%s", logs)
	}
}
