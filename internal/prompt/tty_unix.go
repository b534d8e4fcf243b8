//go:build unix

package prompt

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

const (
	// escWait is how long a lone Escape waits for the rest of an arrow
	// key's sequence before it counts as Escape.
	escWait = 40 * time.Millisecond
	// resizeEvery is how often a prompt checks the terminal's width.
	resizeEvery = 250 * time.Millisecond
)

// run asks m on the terminal in (keys) and out (drawing): raw mode for the
// duration of the question, restored whatever happens.
func run(in, out *os.File, m model, st style) error {
	fd := int(in.Fd())
	if !term.IsTerminal(fd) || !term.IsTerminal(int(out.Fd())) {
		return ErrNoTerminal
	}
	// Keys typed before the question was drawn were meant for something
	// else: they must not answer it.
	flushInput(fd)
	saved, err := term.MakeRaw(fd)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoTerminal, err)
	}
	defer func() { _ = term.Restore(fd, saved) }()

	d := &drawer{out: out, st: st}
	d.draw(m)
	var pending []byte
	buf := make([]byte, 256)
	for {
		timeout := resizeEvery
		if len(pending) > 0 {
			timeout = escWait
		}
		ready, err := waitReadable(fd, timeout)
		if err != nil {
			return d.end(m, fmt.Errorf("read the terminal: %w", err))
		}
		if !ready {
			if len(pending) > 0 && pending[0] == 0x1b {
				// a lone Escape (or a sequence that never ended)
				pending = nil
				if done, err := m.handle(key{kind: keyEsc}); done {
					return d.end(m, err)
				}
			}
			d.resize(m)
			continue
		}
		n, err := unix.Read(fd, buf)
		switch {
		case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
			continue
		case err != nil:
			return d.end(m, fmt.Errorf("read the terminal: %w", err))
		case n == 0: // the terminal hung up: the end of input
			return d.end(m, ErrInterrupted)
		}
		var keys []key
		keys, pending = decodeKeys(append(pending, buf[:n]...))
		if len(pending) > 64 { // not a key anyone can type
			pending = nil
		}
		for _, k := range keys {
			if done, err := m.handle(k); done {
				return d.end(m, err)
			}
		}
		d.draw(m)
	}
}

// waitReadable waits at most timeout for fd to have input.
func waitReadable(fd int, timeout time.Duration) (bool, error) {
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	n, err := unix.Poll(fds, int(timeout/time.Millisecond))
	switch {
	case errors.Is(err, unix.EINTR):
		return false, nil
	case err != nil:
		return false, err
	}
	if n > 0 && fds[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR) != 0 {
		return true, nil
	}
	return false, nil
}

// drawer draws a question and redraws it in place.
type drawer struct {
	out   *os.File
	st    style
	width int
	drawn int // lines drawn last time
}

// termWidth is the width of the terminal, 80 when unknown.
func (d *drawer) termWidth() int {
	w, _, err := term.GetSize(int(d.out.Fd()))
	if err != nil || w <= 0 {
		return 80
	}
	return w
}

// draw erases the previous drawing and draws m's lines, each one column
// short of the width so that the terminal never wraps them.
func (d *drawer) draw(m model) {
	d.width = d.termWidth()
	d.paint(m.lines(max(d.width-1, 1), d.st))
}

// resize redraws when the width changed.
func (d *drawer) resize(m model) {
	if d.termWidth() != d.width {
		d.draw(m)
	}
}

func (d *drawer) paint(lines []string) {
	var b strings.Builder
	b.WriteString("\r")
	if d.drawn > 1 {
		fmt.Fprintf(&b, "\x1b[%dA", d.drawn-1)
	}
	b.WriteString("\x1b[J")
	b.WriteString(strings.Join(lines, "\r\n"))
	d.drawn = len(lines)
	_, _ = d.out.WriteString(b.String())
}

// end replaces the question by its answer line and returns err.
func (d *drawer) end(m model, err error) error {
	d.width = d.termWidth()
	lines := wrap(m.final(style{}), max(d.width-1, 1), 2)
	if d.st.color && len(lines) == 1 {
		lines = []string{m.final(d.st)}
	}
	d.paint(lines)
	_, _ = d.out.WriteString("\r\n")
	return err
}
