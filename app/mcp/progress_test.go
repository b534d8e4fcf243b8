package mcp

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// blocking is a fake whose Workflows and Claim wait until released, and
// say when they started.
type blocking struct {
	fake
	started chan string
	release chan struct{}
	once    sync.Once
}

// free lets every call in the backend end (once).
func (b *blocking) free() { b.once.Do(func() { close(b.release) }) }

// newBlocking is a blocking backend served to a client that hears
// progress every `every`; a test that fails half-way still frees the
// backend before the client's Close waits for the server.
func newBlocking(t *testing.T, every time.Duration) (*blocking, *Client) {
	b := &blocking{started: make(chan string, 4), release: make(chan struct{})}
	c := connectEvery(t, b, every)
	t.Cleanup(b.free) // runs before connectEvery's Close
	return b, c
}

func (b *blocking) Workflows(ctx context.Context) Doc {
	b.started <- "workflows"
	<-b.release
	return b.fake.Workflows(ctx)
}

func (b *blocking) Claim(ctx context.Context, a ClaimArgs) Doc {
	b.started <- "claim"
	<-b.release
	return b.fake.Claim(ctx, a)
}

func connectEvery(t *testing.T, b Backend, every time.Duration) *Client {
	t.Helper()
	c, err := ConnectInMemory(context.Background(), b, Options{Version: "v9", ProgressEvery: every}, "progress-client")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// checkSequence checks the MCP rules of one request's notifications:
// progress increases with each, every message names the call, and the
// last says done with total = progress.
func checkSequence(t *testing.T, ps []Progress, name string) {
	t.Helper()
	if len(ps) == 0 {
		t.Fatal("no progress notification")
	}
	for i, p := range ps {
		if i > 0 && p.Progress <= ps[i-1].Progress {
			t.Errorf("notification %d: progress %v after %v: must increase", i, p.Progress, ps[i-1].Progress)
		}
		if !strings.HasPrefix(p.Message, name+": ") {
			t.Errorf("notification %d: message %q does not name %s", i, p.Message, name)
		}
		last := i == len(ps)-1
		if last != (p.Total != 0) {
			t.Errorf("notification %d of %d: total %v (only the last has one)", i, len(ps), p.Total)
		}
	}
	last := ps[len(ps)-1]
	if last.Message != name+": done" || last.Total != last.Progress {
		t.Errorf("last notification %+v: want %q with total = progress", last, name+": done")
	}
}

func waitCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// A call with a progress token hears "running", then "still running"
// while it runs (a client that resets its timeout on progress keeps
// waiting for a long call), then "done" before its result; a call
// without a token hears nothing.
func TestProgressWhileRunning(t *testing.T) {
	b, c := newBlocking(t, 5*time.Millisecond)
	ctx := waitCtx(t)

	type answer struct {
		res ToolResult
		err error
	}
	got := make(chan answer, 1)
	go func() {
		res, err := c.CallWithProgress(ctx, ToolWorkflows, nil, "tok-1")
		got <- answer{res, err}
	}()
	<-b.started
	// three heartbeats while the backend is still busy
	if err := c.WaitProgress(ctx, "tok-1", func(ps []Progress) bool {
		n := 0
		for _, p := range ps {
			if strings.HasPrefix(p.Message, "workflows: running (") {
				n++
			}
		}
		return n >= 3
	}); err != nil {
		t.Fatalf("no heartbeat while running: %v (%+v)", err, c.ProgressOf("tok-1"))
	}
	b.free()
	a := <-got
	if a.err != nil || a.res.IsError || !strings.Contains(a.res.Text, `"command":"status"`) {
		t.Fatalf("result %+v, %v", a.res, a.err)
	}
	if err := c.WaitProgress(ctx, "tok-1", func(ps []Progress) bool {
		return len(ps) > 0 && ps[len(ps)-1].Total != 0
	}); err != nil {
		t.Fatalf("no done notification: %v", err)
	}
	ps := c.ProgressOf("tok-1")
	checkSequence(t, ps, ToolWorkflows)
	if ps[0].Message != "workflows: running" {
		t.Errorf("first notification %q, want %q (nothing waited)", ps[0].Message, "workflows: running")
	}

	// no token: no notification (the log call is answered at once)
	before := len(c.ProgressOf(nil))
	if _, err := c.Call(ctx, ToolLog, nil); err != nil {
		t.Fatal(err)
	}
	// a round trip after the call: anything it had sent would be in
	if _, err := c.Tools(ctx); err != nil {
		t.Fatal(err)
	}
	if after := c.ProgressOf(nil); len(after) != before {
		t.Errorf("a call without a progress token was sent %+v", after[before:])
	}
	// and none for tok-1 after its done
	if again := c.ProgressOf("tok-1"); len(again) != len(ps) {
		t.Errorf("notifications after done: %+v", again[len(ps):])
	}
}

// A call queued behind another (a claim in flight) says it is waiting,
// then runs when the other ends.
func TestProgressWaitingBehindAnotherCall(t *testing.T) {
	b, c := newBlocking(t, time.Hour) // no heartbeat: the steps only
	ctx := waitCtx(t)

	claimed := make(chan error, 1)
	go func() {
		_, err := c.Call(ctx, ToolClaim, map[string]any{"workflow": "sdc-1"})
		claimed <- err
	}()
	if s := <-b.started; s != "claim" {
		t.Fatalf("started %q", s)
	}
	listed := make(chan error, 1)
	go func() {
		_, err := c.CallWithProgress(ctx, ToolWorkflows, nil, "tok-2")
		listed <- err
	}()
	if err := c.WaitProgress(ctx, "tok-2", func(ps []Progress) bool { return len(ps) >= 1 }); err != nil {
		t.Fatal(err)
	}
	if ps := c.ProgressOf("tok-2"); ps[0].Message != "workflows: waiting for the call in flight to end" {
		t.Fatalf("first notification %+v, want the wait", ps[0])
	}
	b.free() // the claim ends, then workflows runs (and is released too)
	if err := <-claimed; err != nil {
		t.Fatal(err)
	}
	if err := <-listed; err != nil {
		t.Fatal(err)
	}
	if err := c.WaitProgress(ctx, "tok-2", func(ps []Progress) bool { return ps[len(ps)-1].Total != 0 }); err != nil {
		t.Fatal(err)
	}
	ps := c.ProgressOf("tok-2")
	checkSequence(t, ps, ToolWorkflows)
	want := []string{"workflows: waiting for the call in flight to end", "workflows: running", "workflows: done"}
	if len(ps) != len(want) {
		t.Fatalf("notifications %+v, want %q", ps, want)
	}
	for i := range want {
		if ps[i].Message != want[i] {
			t.Errorf("notification %d: %q, want %q", i, ps[i].Message, want[i])
		}
	}
}
