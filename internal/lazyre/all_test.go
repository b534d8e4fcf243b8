package lazyre_test

import (
	"testing"

	_ "github.com/orchestrate-dev/orchestrate/discover"
	_ "github.com/orchestrate-dev/orchestrate/discover/rebuild"
	_ "github.com/orchestrate-dev/orchestrate/internal/agentsession"
	_ "github.com/orchestrate-dev/orchestrate/internal/gitremote"
	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
	_ "github.com/orchestrate-dev/orchestrate/internal/redact"
)

// TestEveryPatternCompiles compiles the lazy expressions of every package
// that uses them (discover links in every format package; rebuild is
// outside it), which
// regexp.MustCompile at init used to do on every run.
func TestEveryPatternCompiles(t *testing.T) {
	n, err := lazyre.Check()
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Errorf("checked %d expressions; the format packages hold more than 50", n)
	}
}
