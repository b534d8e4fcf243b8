package sharedlife

import (
	"testing"

	"github.com/orchestrate-dev/orchestrate/internal/gitremote"
)

// FuzzParseValue: a lock or record value read back from the remote is
// hostile; parsing it never panics, and a value kept always names the
// workflow of its ref.
func FuzzParseValue(f *testing.F) {
	f.Add(`{"schema":"orchestrate/lock/v1","workflow":"sdc:1","expires_at":"2999-01-01T00:00:00Z"}`, "sdc_3a1")
	f.Add(`{"schema":"orchestrate/record/v1","workflow":"sdc:1","event":"handed_off","idempotency_key":"k"}`, "sdc_3a1")
	f.Add(`{"schema":"orchestrate/lock/v1","workflow":"","runner":{"pid":-1}}`, "")
	f.Fuzz(func(t *testing.T, msg, comp string) {
		if l, ok := parseLock(msg, comp); ok {
			if c, err := gitremote.RefComponent(l.Workflow); err != nil || c != comp {
				t.Fatalf("kept a lock for %q under %q", l.Workflow, comp)
			}
		}
		if r, ok := parseRecord(msg, comp); ok && comp != "" {
			if c, err := gitremote.RefComponent(r.Workflow); err != nil || c != comp {
				t.Fatalf("kept a record for %q under %q", r.Workflow, comp)
			}
		}
	})
}
