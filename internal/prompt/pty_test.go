//go:build linux

package prompt

import (
	"bytes"
	"errors"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
)

// ptyPair is a pseudo-terminal whose output is collected.
type ptyPair struct {
	master, slave *os.File
	mu            sync.Mutex
	out           bytes.Buffer
}

func openPTY(t *testing.T, cols uint16) *ptyPair {
	t.Helper()
	master, slave, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	if err := pty.Setsize(master, &pty.Winsize{Rows: 24, Cols: cols}); err != nil {
		t.Fatal(err)
	}
	p := &ptyPair{master: master, slave: slave}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 1024)
		for {
			n, err := master.Read(buf)
			p.mu.Lock()
			p.out.Write(buf[:n])
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		slave.Close()
		master.Close()
		<-done
	})
	return p
}

func (p *ptyPair) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out.String()
}

// waitRaw waits until the prompt has drawn want and put the terminal in
// raw mode, so that keys typed next reach it.
func (p *ptyPair) waitRaw(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		tios, err := unix.IoctlGetTermios(int(p.master.Fd()), unix.TCGETS)
		if err == nil && tios.Lflag&unix.ICANON == 0 && strings.Contains(p.output(), want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no raw prompt %q; output %q", want, p.output())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestTerminalKeys asks each kind of question on a real pseudo-terminal and
// types the keys a person would.
func TestTerminalKeys(t *testing.T) {
	resume := []string{"[y] yes", "[r] restart from scratch", "[c] cancel"}
	list := []string{"SDC for story 4.2", "QA Loop for story 3.1", "none (start fresh)"}
	for _, tc := range []struct {
		name    string
		cols    uint16
		ask     func(*Terminal) (any, error)
		keys    string
		want    any
		wantErr error
	}{
		{"c enter is cancel", 80, sel(resume, 0), "c\r", 2, nil},
		{"2 enter is the second", 80, sel(list, 0), "2\r", 1, nil},
		{"enter is the default", 80, sel(resume, 2), "\r", 2, nil},
		{"arrows", 80, sel(resume, 0), "\x1b[B\r", 1, nil},
		{"ctrl-d at a list", 80, sel(list, 0), "\x04", nil, ErrInterrupted},
		{"esc at a list", 80, sel(list, 0), "\x1b", nil, ErrInterrupted},
		{"ctrl-c", 80, sel(resume, 0), "\x03", nil, ErrInterrupted},
		{"garbage then ctrl-d", 80, sel(list, 0), "zzz\x04", nil, ErrInterrupted},
		{"narrow: r", 12, sel(resume, 0), "r\r", 1, nil},
		{"confirm y", 80, confirm(false), "y\r", true, nil},
		{"confirm default", 80, confirm(false), "\r", false, nil},
		{"confirm ctrl-d", 80, confirm(true), "\x04", nil, ErrInterrupted},
		{"input", 80, input(), "  proceed \r", "  proceed ", nil},
		{"input proceed then ctrl-d", 80, input(), "proceed\x04", nil, ErrInterrupted},
		{"input esc", 20, input(), "proceed\x1b", nil, ErrInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := openPTY(t, tc.cols)
			prompter := NewTerminal(p.slave, p.slave, false)
			type result struct {
				v   any
				err error
			}
			res := make(chan result, 1)
			go func() {
				v, err := tc.ask(prompter)
				res <- result{v, err}
			}()
			p.waitRaw(t, "Ctrl-D")
			if _, err := io.WriteString(p.master, tc.keys); err != nil {
				t.Fatal(err)
			}
			var r result
			select {
			case r = <-res:
			case <-time.After(10 * time.Second):
				t.Fatalf("no answer; output %q", p.output())
			}
			if !errors.Is(r.err, tc.wantErr) || (tc.wantErr == nil && r.err != nil) {
				t.Fatalf("err = %v, want %v", r.err, tc.wantErr)
			}
			if tc.wantErr == nil && r.v != tc.want {
				t.Errorf("answer %v, want %v", r.v, tc.want)
			}
			tios, err := unix.IoctlGetTermios(int(p.master.Fd()), unix.TCGETS)
			if err != nil || tios.Lflag&unix.ICANON == 0 {
				t.Errorf("the terminal was not restored (err %v)", err)
			}
			if tc.cols < 80 {
				for _, l := range strings.FieldsFunc(ansi.ReplaceAllString(p.output(), ""), func(r rune) bool { return r == '\r' || r == '\n' }) {
					if w := textWidth(strings.TrimRight(l, "\r")); w > int(tc.cols) {
						t.Errorf("a line of %d columns on %d: %q", w, tc.cols, l)
					}
				}
			}
		})
	}
}

func sel(options []string, def int) func(*Terminal) (any, error) {
	return func(p *Terminal) (any, error) {
		i, err := p.Select("Resume this workflow?", options, def)
		return i, err
	}
}

func confirm(def bool) func(*Terminal) (any, error) {
	return func(p *Terminal) (any, error) {
		ok, err := p.Confirm("Trust this file and run it?", def)
		return ok, err
	}
}

func input() func(*Terminal) (any, error) {
	return func(p *Terminal) (any, error) {
		s, err := p.Input(`Type "proceed" to start (anything else cancels):`, "")
		return s, err
	}
}

// Keys typed before the question is asked do not answer it.
func TestTerminalTypeAhead(t *testing.T) {
	p := openPTY(t, 80)
	if _, err := io.WriteString(p.master, "1\r"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	res := make(chan int, 1)
	go func() {
		i, _ := NewTerminal(p.slave, p.slave, false).Select("Pick?", []string{"[a] a", "[b] b", "[c] c"}, 2)
		res <- i
	}()
	p.waitRaw(t, "Pick?")
	if _, err := io.WriteString(p.master, "\r"); err != nil {
		t.Fatal(err)
	}
	select {
	case i := <-res:
		if i != 2 {
			t.Errorf("chose %d: the keys typed ahead answered", i)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
	}
}

// Not a terminal: ErrNoTerminal, nothing written.
func TestNoTerminal(t *testing.T) {
	var out bytes.Buffer
	p := NewTerminal(strings.NewReader("y\n"), &out, false)
	if _, err := p.Select("Q?", []string{"a"}, 0); !errors.Is(err, ErrNoTerminal) {
		t.Errorf("Select: %v", err)
	}
	f, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := NewTerminal(f, f, false).Confirm("Q?", true); !errors.Is(err, ErrNoTerminal) {
		t.Errorf("Confirm on a file: %v", err)
	}
	if _, err := NewTerminal(f, f, false).Select("Q?", nil, 0); !errors.Is(err, ErrInterrupted) {
		t.Errorf("Select without options: %v", err)
	}
	if out.Len() > 0 {
		t.Errorf("wrote %q", out.String())
	}
}

var ansi = regexp.MustCompile(`\x1b\[[0-9;?]*[ -/]*[@-~]`)
