package config

import (
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// keyKind is the kind of value a configuration key expects, for the
// messages that say what a wrong value should have been.
type keyKind int

const (
	kindText keyKind = iota
	kindDuration
	kindList
	kindIntList
	kindInt
	kindBool
	kindMap
	kindMode
)

// expected says what a value of kind k looks like, after "is not".
func (k keyKind) expected() string {
	switch k {
	case kindDuration:
		return "a duration (e.g. 72h, 30m)"
	case kindList:
		return "a list (e.g. [a, b])"
	case kindIntList:
		return "a list of whole numbers (e.g. [1, 130])"
	case kindInt:
		return "a whole number (e.g. 20000)"
	case kindBool:
		return "true or false"
	case kindMap:
		return "a map of names to lists (e.g. {done: [shipped, released]})"
	case kindMode:
		return "a mode (" + ModeNames + ")"
	}
	return "text"
}

// ModeNames are the modes, for messages (the names modes.ParseMode takes).
const ModeNames = "autopilot, interactive, preflight"

// mapKeys are the keys that are maps by design: any sub-key is valid, each
// holding a list (statuses.done: [shipped]).
var mapKeys = []string{"statuses"}

// keySpec is what a registered key holds: its kind (for messages) and its
// Go type (to decode a value as the configuration is decoded).
type keySpec struct {
	kind keyKind
	typ  reflect.Type
}

// keyKinds is every registered configuration key (flat, dotted) and its
// spec, read from Config's mapstructure tags: a key added there is
// checked and suggested with no further change here.
var keyKinds = configKinds()

func configKinds() map[string]keySpec {
	out := map[string]keySpec{}
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("mapstructure"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			key := tag
			if prefix != "" {
				key = prefix + "." + tag
			}
			ft := f.Type
			kind := kindText
			switch {
			case ft == reflect.TypeOf(time.Duration(0)):
				kind = kindDuration
			case ft.Kind() == reflect.Struct:
				walk(key, ft)
				continue
			case ft.Kind() == reflect.Map:
				kind = kindMap
			case ft.Kind() == reflect.Slice && isIntKind(ft.Elem().Kind()):
				kind = kindIntList
			case ft.Kind() == reflect.Slice:
				kind = kindList
			case isIntKind(ft.Kind()):
				kind = kindInt
			case ft.Kind() == reflect.Bool:
				kind = kindBool
			}
			out[key] = keySpec{kind, ft}
		}
	}
	walk("", reflect.TypeOf(Config{}))
	out["resume.mode"] = keySpec{kindMode, reflect.TypeOf("")}
	return out
}

func isIntKind(k reflect.Kind) bool {
	switch k {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// registeredKeys are the keys of keyKinds, sorted.
func registeredKeys() []string {
	keys := make([]string, 0, len(keyKinds))
	for k := range keyKinds {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// underMap returns the map-by-design key that k is a sub-key of.
func underMap(k string) (string, bool) {
	for _, m := range mapKeys {
		if strings.HasPrefix(k, m+".") {
			return m, true
		}
	}
	return "", false
}

// isSection reports whether k is a parent of registered keys (handoff,
// age, resume, sources).
func isSection(k string) bool {
	for r := range keyKinds {
		if strings.HasPrefix(r, k+".") {
			return true
		}
	}
	return false
}

// leafOf returns the registered key that k is a proper sub-key of
// (age.stale for age.stale.x), when there is one.
func leafOf(k string) (string, bool) {
	for r, spec := range keyKinds {
		if spec.kind != kindMap && strings.HasPrefix(k, r+".") {
			return r, true
		}
	}
	return "", false
}

// showValue shows a configuration value in a message: a string Go-quoted
// (so control characters are escaped), a list or a map by what it is.
func showValue(val any) string {
	switch t := val.(type) {
	case string:
		return strconv.Quote(t)
	case map[string]any, map[any]any:
		return "a map"
	case []any:
		parts := make([]string, 0, len(t))
		for i, e := range t {
			if i == 4 {
				parts = append(parts, "…")
				break
			}
			parts = append(parts, showValue(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return strconv.Quote(fmt.Sprint(val))
}

// configSource is one layer of settings as messages name it: a file as the
// user knows it (".orchestrate.yaml", "~/.config/orchestrate/config.yaml")
// or, for the environment, the variable of each key.
type configSource struct {
	Name string            // the file, "" for the environment
	Vars map[string]string // the environment: key -> variable
	// Lines are the line of each key of the file (keyLines), for the
	// messages of wrongly typed values.
	Lines map[string]int
}

// where names key k of this source in a message: ".orchestrate.yaml line
// 3: age.stale" (".orchestrate.yaml: age.stale" when the line is not
// known) or "ORCHESTRATE_AGE_STALE".
func (src configSource) where(k string) string {
	if src.Name == "" {
		if v, ok := src.Vars[k]; ok {
			return v
		}
		return "environment " + k
	}
	return atLine(src.Name, src.Lines[k]) + ": " + k
}

// origin names where key k came from for a mode message: "resume.mode in
// .orchestrate.yaml" or "ORCHESTRATE_MODE".
func (src configSource) origin(k string) string {
	if src.Name == "" {
		return src.where(k)
	}
	return k + " in " + src.Name
}

// checkLayer checks the flat settings of one source: it returns a warning
// for each unknown key (with the nearest valid key) and an error naming the
// source, the key, the value and what was expected for each wrongly typed
// value. A configuration error is a *UsageError.
func checkLayer(src configSource, flat map[string]any) (warnings []string, err error) {
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var problems []string
	reported := map[string]bool{}
	for _, k := range keys {
		val := flat[k]
		if val == nil {
			continue // an empty entry: the default applies
		}
		if _, ok := keyKinds[k]; ok {
			if msg := checkValue(k, val); msg != "" {
				problems = append(problems, fmt.Sprintf("%s: %s is not %s", src.where(k), showValue(val), msg))
			}
			continue
		}
		if m, ok := underMap(k); ok {
			// statuses.done: [..]; deeper (statuses.done.x) is not a list
			sub := k[len(m)+1:]
			if i := strings.IndexByte(sub, '.'); i >= 0 {
				leaf := m + "." + sub[:i]
				if !reported[leaf] {
					reported[leaf] = true
					problems = append(problems, fmt.Sprintf("%s: a map is not %s", src.where(leaf), kindList.expected()))
				}
				continue
			}
			if msg := checkValue(k, val); msg != "" {
				problems = append(problems, fmt.Sprintf("%s: %s is not %s", src.where(k), showValue(val), msg))
			}
			continue
		}
		if leaf, ok := leafOf(k); ok {
			if !reported[leaf] {
				reported[leaf] = true
				problems = append(problems, fmt.Sprintf("%s: a map is not %s", src.where(leaf), keyKinds[leaf].kind.expected()))
			}
			continue
		}
		if isSection(k) {
			if m, ok := val.(map[string]any); ok && len(m) == 0 {
				continue // "handoff: {}": nothing set
			}
			problems = append(problems, fmt.Sprintf("%s: %s is not a value but a section (%s)", src.where(k), showValue(val), strings.Join(sectionKeys(k), ", ")))
			continue
		}
		w := src.Name + ": unknown key " + k
		if s := nearestKey(k); s != "" {
			w += " (did you mean " + s + "?)"
		}
		warnings = append(warnings, w+": ignored")
	}
	if len(problems) > 0 {
		return warnings, &UsageError{Err: errors.New(strings.Join(problems, "; "))}
	}
	return warnings, nil
}

// sectionKeys are the registered keys under section s.
func sectionKeys(s string) []string {
	var out []string
	for _, k := range registeredKeys() {
		if strings.HasPrefix(k, s+".") {
			out = append(out, k)
		}
	}
	return out
}

// checkValue decodes val as key k the way the configuration is decoded
// (viper: weakly typed, durations and comma-separated lists from text) and
// returns what was expected when it does not decode, else "". A mode is
// checked where it is used (the command layer, with Loaded.Source), so that a bad mode a flag
// overrides is no error.
func checkValue(k string, val any) string {
	spec, ok := keyKinds[k]
	if m, sub := underMap(k); sub {
		// statuses.done: a list of spellings
		spec, ok = keySpec{kindList, keyKinds[m].typ.Elem()}, true
	}
	if !ok {
		return ""
	}
	if spec.kind == kindMode {
		spec.kind = kindText // a name: ParseMode judges it where it is used
	}
	pv := viper.New()
	if err := pv.MergeConfigMap(nest(map[string]any{k: val})); err != nil {
		return spec.kind.expected()
	}
	if err := pv.UnmarshalKey(k, reflect.New(spec.typ).Interface()); err != nil {
		if keyKinds[k].kind == kindMode {
			return kindMode.expected()
		}
		return spec.kind.expected()
	}
	return ""
}

// nearestKey is the registered key nearest to unknown key k, or "" when
// none is near: the smallest edit distance within a third of the key's
// length (at least 2), else a key with the same last part
// (command -> handoff.command).
func nearestKey(k string) string {
	best, bestD := "", -1
	cands := append(registeredKeys(), mapKeys...)
	for _, r := range cands {
		if d := levenshtein(k, r); bestD < 0 || d < bestD {
			best, bestD = r, d
		}
	}
	limit := len(k) / 3
	if limit < 2 {
		limit = 2
	}
	if bestD >= 0 && bestD <= limit {
		return best
	}
	leaf := k[strings.LastIndexByte(k, '.')+1:]
	var same []string
	for _, r := range cands {
		rl := r[strings.LastIndexByte(r, '.')+1:]
		if levenshtein(leaf, rl) <= 1 && len(leaf) > 2 {
			same = append(same, r)
		}
	}
	if len(same) == 1 {
		return same[0]
	}
	return ""
}

// levenshtein is the edit distance between a and b (bytes; keys are ASCII).
func levenshtein(a, b string) int {
	if len(a) > 256 || len(b) > 256 {
		return 1 << 20 // a key that long is near nothing
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
