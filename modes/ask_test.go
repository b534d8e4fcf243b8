package modes

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/orchestrate-dev/orchestrate/modes/prompttest"
)

func TestChooseCandidate(t *testing.T) {
	labels := []string{"SDC -- story 4.2", "QA Loop -- story 3.1", "Spec Pipeline -- login"}
	wantOptions := []string{"SDC -- story 4.2", "QA Loop -- story 3.1", "Spec Pipeline -- login", "none (cancel)"}
	for _, tc := range []struct {
		name    string
		reply   prompttest.Reply
		want    int
		wantErr error
	}{
		{"first", prompttest.Reply{Index: 0}, 0, nil},
		{"last candidate", prompttest.Reply{Index: 2}, 2, nil},
		{"none", prompttest.Reply{Index: 3}, 0, ErrDeclined},
		{"ctrl-c", prompttest.Reply{Err: ErrInterrupted}, 0, ErrInterrupted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := prompttest.Script(t, tc.reply)
			got, err := ChooseCandidate(p, labels)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if err == nil && got != tc.want {
				t.Errorf("index = %d, want %d", got, tc.want)
			}
			want := []prompttest.Question{{Kind: "select", Message: "Which would you like to resume?", Options: wantOptions, Default: 0}}
			if !reflect.DeepEqual(p.Asked, want) {
				t.Errorf("asked %#v\nwant  %#v", p.Asked, want)
			}
		})
	}
}

func TestChooseCandidateEdges(t *testing.T) {
	if _, err := ChooseCandidate(prompttest.Script(t), nil); !errors.Is(err, ErrDeclined) {
		t.Errorf("no labels: err = %v, want ErrDeclined", err)
	}
	for _, i := range []int{-1, 3} {
		_, err := ChooseCandidate(prompttest.Script(t, prompttest.Reply{Index: i}), []string{"a", "b"})
		if err == nil || errors.Is(err, ErrDeclined) {
			t.Errorf("index %d: err = %v, want an out-of-range error", i, err)
		}
	}
}

func TestConfirmResume(t *testing.T) {
	plain := []string{"[y] yes", "[r] restart from scratch", "[c] cancel"}
	forced := []string{"[f] resume anyway (forced, logged)", "[r] restart from scratch", "[c] cancel"}
	for _, tc := range []struct {
		name               string
		conflicts, partial bool
		reply              prompttest.Reply
		want               Answer
		wantErr            error
		message            string
		options            []string
		def                int
	}{
		{"yes", false, false, prompttest.Reply{Index: 0}, AnswerResume, nil, "Resume this workflow?", plain, 0},
		{"restart", false, false, prompttest.Reply{Index: 1}, AnswerRestart, nil, "Resume this workflow?", plain, 0},
		{"cancel", false, false, prompttest.Reply{Index: 2}, AnswerCancel, nil, "Resume this workflow?", plain, 0},
		{"partial yes", false, true, prompttest.Reply{Index: 0}, AnswerResume, nil, "Proceed with the partial resume?", plain, 0},
		{"conflicts force", true, false, prompttest.Reply{Index: 0}, AnswerForce, nil, "Resume this workflow?", forced, 2},
		{"conflicts restart", true, false, prompttest.Reply{Index: 1}, AnswerRestart, nil, "Resume this workflow?", forced, 2},
		{"conflicts cancel", true, true, prompttest.Reply{Index: 2}, AnswerCancel, nil, "Proceed with the partial resume?", forced, 2},
		{"ctrl-c", false, false, prompttest.Reply{Err: ErrInterrupted}, AnswerCancel, ErrInterrupted, "Resume this workflow?", plain, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := prompttest.Script(t, tc.reply)
			got, err := ConfirmResume(p, tc.conflicts, tc.partial)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if got != tc.want {
				t.Errorf("answer = %q, want %q", got, tc.want)
			}
			want := []prompttest.Question{{Kind: "select", Message: tc.message, Options: tc.options, Default: tc.def}}
			if !reflect.DeepEqual(p.Asked, want) {
				t.Errorf("asked %#v\nwant  %#v", p.Asked, want)
			}
		})
	}
	if ans, err := ConfirmResume(prompttest.Script(t, prompttest.Reply{Index: 3}), false, false); err == nil || ans != AnswerCancel {
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
		p := prompttest.Script(t, prompttest.Reply{Text: tc.text})
		got, err := ConfirmProceed(p)
		if err != nil || got != tc.want {
			t.Errorf("%q: %v, %v; want %v", tc.text, got, err, tc.want)
		}
		want := []prompttest.Question{{Kind: "input", Message: `Type "proceed" to start (anything else cancels):`, Options: nil, Default: ""}}
		if !reflect.DeepEqual(p.Asked, want) {
			t.Errorf("asked %#v\nwant  %#v", p.Asked, want)
		}
	}
	if ok, err := ConfirmProceed(prompttest.Script(t, prompttest.Reply{Text: "proceed", Err: ErrInterrupted})); ok || !errors.Is(err, ErrInterrupted) {
		t.Errorf("ctrl-c: %v, %v; want false, ErrInterrupted", ok, err)
	}
}

func TestConfirmTakeover(t *testing.T) {
	for _, tc := range []struct {
		description, message string
		reply                prompttest.Reply
		want                 bool
		wantErr              error
	}{
		{"The lock of sdc:4.2 is stale (pid 42 on host).", "The lock of sdc:4.2 is stale (pid 42 on host). Take it over?", prompttest.Reply{Yes: true}, true, nil},
		{"The lock is stale.", "The lock is stale. Take it over?", prompttest.Reply{Yes: false}, false, nil},
		{"", "Take it over?", prompttest.Reply{Yes: true}, true, nil},
		{"Stale.", "Stale. Take it over?", prompttest.Reply{Err: ErrInterrupted}, false, ErrInterrupted},
	} {
		p := prompttest.Script(t, tc.reply)
		got, err := ConfirmTakeover(p, tc.description)
		if got != tc.want || !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
			t.Errorf("%q: %v, %v; want %v, %v", tc.description, got, err, tc.want, tc.wantErr)
		}
		want := []prompttest.Question{{Kind: "confirm", Message: tc.message, Options: nil, Default: false}}
		if !reflect.DeepEqual(p.Asked, want) {
			t.Errorf("asked %#v\nwant  %#v", p.Asked, want)
		}
	}
}

// TestChooseInstead: restart only when it works, cleanup only when stale,
// cancel always and by default.
func TestChooseInstead(t *testing.T) {
	for _, tt := range []struct {
		name           string
		restart, stale bool
		pick           int
		wantOptions    []string
		want           Answer
	}{
		{"restart and cleanup", true, true, 1, []string{OptionRestart, OptionCleanup, OptionCancel}, AnswerCleanup},
		{"restart only", true, false, 0, []string{OptionRestart, OptionCancel}, AnswerRestart},
		{"cleanup only", false, true, 0, []string{OptionCleanup, OptionCancel}, AnswerCleanup},
		{"cancel", true, true, 2, []string{OptionRestart, OptionCleanup, OptionCancel}, AnswerCancel},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := prompttest.Script(t, prompttest.Reply{Index: tt.pick})
			got, err := ChooseInstead(p, tt.restart, tt.stale)
			if err != nil || got != tt.want {
				t.Fatalf("ChooseInstead = %v, %v; want %v", got, err, tt.want)
			}
			q := p.Asked[0]
			if strings.Join(q.Options, "|") != strings.Join(tt.wantOptions, "|") || q.Default != len(tt.wantOptions)-1 {
				t.Errorf("options %q default %v", q.Options, q.Default)
			}
		})
	}
	if a, err := ChooseInstead(prompttest.Failing(ErrInterrupted), true, true); a != AnswerCancel || err != ErrInterrupted {
		t.Errorf("Ctrl-C: %v %v", a, err)
	}
}

// TestConfirmAgain: the default is no; the question says what happened.
func TestConfirmAgain(t *testing.T) {
	p := prompttest.Script(t, prompttest.Reply{Yes: true})
	ok, err := ConfirmAgain(p, "sdc:4.2 was already handed off 12 minutes ago.")
	if !ok || err != nil {
		t.Fatalf("ConfirmAgain = %v, %v", ok, err)
	}
	if q := p.Asked[0]; q.Default != false || !strings.Contains(q.Message, "12 minutes ago") || !strings.Contains(q.Message, QuestionAgain) {
		t.Errorf("asked %+v", q)
	}
}
