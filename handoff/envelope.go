package handoff

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/redact"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
	"github.com/orchestrate-dev/orchestrate/plan"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// EnvelopeSchema is the schema name of a handoff envelope.
const EnvelopeSchema = "orchestrate-handoff/v1"

// maxEnvelopeSize is the largest envelope FindByKey reads.
const maxEnvelopeSize = 8 << 20

// Envelope is everything the orchestrator needs to continue a workflow,
// written to .orchestrate/handoffs/<safe id>-<n>.json (the third step of a handoff).
// Every string in it is redacted of secrets when it is written.
type Envelope struct {
	Schema         string            `json:"schema"`
	CreatedAt      time.Time         `json:"created_at"`
	Workflow       EnvelopeWorkflow  `json:"workflow"`
	StateSource    string            `json:"state_source"`
	Candidate      EnvelopeCandidate `json:"candidate"`
	Plan           plan.Plan         `json:"plan"`
	Mode           string            `json:"mode"`
	Forced         bool              `json:"forced"`
	Restart        bool              `json:"restart"`
	Context        RestoredContext   `json:"context"`
	Next           Next              `json:"next"`
	IdempotencyKey string            `json:"idempotency_key"`
	// ResumePoint is where inside the work the framework's files say it
	// stopped, with the framework's own command to continue; absent for
	// sources without one.
	ResumePoint *workflow.ResumePoint `json:"resume_point,omitempty"`
	// Framework names the framework and generation that wrote the state.
	Framework string `json:"framework,omitempty"`
}

// EnvelopeWorkflow names the workflow handed off.
type EnvelopeWorkflow struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	Definition string `json:"definition,omitempty"`
}

// EnvelopeCandidate is the candidate as the envelope records it.
type EnvelopeCandidate struct {
	ID       string             `json:"id"`
	Type     string             `json:"type"`
	Source   workflow.SourceRef `json:"source"`
	Stories  []string           `json:"stories"`
	Status   string             `json:"status"`
	Position string             `json:"position"`
}

// RestoredContext is what the workflow had done and saved before it stopped.
// For a work session: its breadcrumbs and its completed subtasks' summaries
// (discover/worksession); when its AI session was gone and a new one was started, the
// previous id and the context rebuilt for the new session (agentsession.go).
type RestoredContext struct {
	CompletedPhases     []CompletedPhase `json:"completed_phases"`
	Saved               map[string]any   `json:"saved"`
	AISessionID         string           `json:"ai_session_id"`
	Breadcrumbs         []any            `json:"breadcrumbs"`
	SubtaskSummaries    []any            `json:"subtask_summaries"`
	PreviousAISessionID string           `json:"previous_ai_session_id,omitempty"`
	Rebuilt             string           `json:"rebuilt_context,omitempty"`
}

// CompletedPhase is a phase kept by the plan, with its agent and outputs.
type CompletedPhase struct {
	Phase   string   `json:"phase"`
	Name    string   `json:"name,omitempty"`
	Agent   string   `json:"agent"`
	Outputs []string `json:"outputs"`
}

// Next is the phase the orchestrator picks up, its agent and inputs.
type Next struct {
	Agent  string   `json:"agent"`
	Phase  string   `json:"phase"`
	Inputs []string `json:"inputs"`
}

// sha256Hex is the hex sha256 of data.
func sha256Hex(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// IdempotencyKey is the key of one resume: the hex sha256 of the workflow id,
// the phase it resumes from, and the hash of its state apart from the fields
// a resume writes. A re-run after a completed resume has the same key; a
// state the agent has moved forward has a new one.
func IdempotencyKey(workflowID, resumeFrom, stateHash string) string {
	return sha256Hex([]byte(workflowID + "\x00" + resumeFrom + "\x00" + stateHash))
}

// sourceHash is the state hash of a candidate's source: for a state file its
// content without the resume fields; for a story or a spec file its content;
// for a folder its files' names and contents.
func sourceHash(root string, c workflow.Candidate, wrappers []string, patched bool) (string, error) {
	p := c.Source.Path
	if p == "" {
		return sha256Hex(nil), nil
	}
	full, clean, err := resolveState(root, p)
	if err != nil {
		return "", err
	}
	fi, err := os.Lstat(full)
	if err != nil {
		return "", fmt.Errorf("hash the state %s: %w", clean, err)
	}
	if fi.IsDir() {
		return dirHash(root, clean)
	}
	data, err := safefile.Read(root, clean, maxStateSize)
	if err != nil {
		return "", fmt.Errorf("hash the state %s: %w", clean, err)
	}
	if patched {
		return stateHash(clean, data, wrappers), nil
	}
	return sha256Hex(data), nil
}

// dirHash hashes the regular files directly in a folder (names and
// contents), in name order.
func dirHash(root, clean string) (string, error) {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(clean)))
	if err != nil {
		return "", fmt.Errorf("hash the folder %s: %w", clean, err)
	}
	h := sha256.New()
	for _, e := range entries {
		if !e.Type().IsRegular() {
			continue
		}
		data, err := safefile.Read(root, clean+"/"+e.Name(), maxStateSize)
		if err != nil {
			fmt.Fprintf(h, "%s\x00unreadable\x00", e.Name())
			continue
		}
		fmt.Fprintf(h, "%s\x00%s\x00", e.Name(), sha256Hex(data))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// HandoffsDir is the folder of the handoff envelopes under root.
func HandoffsDir(root string) string {
	return filepath.Join(root, ".orchestrate", "handoffs")
}

// nextEnvelopePath is .orchestrate/handoffs/<safe id>-<n>.json with n one
// more than the envelopes already there for the id (and past the highest n).
func nextEnvelopePath(root, id string) (string, error) {
	safe := SafeID(id)
	if _, err := safefile.CheckPath(root, ".orchestrate/handoffs/"+safe+"-1.json"); err != nil {
		return "", fmt.Errorf("envelope of %s: %w", id, err)
	}
	dir := HandoffsDir(root)
	entries, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("list envelopes: %w", err)
	}
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(safe) + `-([0-9]+)\.json$`)
	count, highest := 0, 0
	for _, e := range entries {
		m := re.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		count++
		if n, err := strconv.Atoi(m[1]); err == nil && n > highest {
			highest = n
		}
	}
	n := count + 1
	if highest >= n {
		n = highest + 1
	}
	return filepath.Join(dir, fmt.Sprintf("%s-%d.json", safe, n)), nil
}

// writeEnvelope writes env (redacted) to path, 0600, atomically.
func writeEnvelope(path string, env Envelope) error {
	raw, err := json.Marshal(env)
	if err != nil {
		return fmt.Errorf("encode the envelope: %w", err)
	}
	red, err := redactJSON(raw)
	if err != nil {
		return fmt.Errorf("redact the envelope: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, red, "", "  "); err != nil {
		return fmt.Errorf("format the envelope: %w", err)
	}
	out.WriteByte('\n')
	return writeEnvelopeFile(path, out.Bytes())
}

// FindByKey returns the envelope under root whose idempotency key is key.
func FindByKey(root, key string) (string, bool) {
	if key == "" {
		return "", false
	}
	dir := HandoffsDir(root)
	if _, err := safefile.CheckPath(root, ".orchestrate/handoffs"); err != nil {
		return "", false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if e.Type().IsRegular() && strings.HasSuffix(e.Name(), ".json") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p := filepath.Join(dir, name)
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		data, err := io.ReadAll(io.LimitReader(f, maxEnvelopeSize+1))
		f.Close()
		if err != nil || len(data) > maxEnvelopeSize {
			continue
		}
		var head struct {
			Schema string `json:"schema"`
			Key    string `json:"idempotency_key"`
		}
		if json.Unmarshal(data, &head) != nil || head.Schema != EnvelopeSchema {
			continue
		}
		if head.Key == key {
			return p, true
		}
	}
	return "", false
}

// redactJSON rewrites a JSON document with every string redacted and the
// values of members whose names say they are secrets (and everything inside
// them) replaced by "[REDACTED]" (internal/redact, the one redactor of
// every output). Member order is kept.
func redactJSON(data []byte) ([]byte, error) {
	if !json.Valid(data) {
		return nil, errors.New("not a JSON document")
	}
	return redact.JSON(data), nil
}
