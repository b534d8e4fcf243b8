package kiro

import (
	"encoding/binary"
	"time"

	"github.com/orchestrate-dev/orchestrate/discover/source"
	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// A spec folder's other documents (.config.kiro, tasks.meta.json,
// spec.json) are kept in the tasks cache's table too (tasksCache, keyed
// the same way by their own path and stat data): a value is the kind of
// document, then what its parser gives (parseConfig, parseMeta,
// parseSpecJSON: all a candidate reads of them; they depend on the content
// alone). A value of another kind, or that does not decode, is a miss.

// The kinds of document value (the first byte of a value; a tasks.md
// value starts with its count of questions, at most source.MaxAsked).
const (
	docConfig   = 0xc1
	docMeta     = 0xc2
	docSpecJSON = 0xc3
)

// maxDocString bounds a string of a document value (the parsers clip
// theirs to 120 characters).
const maxDocString = 1024

// docCodec is how one kind of document is parsed and kept.
type docCodec[T any] struct {
	kind   byte
	parse  func([]byte) T
	encode func([]byte, *T) []byte
	decode func(*docReader) T
}

var (
	configCodec = docCodec[kiroConfig]{kind: docConfig, parse: parseConfig,
		encode: func(b []byte, c *kiroConfig) []byte {
			return appendStrings(b, c.GenerationMode, c.SpecID, c.WorkflowType, c.SpecType)
		},
		decode: func(d *docReader) kiroConfig {
			return kiroConfig{Present: true, GenerationMode: d.str(), SpecID: d.str(), WorkflowType: d.str(), SpecType: d.str()}
		}}
	metaCodec = docCodec[meta]{kind: docMeta, parse: parseMeta,
		encode: func(b []byte, m *meta) []byte {
			b = appendStrings(b, m.LastTask, m.LastID, m.PBT)
			at := uint64(0)
			if !m.LastAt.IsZero() {
				at = uint64(m.LastAt.UnixMilli()) // millis keeps it within 2000-2200
			}
			return binary.AppendUvarint(append(b, flag(m.Bad)), at)
		},
		decode: func(d *docReader) meta {
			m := meta{LastTask: d.str(), LastID: d.str(), PBT: d.str(), Bad: d.flag()}
			if at := d.u(7258118400000); at != 0 {
				if at < 946684800000 {
					d.bad = true
				}
				m.LastAt = time.UnixMilli(int64(at)).UTC()
			}
			return m
		}}
	specJSONCodec = docCodec[specJSON]{kind: docSpecJSON, parse: parseSpecJSON,
		encode: func(b []byte, s *specJSON) []byte {
			return append(appendStrings(b, s.Phase), flag(s.TasksApproved), flag(s.Known))
		},
		decode: func(d *docReader) specJSON {
			return specJSON{Present: true, Phase: d.str(), TasksApproved: d.flag(), Known: d.flag()}
		}}
)

// readDoc gives the parse of the document p, in the spec folder d: from the cache when its stat
// data is unchanged, else read (through its safely opened folder, else
// with r.Read, which reports any problem) and parsed, and recorded. err is
// the read's (or the budget's) error. c may be nil.
func readDoc[T any](c *tasksCache, r *source.Repo, p string, d *safefile.Dir, k docCodec[T]) (T, error) {
	var zero T
	if c.off() || d == nil {
		return readDocUsual(r, p, d, k)
	}
	name := source.BaseName(p)
	if v, _, ok := c.Lookup(d, name, p, nil); ok && len(v) > 0 && v[0] == k.kind {
		dr := &docReader{b: v[1:]}
		if doc := k.decode(dr); !dr.bad && len(dr.b) == 0 {
			c.AddHits(1)
			// not read, but held: one entry drawn from the scan's budget
			if err := c.SpendN(p, 1); err != nil {
				return zero, err
			}
			return doc, nil
		}
	}
	bp := source.GetReadBuf()
	defer source.PutReadBuf(bp) // the parsers copy what they keep
	data, fs, done, err := source.ReadRegularIn(r, d, p, bp)
	switch {
	case !done:
		return readDocUsual(r, p, nil, k)
	case err != nil:
		return zero, err
	}
	doc := k.parse(data)
	if c.Storable(fs) {
		c.Add(p, fs, k.encode([]byte{k.kind}, &doc), nil)
	}
	return doc, nil
}

// readDocUsual reads p (through its folder d when source.ReadRegularIn
// can, else with r.Read, which reports any problem) and parses it (no
// cache).
func readDocUsual[T any](r *source.Repo, p string, d *safefile.Dir, k docCodec[T]) (T, error) {
	if d != nil {
		bp := source.GetReadBuf()
		defer source.PutReadBuf(bp)
		if data, _, done, err := source.ReadRegularIn(r, d, p, bp); done {
			if err != nil {
				var zero T
				return zero, err
			}
			return k.parse(data), nil
		}
	}
	data, err := r.Read(p)
	if err != nil {
		var zero T
		return zero, err
	}
	return k.parse(data), nil
}

// appendStrings appends each string as its length and bytes.
func appendStrings(b []byte, ss ...string) []byte {
	for _, s := range ss {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// flag is a bool's byte.
func flag(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// docReader reads a document value; bad is set by anything that does not
// decode or breaks a bound.
type docReader struct {
	b   []byte
	bad bool
}

// u reads a uvarint of at most limit.
func (d *docReader) u(limit uint64) uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > limit {
		d.bad = true
		return 0
	}
	d.b = d.b[n:]
	return v
}

// str reads a string.
func (d *docReader) str() string {
	n := d.u(maxDocString)
	if d.bad || n > uint64(len(d.b)) {
		d.bad = true
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// flag reads a bool's byte.
func (d *docReader) flag() bool {
	if len(d.b) == 0 || d.b[0] > 1 {
		d.bad = true
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}
