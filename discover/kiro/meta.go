// The spec folder's other files: .config.kiro, tasks.meta.json (Kiro IDE)
// and spec.json (cc-sdd). None of them holds task progress (Rule B2.1);
// they tell the producer, the spec type, the design stage and when a task
// last ran.

package kiro

import (
	"bytes"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/tolerant"
)

// kiroConfig is what .config.kiro (or config.kiro, Rule B2.2) says.
type kiroConfig struct {
	Present bool
	// GenerationMode is Kiro 0.9's key; SpecID, WorkflowType and SpecType
	// are later builds'.
	GenerationMode, SpecID, WorkflowType, SpecType string
}

// parseConfig reads a .config.kiro; a file that does not decode is still
// present (it shows the IDE wrote the spec).
func parseConfig(data []byte) kiroConfig {
	c := kiroConfig{Present: true}
	m, err := tolerant.DecodeJSONMap(trimBOM(data))
	if err != nil {
		return c
	}
	str := func(k string) string {
		s, _ := m[k].(string)
		return clip(oneLine(s), 60)
	}
	c.GenerationMode, c.SpecID, c.WorkflowType, c.SpecType = str("generationMode"), str("specId"), str("workflowType"), str("specType")
	return c
}

// meta is what tasks.meta.json says of the last task run.
type meta struct {
	// LastTask is the "<id> <title>" key of the newest execution, LastID
	// its id, LastAt its time; zero without a valid execution.
	LastTask, LastID string
	LastAt           time.Time
	// PBT is the property-test status recorded for the last task ("" none).
	PBT string
	// Bad is set when the file does not decode as the IDE writes it.
	Bad bool
}

// parseMeta reads tasks.meta.json: the newest executionHistory timestamp
// (epoch milliseconds) and its task. Keys are walked in sorted order so
// that equal timestamps give the same answer.
func parseMeta(data []byte) meta {
	var out meta
	m, err := tolerant.DecodeJSONMap(trimBOM(data))
	if err != nil {
		out.Bad = true
		return out
	}
	hist, ok := m["executionHistory"].(map[string]any)
	if !ok {
		if _, has := m["executionHistory"]; has {
			out.Bad = true
		}
		return out
	}
	keys := make([]string, 0, len(hist))
	for k := range hist {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		runs, _ := hist[k].([]any)
		for _, run := range runs {
			rm, ok := run.(map[string]any)
			if !ok {
				continue
			}
			at, ok := millis(rm["timestamp"])
			if ok && at.After(out.LastAt) {
				out.LastAt, out.LastTask = at, clip(oneLine(k), 120)
			}
		}
	}
	if out.LastTask != "" {
		out.LastID = strings.Fields(out.LastTask)[0]
		if pbt, ok := m["pbtResults"].(map[string]any); ok {
			if r, ok := pbt[out.LastTask].(map[string]any); ok {
				s, _ := r["status"].(string)
				out.PBT = clip(oneLine(s), 30)
			}
		}
	}
	return out
}

// millis reads an epoch-milliseconds timestamp between 2000 and 2200.
func millis(v any) (time.Time, bool) {
	f, ok := v.(float64)
	if !ok || math.IsNaN(f) || f < 946684800000 || f > 7258118400000 {
		return time.Time{}, false
	}
	return time.UnixMilli(int64(f)).UTC(), true
}

// specJSON is what cc-sdd's spec.json says (Rule B2.3: the phase is used
// only without tasks.md).
type specJSON struct {
	Present bool
	Phase   string
	// TasksApproved is approvals.tasks.approved; Known says it was read.
	TasksApproved, Known bool
}

// parseSpecJSON reads spec.json.
func parseSpecJSON(data []byte) specJSON {
	s := specJSON{Present: true}
	m, err := tolerant.DecodeJSONMap(trimBOM(data))
	if err != nil {
		return s
	}
	if p, ok := m["phase"].(string); ok {
		s.Phase = clip(oneLine(p), 60)
	}
	if ap, ok := m["approvals"].(map[string]any); ok {
		if t, ok := ap["tasks"].(map[string]any); ok {
			if v, ok := t["approved"].(bool); ok {
				s.TasksApproved, s.Known = v, true
			}
		}
	}
	return s
}

// trimBOM drops a UTF-8 byte order mark and surrounding space.
func trimBOM(data []byte) []byte {
	return bytes.TrimSpace(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")))
}
