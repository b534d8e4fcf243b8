package resumeflow

import (
	"encoding/json"
	"sort"
	"strings"
)

// Claims are the claims one MCP server holds, by workflow id, with the
// envelope each claim wrote (as the claim returned it).
type Claims struct {
	held      map[string]*Claim
	envelopes map[string]json.RawMessage
}

// NewClaims is an empty set of claims.
func NewClaims() *Claims {
	return &Claims{held: map[string]*Claim{}, envelopes: map[string]json.RawMessage{}}
}

// Add holds cl, with the envelope it wrote.
func (cs *Claims) Add(cl *Claim, envelope json.RawMessage) {
	cs.held[cl.Workflow] = cl
	cs.envelopes[cl.Workflow] = envelope
}

// Remove drops the claim of workflow id.
func (cs *Claims) Remove(id string) {
	delete(cs.held, id)
	delete(cs.envelopes, id)
}

// IDs are the workflows held, sorted.
func (cs *Claims) IDs() []string {
	ids := make([]string, 0, len(cs.held))
	for id := range cs.held {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// Named is the claim name names, with its envelope: its id, or the one
// claim whose key (the id after its type) or id starts with name — the
// names a claim takes. False when none does, or more than one.
func (cs *Claims) Named(name string) (*Claim, json.RawMessage, bool) {
	if cl, ok := cs.held[name]; ok {
		return cl, cs.envelopes[name], true
	}
	name = strings.TrimSpace(name)
	var found *Claim
	for id, cl := range cs.held {
		_, key, _ := strings.Cut(id, ":")
		if name != "" && (strings.HasPrefix(id, name) || strings.HasPrefix(key, name)) {
			if found != nil {
				return nil, nil, false // ambiguous
			}
			found = cl
		}
	}
	if found == nil {
		return nil, nil, false
	}
	return found, cs.envelopes[found.Workflow], true
}
