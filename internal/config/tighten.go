package config

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// An untrusted repository's .orchestrate.yaml may only tighten: each limit
// or threshold below applies from it only when it is at least as strict as
// the default; a looser value is ignored with a warning until the file is
// trusted, and then applies as written (docs/SECURITY.md). The user's config,
// the environment and flags are not limited.

// stricter says which way a limit tightens.
type stricter int

const (
	// lower: a smaller value is stricter (a cap, a threshold that makes
	// orchestrate warn or halt sooner, a timeout).
	lower stricter = iota
	// higher: a larger value is stricter (how long autopilot leaves a
	// handed-off workflow alone, a lease).
	higher
)

// zeroMeans says what a value of 0 (or below) stands for.
type zeroMeans int

const (
	// zeroDefault: 0 takes the default.
	zeroDefault zeroMeans = iota
	// zeroUnbounded: 0 is no limit at all (a timeout: none; a re-handoff
	// window: never again by itself), the far end of the scale.
	zeroUnbounded
)

// limitKey is one setting an untrusted repository file may only tighten.
type limitKey struct {
	Key  string
	Way  stricter
	Zero zeroMeans
	// What names the limit in the warning: "would loosen <What>".
	What func(def int64) string
}

// limitKeys is the one table of the settings an untrusted repository file
// may only tighten: a new limit, threshold, lease or timeout is one line
// here (lifecycle.lease: {"lifecycle.lease", higher, zeroDefault, ...}).
var limitKeys = []limitKey{
	{"max_file_size", lower, zeroDefault, func(d int64) string { return "the " + sizeText(d) + " read cap" }},
	{"max_ref_files", lower, zeroDefault, func(d int64) string { return fmt.Sprintf("the cap of %d referenced files", d) }},
	{"age.fresh", lower, zeroDefault, func(d int64) string { return "the " + durText(d) + " fresh threshold" }},
	{"age.recent", lower, zeroDefault, func(d int64) string { return "the " + durText(d) + " recent threshold" }},
	{"age.stale", lower, zeroDefault, func(d int64) string { return "the " + durText(d) + " stale threshold" }},
	{"resume.rehandoff_after", higher, zeroUnbounded, func(d int64) string {
		return "the " + durText(d) + " autopilot waits before handing a workflow off again"
	}},
	{"handoff.timeout", lower, zeroUnbounded, func(d int64) string { return "the handoff command's timeout (" + durText(d) + ")" }},
}

// atLeastAsStrict reports whether val is as strict as def or stricter, for
// limit l.
func (l limitKey) atLeastAsStrict(val, def int64) bool {
	norm := func(x int64) int64 {
		if x > 0 {
			return x
		}
		if l.Zero == zeroUnbounded {
			// the far end: for a cap (lower) no limit is the loosest, for
			// a wait (higher) never is the strictest
			return math.MaxInt64
		}
		return def
	}
	v, d := norm(val), norm(def)
	if l.Way == lower {
		return v <= d
	}
	return v >= d
}

// defaultInt is the default of limit key k as a number (bytes, a count, or
// nanoseconds).
func defaultInt(k string) int64 {
	v := newViper()
	return toInt(k, v.Get(k))
}

// toInt decodes val as key k is decoded (a duration from "1ns", a size from
// 4000000000) and returns it as a number; a value that does not decode is
// 0 (checkLayer has already refused it).
func toInt(k string, val any) int64 {
	spec, ok := keyKinds[k]
	if !ok {
		return 0
	}
	pv := viper.New()
	if err := pv.MergeConfigMap(nest(map[string]any{k: val})); err != nil {
		return 0
	}
	p := reflect.New(spec.typ)
	if err := pv.UnmarshalKey(k, p.Interface()); err != nil {
		return 0
	}
	switch e := p.Elem(); e.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return e.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if e.Uint() > math.MaxInt64 {
			return math.MaxInt64
		}
		return int64(e.Uint())
	}
	return 0
}

// Loosened is a limit or threshold of the repository file that is looser
// than the default: ignored while the file is not trusted.
type Loosened struct {
	Key, Value string
	// Why says what it would loosen: "would loosen the 8 MiB read cap".
	Why string
}

// tighten finds the limits of the repository file's flat settings that are
// looser than the default (rc.Loosened); while the file is not trusted they
// are removed from flat and kept in rc.withheld (trusting the file applies
// them). Keys the user's config or the environment set are left alone (the
// repository's value does not apply anyway).
func (rc *RepoFile) tighten(flat, userFlat map[string]any, getenv func(string) string) {
	for _, l := range limitKeys {
		val, ok := flat[l.Key]
		if !ok || val == nil {
			continue
		}
		if overridden(l.Key, userFlat, getenv) {
			continue
		}
		def := defaultInt(l.Key)
		if l.atLeastAsStrict(toInt(l.Key, val), def) {
			continue
		}
		rc.Loosened = append(rc.Loosened, Loosened{Key: l.Key, Value: valueText(val), Why: "would loosen " + l.What(def)})
		if !rc.Trusted() {
			delete(flat, l.Key)
			rc.withheld[l.Key] = val
		}
	}
}

// loosenedWarning is the warning line naming the limits ignored from the
// untrusted repository file ("" when none).
func (rc *RepoFile) loosenedWarning() string {
	if rc == nil || len(rc.Loosened) == 0 || rc.Trusted() {
		return ""
	}
	parts := make([]string, len(rc.Loosened))
	for i, l := range rc.Loosened {
		parts[i] = fmt.Sprintf("%s %s (%s)", l.Key, QuoteValue(l.Value), l.Why)
	}
	return fmt.Sprintf("%s %s: ignoring %s: an untrusted file may only tighten limits; run 'orchestrate trust' to use it (review it with 'orchestrate trust --show')",
		rc.Rel, rc.StateWords(), strings.Join(parts, ", "))
}

// sizeText shows a size in bytes the way the limits are spoken of: "8 MiB".
func sizeText(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// durText shows a default duration: "1h0m0s" as "1h", 0 as "no limit".
func durText(n int64) string {
	if n <= 0 {
		return "unlimited"
	}
	s := time.Duration(n).String()
	if strings.HasSuffix(s, "h0m0s") {
		return strings.TrimSuffix(s, "0m0s")
	}
	if strings.HasSuffix(s, "m0s") {
		return strings.TrimSuffix(s, "0s")
	}
	return s
}
