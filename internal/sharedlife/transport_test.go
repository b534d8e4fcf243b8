//go:build unix

package sharedlife

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// bareRepo makes a bare repository with one commit under a fresh folder and
// returns the folder and the repository's name in it.
func bareRepo(t *testing.T) (base string) {
	t.Helper()
	needGit(t)
	base = t.TempDir()
	bare := filepath.Join(base, "remote.git")
	gitRun(t, base, "init", "-q", "--bare", bare)
	gitRun(t, bare, "config", "http.receivepack", "true")
	seed := filepath.Join(base, "seed")
	gitRun(t, base, "init", "-q", seed)
	_ = os.WriteFile(filepath.Join(seed, "a.txt"), []byte("a\n"), 0o644)
	gitRun(t, seed, "add", "a.txt")
	gitRun(t, seed, "commit", "-q", "-m", "a")
	gitRun(t, seed, "push", "-q", bare, "HEAD:refs/heads/main")
	gitRun(t, bare, "symbolic-ref", "HEAD", "refs/heads/main")
	return base
}

// freePort is a port on 127.0.0.1 nobody listens on (for now).
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	return port
}

// startDaemon serves base with git daemon (receive-pack on) on 127.0.0.1
// and returns its URL and what stops it.
func startDaemon(t *testing.T, base string) (string, func()) {
	t.Helper()
	needProgram(t, "git-daemon")
	port := freePort(t)
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, "git", "daemon", "--enable=receive-pack", "--export-all", "--reuseaddr",
		"--base-path="+base, "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port), base)
	cmd.Env = append(os.Environ(), "HOME="+base)
	// git runs git-daemon as a child: stop the whole process group
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	if err := cmd.Start(); err != nil {
		cancel()
		t.Skipf("git daemon cannot start: %v", err)
	}
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			_ = cmd.Wait()
		})
	}
	t.Cleanup(stop)
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", port))
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("git daemon did not listen on %d", port)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Sprintf("git://127.0.0.1:%d/remote.git", port), stop
}

// startHTTP serves base over smart HTTP: git http-backend behind a CGI
// handler on 127.0.0.1.
func startHTTP(t *testing.T, base string) (string, func()) {
	t.Helper()
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	needProgram(t, "git-http-backend")
	h := &cgi.Handler{
		Path: git, Args: []string{"http-backend"},
		Env: []string{"GIT_PROJECT_ROOT=" + base, "GIT_HTTP_EXPORT_ALL=1", "HOME=" + base},
	}
	srv := httptest.NewServer(h)
	var once sync.Once
	stop := func() { once.Do(srv.Close) }
	t.Cleanup(stop)
	return srv.URL + "/remote.git", stop
}

// cloneFrom makes n clones of url under a fresh folder.
func cloneFrom(t *testing.T, url string, n int) []string {
	t.Helper()
	dir := t.TempDir()
	var out []string
	for i := 0; i < n; i++ {
		c := filepath.Join(dir, fmt.Sprintf("c%02d", i))
		gitRun(t, dir, "clone", "-q", url, c)
		out = append(out, c)
	}
	return out
}

// TestTransports runs the jobs over each transport git offers, each
// server started and stopped by the test: sequential jobs hand off once,
// concurrent jobs hand off once, and a remote that went down is
// ErrUnusable with nothing changed on it.
func TestTransports(t *testing.T) {
	t.Parallel()
	servers := map[string]func(*testing.T, string) (string, func()){
		"daemon": startDaemon,
		"http":   startHTTP,
	}
	// (file:// is TestConcurrentJobsHandOffOnce's and the scripts')
	for _, name := range []string{"daemon", "http"} {
		t.Run(name, func(t *testing.T) {
			base := bareRepo(t)
			url, stop := servers[name](t, base)
			const n = 6
			clones := cloneFrom(t, url, n)
			bare := filepath.Join(base, "remote.git")

			// sequential: one handoff
			for i := 0; i < 2; i++ {
				did, err := job(t, store(t, clones[i], fmt.Sprint("seq", i), time.Hour), "sdc:seq", "k")
				if err != nil {
					t.Fatal(err)
				}
				if want := map[int]string{0: "handed_off", 1: "already"}[i]; did != want {
					t.Fatalf("sequential job %d did %s, want %s", i, did, want)
				}
			}
			// concurrent: one handoff
			var wg sync.WaitGroup
			results, errs := make([]string, n), make([]error, n)
			for i := 0; i < n; i++ {
				s := store(t, clones[i], fmt.Sprint("par", i), time.Hour)
				wg.Add(1)
				go func(i int) {
					defer wg.Done()
					results[i], errs[i] = job(t, s, "sdc:par", "k")
				}(i)
			}
			wg.Wait()
			handed := 0
			for i := range results {
				if errs[i] != nil {
					t.Fatalf("job %d: %v", i, errs[i])
				}
				if results[i] == "handed_off" {
					handed++
				}
			}
			if handed != 1 || handedOff(t, bare, "sdc:par") != 1 {
				t.Fatalf("%d jobs handed off (%v), want 1", handed, results)
			}
			before := gitRun(t, bare, "for-each-ref")

			// the remote goes down: unusable, nothing changed
			stop()
			s := store(t, clones[0], "late", time.Hour)
			if _, err := s.Fetch(); !errors.Is(err, ErrUnusable) {
				t.Fatalf("fetch with the remote down: %v", err)
			}
			if after := gitRun(t, bare, "for-each-ref"); after != before {
				t.Fatalf("refs changed:\n%s\n---\n%s", before, after)
			}
			if strings.Contains(before, "refs/orchestrate/locks/") {
				t.Fatalf("a lock was left: %s", before)
			}
		})
	}
}

// needProgram skips the test when git's exec-path lacks name (some
// distributions package git daemon apart).
func needProgram(t *testing.T, name string) {
	t.Helper()
	out, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Skipf("git --exec-path: %v", err)
	}
	if _, err := os.Stat(filepath.Join(strings.TrimSpace(string(out)), name)); err != nil {
		t.Skipf("%s is not installed with this git", name)
	}
}
