package prompttest

import (
	"errors"
	"reflect"
	"testing"
)

func TestPrompter(t *testing.T) {
	boom := errors.New("boom")
	opts := []string{"yes", "restart from scratch", "cancel"}
	for _, tt := range []struct {
		name    string
		p       *Prompter
		wantSel int
		wantYes bool
		wantIn  string
		wantErr error
	}{
		{"script", Script(t, Reply{Index: 2}, Reply{Yes: true}, Reply{Text: "proceed"}), 2, true, "proceed", nil},
		{"answer exact", Answering("cancel"), 2, false, "cancel", nil},
		{"answer contains", Answering("restart"), 1, false, "restart", nil},
		{"answer yes", Answering("yes"), 0, true, "yes", nil},
		{"answer none: default", Answering("nothing"), 1, false, "nothing", nil},
		{"failing", Failing(boom), 0, false, "", boom},
	} {
		t.Run(tt.name, func(t *testing.T) {
			i, err := tt.p.Select("Pick?", opts, 1)
			if !errors.Is(err, tt.wantErr) || i != tt.wantSel {
				t.Errorf("Select = %d, %v; want %d, %v", i, err, tt.wantSel, tt.wantErr)
			}
			yes, err := tt.p.Confirm("Sure?", false)
			if !errors.Is(err, tt.wantErr) || yes != tt.wantYes {
				t.Errorf("Confirm = %v, %v", yes, err)
			}
			s, err := tt.p.Input("Type:", "")
			if !errors.Is(err, tt.wantErr) || s != tt.wantIn {
				t.Errorf("Input = %q, %v", s, err)
			}
			if want := []string{"Pick?", "Sure?", "Type:"}; !reflect.DeepEqual(tt.p.Messages(), want) {
				t.Errorf("Messages = %q", tt.p.Messages())
			}
			if tt.p.Asked[0].Kind != "select" || !reflect.DeepEqual(tt.p.Asked[0].Options, opts) || tt.p.Asked[0].Default != 1 {
				t.Errorf("Asked[0] = %#v", tt.p.Asked[0])
			}
		})
	}
}
