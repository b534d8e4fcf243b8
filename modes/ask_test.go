package modes

import (
	"errors"
	"reflect"
	"testing"
)

// question is one question a scriptedPrompter was asked.
type question struct {
	kind    string // select | confirm | input
	message string
	options []string
	def     any
}

// reply is the scripted answer to the next question.
type reply struct {
	index int
	yes   bool
	text  string
	err   error
}

// scriptedPrompter answers from a script and records what it was asked.
type scriptedPrompter struct {
	t       *testing.T
	replies []reply
	asked   []question
}

func (p *scriptedPrompter) next(q question) reply {
	p.t.Helper()
	p.asked = append(p.asked, q)
	if len(p.replies) == 0 {
		p.t.Fatalf("unexpected question %q", q.message)
	}
	r := p.replies[0]
	p.replies = p.replies[1:]
	return r
}

func (p *scriptedPrompter) Select(message string, options []string, def int) (int, error) {
	r := p.next(question{"select", message, append([]string(nil), options...), def})
	return r.index, r.err
}

func (p *scriptedPrompter) Confirm(message string, def bool) (bool, error) {
	r := p.next(question{"confirm", message, nil, def})
	return r.yes, r.err
}

func (p *scriptedPrompter) Input(message string, def string) (string, error) {
	r := p.next(question{"input", message, nil, def})
	return r.text, r.err
}

func script(t *testing.T, replies ...reply) *scriptedPrompter {
	return &scriptedPrompter{t: t, replies: replies}
}

func TestChooseCandidate(t *testing.T) {
	labels := []string{"SDC -- story 4.2", "QA Loop -- story 3.1", "Spec Pipeline -- login"}
	wantOptions := []string{"SDC -- story 4.2", "QA Loop -- story 3.1", "Spec Pipeline -- login", "none (start fresh)"}
	for _, tc := range []struct {
		name    string
		reply   reply
		want    int
		wantErr error
	}{
		{"first", reply{index: 0}, 0, nil},
		{"last candidate", reply{index: 2}, 2, nil},
		{"none", reply{index: 3}, 0, ErrDeclined},
		{"ctrl-c", reply{err: ErrInterrupted}, 0, ErrInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := script(t, tc.reply)
			got, err := ChooseCandidate(p, labels)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err == nil && got != tc.want {
				t.Errorf("index = %d, want %d", got, tc.want)
			}
			want := []question{{"select", "Which would you like to resume?", wantOptions, 0}}
			if !reflect.DeepEqual(p.asked, want) {
				t.Errorf("asked %#v\nwant  %#v", p.asked, want)
			}
		})
	}
}

func TestChooseCandidateEdges(t *testing.T) {
	if _, err := ChooseCandidate(script(t), nil); !errors.Is(err, ErrDeclined) {
		t.Errorf("no labels: err = %v, want ErrDeclined", err)
	}
	for _, i := range []int{-1, 3} {
		_, err := ChooseCandidate(script(t, reply{index: i}), []string{"a", "b"})
		if err == nil || errors.Is(err, ErrDeclined) {
			t.Errorf("index %d: err = %v, want an out-of-range error", i, err)
		}
	}
}

func TestConfirmResume(t *testing.T) {
	plain := []string{"yes", "restart from scratch", "cancel"}
	forced := []string{"resume anyway (forced, logged)", "restart from scratch", "cancel"}
	for _, tc := range []struct {
		name               string
		conflicts, partial bool
		reply              reply
		want               Answer
		wantErr            error
		message            string
		options            []string
		def                int
	}{
		{"yes", false, false, reply{index: 0}, AnswerResume, nil, "Resume this workflow?", plain, 0},
		{"restart", false, false, reply{index: 1}, AnswerRestart, nil, "Resume this workflow?", plain, 0},
		{"cancel", false, false, reply{index: 2}, AnswerCancel, nil, "Resume this workflow?", plain, 0},
		{"partial yes", false, true, reply{index: 0}, AnswerResume, nil, "Proceed with the partial resume?", plain, 0},
		{"conflicts force", true, false, reply{index: 0}, AnswerForce, nil, "Resume this workflow?", forced, 2},
		{"conflicts restart", true, false, reply{index: 1}, AnswerRestart, nil, "Resume this workflow?", forced, 2},
		{"conflicts cancel", true, true, reply{index: 2}, AnswerCancel, nil, "Proceed with the partial resume?", forced, 2},
		{"ctrl-c", false, false, reply{err: ErrInterrupted}, AnswerCancel, ErrInterrupted, "Resume this workflow?", plain, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := script(t, tc.reply)
			got, err := ConfirmResume(p, tc.conflicts, tc.partial)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("answer = %q, want %q", got, tc.want)
			}
			want := []question{{"select", tc.message, tc.options, tc.def}}
			if !reflect.DeepEqual(p.asked, want) {
				t.Errorf("asked %#v\nwant  %#v", p.asked, want)
			}
		})
	}
	if ans, err := ConfirmResume(script(t, reply{index: 3}), false, false); err == nil || ans != AnswerCancel {
		t.Errorf("out of range: %q, %v; want cancel and an error", ans, err)
	}
}

func TestConfirmProceed(t *testing.T) {
	for _, tc := range []struct {
		text string
		want bool
	}{
		{"proceed", true},
		{"  Proceed \n", true},
		{"PROCEED", true},
		{"", false},
		{"yes", false},
		{"proceed now", false},
		{"proceeds", false},
	} {
		p := script(t, reply{text: tc.text})
		got, err := ConfirmProceed(p)
		if err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.text, got, err, tc.want)
		}
		want := []question{{"input", `Type "proceed" to start (anything else cancels):`, nil, ""}}
		if !reflect.DeepEqual(p.asked, want) {
			t.Errorf("asked %#v\nwant  %#v", p.asked, want)
		}
	}
	if ok, err := ConfirmProceed(script(t, reply{text: "proceed", err: ErrInterrupted})); ok || !errors.Is(err, ErrInterrupted) {
		t.Errorf("ctrl-c: %v, %v; want false, ErrInterrupted", ok, err)
	}
}

func TestConfirmTakeover(t *testing.T) {
	for _, tc := range []struct {
		description, message string
		reply                reply
		want                 bool
		wantErr              error
	}{
		{"The lock of sdc:4.2 is stale (pid 42 on host).", "The lock of sdc:4.2 is stale (pid 42 on host). Take it over?", reply{yes: true}, true, nil},
		{"The lock is stale.", "The lock is stale. Take it over?", reply{yes: false}, false, nil},
		{"", "Take it over?", reply{yes: true}, true, nil},
		{"Stale.", "Stale. Take it over?", reply{err: ErrInterrupted}, false, ErrInterrupted},
	} {
		p := script(t, tc.reply)
		got, err := ConfirmTakeover(p, tc.description)
		if got != tc.want || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("%q: %v, %v; want %v, %v", tc.description, got, err, tc.want, tc.wantErr)
		}
		want := []question{{"confirm", tc.message, nil, false}}
		if !reflect.DeepEqual(p.asked, want) {
			t.Errorf("asked %#v\nwant  %#v", p.asked, want)
		}
	}
}
