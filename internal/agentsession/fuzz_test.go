package agentsession

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// The transcript readers never panic, and what they return to show is one
// short, valid, terminal-safe line.
func FuzzTranscript(f *testing.F) {
	f.Add([]byte(`{"type":"session_meta","payload":{"id":"a","cwd":"/r"}}` + "\n" + `{"type":"event_msg","payload":{"type":"user_message","message":"hi\x1b[2J"}}`))
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"text","text":"x\ny"}]}}`))
	f.Add([]byte("\xff\xfe{\"type\":\"user\",\"message\":{\"content\":\"\u2028\"}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		codexMeta(data)
		for _, a := range []string{Claude, Codex} {
			s := clean(firstPrompt(a, data))
			if strings.ContainsAny(s, "\n\r\x1b\x07") || !utf8.ValidString(s) || utf8.RuneCountInString(s) > 4*firstLineMax {
				t.Fatalf("unsafe first line %q", s)
			}
		}
	})
}

// FuzzRolloutID: any file name; an id read back is the name's tail after a
// well-formed rollout time, and never holds a "/".
func FuzzRolloutID(f *testing.F) {
	f.Add("rollout-2025-05-07T17-24-21-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl")
	f.Add("rollout-2025-05-07T17-24-21-.jsonl")
	f.Add("rollout-")
	f.Fuzz(func(t *testing.T, name string) {
		id := rolloutID(name)
		if id == "" {
			return
		}
		if !strings.HasPrefix(name, "rollout-") || !strings.Contains(name, "-"+id) || (strings.ContainsRune(id, '/') && !strings.ContainsRune(name, '/')) {
			t.Fatalf("rolloutID(%q) = %q", name, id)
		}
		if rolloutID("rollout-2000-01-01T00-00-00-"+id+".jsonl") != id {
			t.Fatalf("not read back: %q", id)
		}
	})
}
