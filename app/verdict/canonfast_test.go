package verdict

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/orchestrate-dev/orchestrate/workflow"
)

// filler fills any value with random data by reflection: every field of
// every struct (so a field added to a candidate's types is filled, and a
// digest that leaves it out differs), slices and maps nil, empty or
// not, pointers nil or not, and an interface (a saved context's value)
// with one of JSON's, YAML's or other kinds, nested.
type filler struct {
	r *rand.Rand
}

var zones = []*time.Location{time.UTC, time.FixedZone("", 3600), time.FixedZone("CET", -7200), time.Local}

func (f *filler) str() string {
	n := f.r.IntN(12)
	var b strings.Builder
	for range n {
		const chars = "ab/.\x00é\xff"
		b.WriteByte(chars[f.r.IntN(len(chars))])
	}
	return b.String()
}

func (f *filler) fill(v reflect.Value, depth int) {
	if v.Type() == reflect.TypeFor[time.Time]() {
		if f.r.IntN(4) == 0 {
			return // the zero time
		}
		t := time.Unix(f.r.Int64N(1<<40)-1<<39, f.r.Int64N(1e9)).In(zones[f.r.IntN(len(zones))])
		v.Set(reflect.ValueOf(t))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(f.str())
	case reflect.Bool:
		v.SetBool(f.r.IntN(2) == 0)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(f.r.Int64N(1<<20) - 1<<19)
	case reflect.Uint8:
		v.SetUint(uint64(f.r.IntN(256)))
	case reflect.Uint, reflect.Uint32, reflect.Uint64:
		v.SetUint(f.r.Uint64N(1 << 31))
	case reflect.Array:
		for i := range v.Len() {
			f.fill(v.Index(i), depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f.fill(v.Field(i), depth+1)
		}
	case reflect.Pointer:
		if f.r.IntN(3) == 0 {
			return
		}
		p := reflect.New(v.Type().Elem())
		f.fill(p.Elem(), depth+1)
		v.Set(p)
	case reflect.Slice:
		switch f.r.IntN(4) {
		case 0:
			return
		case 1:
			v.Set(reflect.MakeSlice(v.Type(), 0, 0))
			return
		}
		n := 1 + f.r.IntN(4)
		s := reflect.MakeSlice(v.Type(), n, n)
		for i := range n {
			f.fill(s.Index(i), depth+1)
		}
		v.Set(s)
	case reflect.Map:
		switch f.r.IntN(4) {
		case 0:
			return
		case 1:
			v.Set(reflect.MakeMap(v.Type()))
			return
		}
		m := reflect.MakeMap(v.Type())
		for range 1 + f.r.IntN(4) {
			k := reflect.New(v.Type().Key()).Elem()
			f.fill(k, depth+1)
			x := reflect.New(v.Type().Elem()).Elem()
			f.fill(x, depth+1)
			m.SetMapIndex(k, x)
		}
		v.Set(m)
	case reflect.Interface:
		if x := f.anyValue(depth); x != nil {
			v.Set(reflect.ValueOf(x))
		}
	default:
		panic("filler: no rule for " + v.Type().String())
	}
}

type namedMap map[string]any

// anyValue is a value a saved context may hold (and a few it may not).
func (f *filler) anyValue(depth int) any {
	k := f.r.IntN(14)
	if depth > 6 && k >= 8 {
		k = f.r.IntN(8)
	}
	switch k {
	case 0:
		return nil
	case 1:
		return f.str()
	case 2:
		return []float64{0, math.Copysign(0, -1), 1.5, math.Inf(1), math.NaN()}[f.r.IntN(5)]
	case 3:
		return f.r.IntN(2) == 0
	case 4:
		return f.r.IntN(1000) - 500
	case 5:
		return int64(f.r.IntN(1000))
	case 6:
		return time.Unix(f.r.Int64N(1<<30), 0).In(zones[f.r.IntN(len(zones))])
	case 7:
		return uint8(f.r.IntN(256))
	case 8, 9:
		var m map[string]any
		f.fill(reflect.ValueOf(&m).Elem(), depth+1)
		return m
	case 10, 11:
		var l []any
		f.fill(reflect.ValueOf(&l).Elem(), depth+1)
		return l
	case 12:
		var m namedMap
		f.fill(reflect.ValueOf(&m).Elem(), depth+1)
		return m
	default:
		var r []workflow.RefFile
		f.fill(reflect.ValueOf(&r).Elem(), depth+1)
		return r
	}
}

// TestCandidateDigestIsDigest: candidateDigest hashes what digest hashes
// for random candidates with every field filled (a field added to a
// candidate's types and not to candidateDigest fails it).
func TestCandidateDigestIsDigest(t *testing.T) {
	f := filler{r: rand.New(rand.NewPCG(1, 2))}
	digested := 0
	for i := range 3000 {
		var c workflow.Candidate
		f.fill(reflect.ValueOf(&c).Elem(), 0)
		want, wok := digest(&c)
		got, gok := candidateDigest(&c)
		if gok != wok || (wok && got != want) {
			t.Fatalf("candidate %d: candidateDigest %x %v, digest %x %v\n%#v", i, got, gok, want, wok, c)
		}
		if wok {
			digested++
		}
	}
	if digested < 2900 {
		t.Fatalf("only %d of 3000 random candidates have a digest", digested)
	}
	// a nil candidate, and the zero one
	for _, c := range []*workflow.Candidate{nil, {}} {
		want, wok := digest(c)
		if got, gok := candidateDigest(c); got != want || gok != wok {
			t.Fatalf("%v: candidateDigest differs", c)
		}
	}
}

// TestStoriesAndOthersDigestIsDigest: storiesDigest and othersDigest
// hash what digest hashes for a run's random stories and other
// candidates, every field filled.
func TestStoriesAndOthersDigestIsDigest(t *testing.T) {
	f := filler{r: rand.New(rand.NewPCG(5, 6))}
	for i := range 500 {
		var stories map[string]*workflow.Story
		var others []otherFacts
		f.fill(reflect.ValueOf(&stories).Elem(), 0)
		f.fill(reflect.ValueOf(&others).Elem(), 0)
		if i%50 == 0 { // a large one: hashed in several writes
			stories = map[string]*workflow.Story{}
			for k := range 3000 {
				var st workflow.Story
				f.fill(reflect.ValueOf(&st).Elem(), 0)
				stories[strings.Repeat("s", k%50)+string(rune(k))] = &st
			}
		}
		want, wok := digest(stories)
		got, gok := storiesDigest(stories)
		if !wok || !gok || got != want {
			t.Fatalf("stories %d: storiesDigest %x %v, digest %x %v", i, got, gok, want, wok)
		}
		want, wok = digest(others)
		got, gok = othersDigest(others)
		if !wok || !gok || got != want {
			t.Fatalf("others %d: othersDigest %x %v, digest %x %v", i, got, gok, want, wok)
		}
	}
}

// TestCandidateDigestDepth: a saved context nested at the depth digest
// refuses is refused by both, one level less is digested by both, alike;
// a context large enough to be hashed in several writes too.
func TestCandidateDigestDepth(t *testing.T) {
	nest := func(n int, list bool) any {
		var x any = "leaf"
		for range n {
			if list {
				x = []any{x}
			} else {
				x = map[string]any{"k": x}
			}
		}
		return x
	}
	for _, list := range []bool{false, true} {
		refused := 0
		for n := 20; n < 70; n++ {
			c := workflow.Candidate{ID: "w", Context: map[string]any{"a": nest(n, list)}}
			want, wok := digest(&c)
			got, gok := candidateDigest(&c)
			if gok != wok || (wok && got != want) {
				t.Fatalf("depth %d (list %v): candidateDigest %v, digest %v", n, list, gok, wok)
			}
			if !wok {
				refused++
			}
		}
		if refused == 0 || refused == 50 {
			t.Fatalf("list %v: %d of 50 depths refused: the bound was not reached, or always", list, refused)
		}
	}
	big := map[string]any{}
	for i := range 5000 {
		big[strings.Repeat("k", i%40)+string(rune('a'+i%26))+string(rune(i))] = strings.Repeat("v", i%100)
	}
	c := workflow.Candidate{ID: "w", Context: big}
	want, _ := digest(&c)
	if got, ok := candidateDigest(&c); !ok || got != want {
		t.Fatal("a large context digests differently")
	}
}

func BenchmarkCandidateDigest(b *testing.B) {
	f := filler{r: rand.New(rand.NewPCG(3, 4))}
	var c workflow.Candidate
	f.fill(reflect.ValueOf(&c).Elem(), 0)
	for i := range 50 {
		c.Files = append(c.Files, workflow.RefFile{Path: "src/pkg" + string(rune('a'+i%26)) + "/sub/file.go", Phase: "implement", From: "files"})
	}
	b.Run("reflect", func(b *testing.B) {
		for range b.N {
			digest(&c)
		}
	})
	b.Run("fast", func(b *testing.B) {
		for range b.N {
			candidateDigest(&c)
		}
	})
}
