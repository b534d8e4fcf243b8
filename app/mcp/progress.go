package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultProgressEvery is how often a call that asked for progress (a
// progress token in its _meta) hears that it is still running.
const DefaultProgressEvery = time.Second

// progressNotifier sends the notifications/progress of one request: the
// MCP rule is one token per request, a progress value that increases with
// every notification, and nothing after the response. The messages name the
// tool and the step only (never repository data), so they need no
// redaction.
type progressNotifier struct {
	ctx   context.Context
	ss    *sdk.ServerSession
	token any
	name  string
	start time.Time

	mu sync.Mutex
	n  float64
}

// send notifies the next step; total, when not zero, says the call is done
// (progress = total). A failed send (the client went away, the request was
// cancelled) is not the call's failure.
func (p *progressNotifier) send(msg string, done bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	params := &sdk.ProgressNotificationParams{ProgressToken: p.token, Progress: p.n, Message: p.name + ": " + msg}
	if done {
		params.Total = p.n
	}
	_ = p.ss.NotifyProgress(p.ctx, params)
}

// withProgress runs f through the server's one-call-at-a-time queue
// (serialized.doWaiting) and, when the request carries a progress token,
// tells the client where the call is: waiting behind the call in flight,
// running, still running every `every` (a client that resets its request
// timeout on progress does not give up on a long claim or a cold status
// of a large repository), and done. The last notification is sent before
// the result, and none after: the ticker is stopped and waited for first.
func withProgress(ctx context.Context, sb *serialized, ss *sdk.ServerSession, token any, name string, every time.Duration, f func() Doc) Doc {
	if token == nil || ss == nil {
		return sb.do(f)
	}
	if every <= 0 {
		every = DefaultProgressEvery
	}
	p := &progressNotifier{ctx: ctx, ss: ss, token: token, name: name, start: time.Now()}
	var (
		stateMu sync.Mutex
		state   = "waiting for the call in flight to end"
	)
	setState := func(s string) {
		stateMu.Lock()
		state = s
		stateMu.Unlock()
	}
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				stateMu.Lock()
				s := state
				stateMu.Unlock()
				p.send(fmt.Sprintf("%s (%s)", s, time.Since(p.start).Round(time.Second)), false)
			}
		}
	}()
	d := sb.doWaiting(func() { p.send("waiting for the call in flight to end", false) }, func() Doc {
		setState("running")
		p.send("running", false)
		return f()
	})
	close(stop)
	<-stopped
	p.send("done", true)
	return d
}

// doWaiting is do, calling waiting first when another call holds the
// queue (before blocking on it).
func (s *serialized) doWaiting(waiting func(), f func() Doc) Doc {
	if !s.mu.TryLock() {
		waiting()
		s.mu.Lock()
	}
	defer s.mu.Unlock()
	return f()
}
