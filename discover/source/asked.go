package source

import (
	"encoding/binary"

	"github.com/orchestrate-dev/orchestrate/internal/safefile"
)

// MaxAsked bounds the file-system questions a parse kept in a stat-keyed
// cache may depend on: a parse that asked more is not stored.
const MaxAsked = 64

// maxAskedPath bounds a question's path in a value (refpath.Prose reads
// tokens of at most 1024 bytes).
const maxAskedPath = 1024

// Asked records the questions a parse asks of the file system (whether a
// path exists: refpath.Prose's look-ups) and their answers, so that a
// stat-keyed cache can keep a parse that depends on them as well as on its
// file's content. A parse is a function of the content and of the answers
// to the questions it asks, in order: when every recorded question still
// has its recorded answer, the parse asks the same questions again and
// gets the same answers, so it gives the same result (AskedAgain checks
// that before a cached parse is used). It is not safe for concurrent use:
// one parse's.
type Asked struct {
	exists func(string) bool
	qs     []string
	ans    []bool
	over   bool // more than MaxAsked distinct questions: not storable
}

// NewAsked returns a recorder of the questions asked of exists; nil for a
// nil exists (nothing can be asked).
func NewAsked(exists func(string) bool) *Asked {
	if exists == nil {
		return nil
	}
	return &Asked{exists: exists}
}

// Func returns the exists to give the parse: it answers as exists does,
// recording each question and its answer; nil for a nil a (a parse given
// nil asks nothing).
func (a *Asked) Func() func(string) bool {
	if a == nil {
		return nil
	}
	return a.ask
}

// ask is exists, recorded.
func (a *Asked) ask(p string) bool {
	v := a.exists(p)
	for _, q := range a.qs {
		if q == p {
			return v
		}
	}
	if len(a.qs) >= MaxAsked || len(p) > maxAskedPath {
		a.over = true
		return v
	}
	a.qs, a.ans = append(a.qs, p), append(a.ans, v)
	return v
}

// Storable reports whether the parse may be stored with its questions: it
// asked at most MaxAsked distinct ones. A nil a is storable (nothing asked).
func (a *Asked) Storable() bool { return a == nil || !a.over }

// Append appends the recorded questions and answers to b (read back by
// AskedAgain): their count, then each as its length times two plus its
// answer, and its bytes.
func (a *Asked) Append(b []byte) []byte {
	if a == nil {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(a.qs)))
	for i, q := range a.qs {
		n := uint64(len(q)) << 1
		if a.ans[i] {
			n |= 1
		}
		b = binary.AppendUvarint(b, n)
		b = append(b, q...)
	}
	return b
}

// AskedAgain reads the questions Asked.Append wrote at the start of v and
// asks each of exists again, in order; ok is true, with the rest of v,
// only when every answer is the one recorded. A value that does not decode
// (more than MaxAsked questions, a path too long, cut short) is not ok;
// questions recorded with a nil exists at hand are not ok either.
func AskedAgain(v []byte, exists func(string) bool) (rest []byte, ok bool) {
	n, k := binary.Uvarint(v)
	if k <= 0 || n > MaxAsked {
		return nil, false
	}
	v = v[k:]
	if n > 0 && exists == nil {
		return nil, false
	}
	for i := uint64(0); i < n; i++ {
		m, k := binary.Uvarint(v)
		if k <= 0 || m>>1 > maxAskedPath || m>>1 > uint64(len(v)-k) {
			return nil, false
		}
		l := int(m >> 1)
		q := string(v[k : k+l])
		v = v[k+l:]
		if exists(q) != (m&1 == 1) {
			return nil, false
		}
	}
	return v, true
}

// FindAsked is t's value for the file p with stat fs, past its recorded
// questions, when every one still has its answer (AskedAgain): what a
// draft kept whole is decoded from. False: read the usual way.
func (t *StatTable) FindAsked(p string, fs safefile.FileStat, exists func(string) bool) ([]byte, bool) {
	v, ok := t.Find(p, fs, nil)
	if !ok {
		return nil, false
	}
	return AskedAgain(v, exists)
}

// AppendDocStats appends to the key b, for each of docs that has names, a
// NUL, its name and its no-follow stat in folder (AppendStat), taken
// before the document is read: what a draft kept whole depends on. tasks
// is tasks.md's stat; storable says whether t may store under every stat
// taken (Storable). False when one is no regular file (a symlink, a FIFO,
// a folder, gone): the caller reads the usual way.
func (t *StatTable) AppendDocStats(b []byte, folder *safefile.Dir, docs []string, has map[string]bool) (out []byte, tasks safefile.FileStat, storable, ok bool) {
	storable = true
	for _, name := range docs {
		if !has[name] {
			continue
		}
		fs, err := folder.StatNoFollow(name)
		if err != nil || !fs.Regular() {
			return b, tasks, false, false
		}
		if name == "tasks.md" {
			tasks = fs
		}
		storable = storable && t.Storable(fs)
		b = append(b, 0)
		b = append(b, name...)
		b = AppendStat(b, fs)
	}
	return b, tasks, storable, true
}
