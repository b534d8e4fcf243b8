package modes

import "testing"

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{"autopilot", ModeAutopilot, false},
		{" AUTO ", ModeAutopilot, false},
		{"yolo", ModeAutopilot, false},
		{"", ModeInteractive, false},
		{"Interactive", ModeInteractive, false},
		{"preflight", ModePreflight, false},
		{"pre-flight", ModePreflight, false},
		{"pre_flight", ModePreflight, false},
		{"turbo", "", true},
		{"auto pilot!", "", true},
		{"\x00", "", true},
	}
	for _, tt := range tests {
		got, err := ParseMode(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestDecideUnknownModeIsAnError(t *testing.T) {
	d, reason, code := Decide(Situation{Mode: "turbo", Resumable: true, Validation: "clean", AgeClass: "fresh"})
	if d != DecisionHalt || code != 2 || reason == "" {
		t.Errorf("Decide(unknown mode) = %q, %q, %d; want halt with a usage code", d, reason, code)
	}
}
