package verdict

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// The candidate's digest without reflection (1,000 candidates a warm run,
// each a key): candidateDigest hashes exactly the bytes digest(c) hashes
// for a *workflow.Candidate, field by field, and hands what it has no
// field code for (a saved context's value that is not one of JSON's or
// YAML's plain kinds) to the reflective encoder at the depth digest would
// reach it. TestCandidateDigestIsDigest fills every field of random
// candidates (a field added to any of these types is filled too) and
// compares both.

var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 8<<10); return &b }}

// candidateDigest is digest(c).
func candidateDigest(c *workflow.Candidate) (sum [32]byte, ok bool) {
	bp := bufPool.Get().(*[]byte)
	e := encoder{b: (*bp)[:0], hashed: true}
	e.candidate(c)
	sum = e.sum()
	if cap(e.b) <= 1<<20 {
		*bp = e.b[:0]
		bufPool.Put(bp)
	}
	return sum, e.ok()
}

func (e *encoder) byte1(b bool) {
	if b {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}

func (e *encoder) int(i int) { e.b = binary.AppendVarint(e.b, int64(i)) }

// present is a slice's, map's or pointer's nil mark: false when nil.
func (e *encoder) present(notNil bool) bool {
	e.byte1(notNil)
	return notNil
}

func (e *encoder) strList(ss []string) {
	if !e.present(ss != nil) {
		return
	}
	e.uint(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

// timeOf is time for a time.Time value.
func (e *encoder) timeOf(t time.Time) {
	e.b = binary.AppendVarint(e.b, t.Unix())
	e.uint(uint64(t.Nanosecond()))
	name, off := t.Zone()
	e.str(name)
	e.b = binary.AppendVarint(e.b, int64(off))
}

// candidate is value for a *workflow.Candidate at depth 0: the pointer's
// mark, then its fields at depth 2.
func (e *encoder) candidate(c *workflow.Candidate) {
	if !e.present(c != nil) {
		return
	}
	e.str(c.ID)
	e.str(string(c.Type))
	e.str(c.Key)
	e.sourceRef(&c.Source)
	if e.present(c.Evidence != nil) {
		e.uint(uint64(len(c.Evidence)))
		for i := range c.Evidence {
			e.sourceRef(&c.Evidence[i])
		}
	}
	e.str(c.BackupPath)
	e.str(c.Workflow)
	e.strList(c.Stories)
	e.storyRefs(c.StoryRefs)
	e.str(c.Status)
	e.str(c.StatusRaw)
	e.byte1(c.Resumable)
	e.timeOf(c.UpdatedAt)
	e.str(c.UpdatedFrom)
	e.timeOf(c.StartedAt)
	p := &c.Position
	e.str(p.Kind)
	e.int(p.Done)
	e.int(p.Total)
	e.str(p.At)
	e.str(p.Last)
	e.int(p.Index)
	e.str(p.Name)
	e.int(p.Phase)
	e.int(p.Phases)
	if e.present(c.Phases != nil) {
		e.uint(uint64(len(c.Phases)))
		for i := range c.Phases {
			ph := &c.Phases[i]
			e.str(ph.ID)
			e.str(ph.Name)
			e.str(ph.Agent)
			e.str(ph.Status)
			e.strList(ph.Outputs)
			e.strList(ph.DependsOn)
		}
	}
	if e.present(c.Files != nil) {
		e.refFiles(c.Files)
	}
	e.str(c.Commit)
	e.str(c.Mode)
	e.str(c.AISessionID)
	e.str(c.Agent)
	e.anyMap(c.Context, 2)
	if q := c.QA; e.present(q != nil) {
		e.int(q.Iteration)
		e.int(q.MaxIterations)
		e.str(q.LastVerdict)
		if e.present(q.History != nil) {
			e.uint(uint64(len(q.History)))
			for _, it := range q.History {
				e.int(it.Number)
				e.str(it.Verdict)
				e.byte1(it.Fixed)
			}
		}
		e.byte1(q.FixesApplied)
	}
	if ep := c.Epic; e.present(ep != nil) {
		e.str(ep.EpicID)
		e.str(ep.PlanPath)
		e.int(ep.CurrentWave)
		if e.present(ep.Waves != nil) {
			e.uint(uint64(len(ep.Waves)))
			for i := range ep.Waves {
				w := &ep.Waves[i]
				e.int(w.Number)
				e.str(w.Status)
				e.storyRefs(w.Stories)
			}
		}
	}
	if sp := c.Spec; e.present(sp != nil) {
		e.str(sp.Name)
		e.str(sp.Dir)
		e.str(sp.Complexity)
		if e.present(sp.Artifacts != nil) {
			keys := make([]string, 0, len(sp.Artifacts))
			for k := range sp.Artifacts {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			e.uint(uint64(len(keys)))
			for _, k := range keys {
				e.str(k)
				e.str(sp.Artifacts[k])
			}
		}
		e.str(sp.Verdict)
	}
	e.findings(c.Findings)
	e.str(c.Framework)
	if r := c.Resume; e.present(r != nil) {
		e.str(r.Item)
		e.str(r.Title)
		e.str(r.Section)
		e.strList(r.Labels)
		e.strList(r.Files)
		e.int(r.Done)
		e.int(r.Total)
		e.strList(r.Holes)
		e.str(r.Note)
		e.str(r.FrameworkCommand)
		e.str(r.FrameworkNext)
		e.byte1(r.Differs)
		e.str(r.DiffersWhy)
	}
}

func (e *encoder) sourceRef(s *workflow.SourceRef) {
	e.str(s.Kind)
	e.str(s.Path)
	e.int(s.Priority)
}

func (e *encoder) storyRefs(rs []workflow.StoryRef) {
	if !e.present(rs != nil) {
		return
	}
	e.uint(uint64(len(rs)))
	for i := range rs {
		r := &rs[i]
		e.str(r.ID)
		e.str(r.Status)
		e.str(r.Path)
		e.str(r.Executor)
	}
}

// anyMap is value for a map[string]any at depth.
func (e *encoder) anyMap(m map[string]any, depth int) {
	e.flush()
	if depth > maxDepth {
		e.bad = true
		return
	}
	if !e.present(m != nil) {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.uint(uint64(len(keys)))
	for _, k := range keys {
		e.str(k)
		e.iface(m[k], depth+1)
		if e.bad {
			return
		}
	}
}

// iface is value for an interface holding x at depth (a map's or a
// list's element: its dynamic type's name, then the value one deeper).
func (e *encoder) iface(x any, depth int) {
	e.flush()
	if depth > maxDepth {
		e.bad = true
		return
	}
	if !e.present(x != nil) {
		return
	}
	e.str(reflect.TypeOf(x).String())
	depth++
	if depth > maxDepth {
		e.bad = true
		return
	}
	switch v := x.(type) {
	case string:
		e.str(v)
	case float64:
		e.uint(math.Float64bits(v))
	case bool:
		e.byte1(v)
	case int:
		e.int(v)
	case map[string]any:
		e.anyMap(v, depth)
	case []any:
		if !e.present(v != nil) {
			return
		}
		e.uint(uint64(len(v)))
		for _, x := range v {
			e.iface(x, depth+1)
			if e.bad {
				return
			}
		}
	default:
		e.value(reflect.ValueOf(x), depth)
	}
}

// sum is the SHA-256 of what e encoded (b, after what it flushed).
func (e *encoder) sum() (sum [32]byte) {
	if e.h == nil {
		return sha256.Sum256(e.b)
	}
	e.h.Write(e.b)
	copy(sum[:], e.h.Sum(nil))
	return sum
}

// storiesDigest is digest(stories) (a run's key: 1,000 stories).
func storiesDigest(stories map[string]*workflow.Story) ([32]byte, bool) {
	e := encoder{b: make([]byte, 0, 64<<10), hashed: true}
	if e.present(stories != nil) {
		keys := make([]string, 0, len(stories))
		for k := range stories {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		e.uint(uint64(len(keys)))
		for _, k := range keys {
			e.flush()
			e.str(k)
			e.story(stories[k])
		}
	}
	return e.sum(), e.ok()
}

func (e *encoder) story(s *workflow.Story) {
	if !e.present(s != nil) {
		return
	}
	e.str(s.ID)
	e.str(s.Title)
	e.str(s.Path)
	e.str(string(s.Status))
	e.str(s.StatusRaw)
	e.int(s.StatusLine)
	if e.present(s.Sections != nil) {
		e.uint(uint64(len(s.Sections)))
		for i := range s.Sections {
			sec := &s.Sections[i]
			e.str(sec.Name)
			e.str(sec.Raw)
			e.uint(uint64(len(sec.Hash)))
			for _, b := range sec.Hash {
				e.uint(uint64(b))
			}
			e.int(sec.Line)
		}
	}
	e.strList(s.FileList)
	e.str(s.Executor)
	e.str(s.QualityGate)
	e.str(s.Epic)
	e.timeOf(s.ModTime)
	e.findings(s.Findings)
	e.byte1(s.SectionsTrimmed)
}

func (e *encoder) findings(fs []workflow.Finding) {
	if !e.present(fs != nil) {
		return
	}
	e.uint(uint64(len(fs)))
	for i := range fs {
		f := &fs[i]
		e.str(f.Check)
		e.str(string(f.Severity))
		e.str(f.Code)
		e.str(f.Message)
		e.str(f.Path)
		e.str(f.Phase)
		e.int(f.Line)
	}
}

// othersDigest is digest(others).
func othersDigest(others []otherFacts) ([32]byte, bool) {
	e := encoder{b: make([]byte, 0, 64<<10), hashed: true}
	if e.present(others != nil) {
		e.uint(uint64(len(others)))
		for i := range others {
			e.flush()
			o := &others[i]
			e.str(o.ID)
			e.str(o.Status)
			e.byte1(o.Resumable)
			e.sourceRef(&o.Source)
			e.strList(o.Stories)
			e.storyRefs(o.StoryRefs)
			e.timeOf(o.UpdatedAt)
		}
	}
	return e.sum(), e.ok()
}
