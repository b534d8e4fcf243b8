package modes

import (
	"fmt"
	"strings"
)

// Mode is how a resume decides: alone (autopilot), by asking (interactive)
// or after an explicit proceed (preflight).
type Mode string

// The modes. The zero Mode is not one of them: ParseMode("") gives
// ModeInteractive, the default.
const (
	ModeAutopilot   Mode = "autopilot"
	ModeInteractive Mode = "interactive"
	ModePreflight   Mode = "preflight"
)

// ParseMode is the one reader of a mode name, used for the --mode flag, the
// environment, the configuration and the mode a workflow was started in.
// Case, surrounding spaces and the separators "-", "_" and " " are ignored;
// "auto" and "yolo" are autopilot; the empty string is interactive (the
// default). Any other name is an error: an unknown mode never silently
// becomes interactive.
func ParseMode(s string) (Mode, error) {
	key := strings.NewReplacer("-", "", "_", "", " ", "").Replace(strings.ToLower(strings.TrimSpace(s)))
	switch key {
	case "autopilot", "auto", "yolo":
		return ModeAutopilot, nil
	case "interactive", "":
		return ModeInteractive, nil
	case "preflight":
		return ModePreflight, nil
	}
	return "", fmt.Errorf("unknown mode %q: want autopilot, interactive or preflight", s)
}
