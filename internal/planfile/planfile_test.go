package planfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var testKey = []byte("a key for tests only")

func sample() File {
	return File{
		CreatedAt:  time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC),
		Version:    "orchestrate dev",
		WorkflowID: "workflow:sdc-4.2",
		Phase:      "implement",
		Mode:       "preflight",
		Decision:   "resume",
		Reason:     "approved: state is clean",
		Approved:   true,
		StateFile:  ".orchestrate/workflows/sdc-4.2.yaml",
		Agent:      "dev",
		Remaining:  []string{"implement", "review"},
		Deps: []Dep{
			{Kind: KindState, Path: ".orchestrate/workflows/sdc-4.2.yaml", Digest: DigestBytes([]byte("state"))},
			{Kind: KindFile, Path: "src/search.ts", Digest: DigestBytes([]byte("src"))},
			{Kind: KindFile, Path: "docs/stories/4.2.md", Digest: Missing},
			{Kind: KindHead, Digest: "0123456789abcdef0123456789abcdef01234567"},
			{Kind: KindLock, Digest: LockFree},
			{Kind: KindPhase, Digest: "implement"},
		},
	}
}

func TestDigestBytes(t *testing.T) {
	got := DigestBytes([]byte("abc"))
	want := "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
	if got != want {
		t.Fatalf("DigestBytes = %s, want %s", got, want)
	}
}

func TestFileDigest(t *testing.T) {
	root := t.TempDir()
	must(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, "src/a.go"), []byte("package a\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(root, "big"), bytes.Repeat([]byte("x"), 100), 0o644))
	must(t, os.Symlink("src/a.go", filepath.Join(root, "link")))
	must(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	tests := []struct {
		name, rel string
		max       int64
		want      string // exact, or a prefix ending in ": "
	}{
		{"content", "src/a.go", 0, DigestBytes([]byte("package a\n"))},
		{"missing", "src/none.go", 0, Missing},
		{"missing folder", "nope/none.go", 0, Missing},
		{"symlink refused", "link", 0, "unreadable: is a symlink"},
		{"fifo refused, no hang", "fifo", 0, "unreadable: is a FIFO"},
		{"folder refused", "src", 0, "unreadable: is a folder"},
		{"too large", "big", 10, "unreadable: larger than 10 bytes"},
		{"at the limit", "big", 100, DigestBytes(bytes.Repeat([]byte("x"), 100))},
		{"escaping path", "../x", 0, "unreadable: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FileDigest(root, tt.rel, tt.max)
			if strings.HasSuffix(tt.want, ": ") {
				if !strings.HasPrefix(got, tt.want) {
					t.Fatalf("FileDigest(%s) = %q, want prefix %q", tt.rel, got, tt.want)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("FileDigest(%s) = %q, want %q", tt.rel, got, tt.want)
			}
		})
	}
}

func TestCompare(t *testing.T) {
	h1 := "abc1234000000000000000000000000000000000"
	h2 := "def5678000000000000000000000000000000000"
	tests := []struct {
		name          string
		saved, cur    []Dep
		want          []string // messages, in order
		wantKind      string
		wantSavedDig  string
		wantCurrentDg string
	}{
		{name: "unchanged",
			saved: []Dep{{Kind: KindFile, Path: "a", Digest: "sha256:1"}, {Kind: KindHead, Digest: h1}},
			cur:   []Dep{{Kind: KindHead, Digest: h1}, {Kind: KindFile, Path: "a", Digest: "sha256:1"}}},
		{name: "file changed",
			saved: []Dep{{Kind: KindFile, Path: "docs/x.go", Digest: "sha256:1"}},
			cur:   []Dep{{Kind: KindFile, Path: "docs/x.go", Digest: "sha256:2"}},
			want:  []string{"docs/x.go changed since the plan"}, wantKind: KindFile, wantSavedDig: "sha256:1", wantCurrentDg: "sha256:2"},
		{name: "file deleted",
			saved: []Dep{{Kind: KindFile, Path: "docs/x.go", Digest: "sha256:1"}},
			cur:   []Dep{{Kind: KindFile, Path: "docs/x.go", Digest: Missing}},
			want:  []string{"docs/x.go was deleted since the plan"}},
		{name: "file created",
			saved: []Dep{{Kind: KindFile, Path: "docs/x.go", Digest: Missing}},
			cur:   []Dep{{Kind: KindFile, Path: "docs/x.go", Digest: "sha256:2"}},
			want:  []string{"docs/x.go was created since the plan"}},
		{name: "file became a symlink",
			saved: []Dep{{Kind: KindFile, Path: "docs/x.go", Digest: "sha256:1"}},
			cur:   []Dep{{Kind: KindFile, Path: "docs/x.go", Digest: "unreadable: is a symlink"}},
			want:  []string{"docs/x.go can no longer be read (is a symlink) since the plan"}},
		{name: "file no longer referenced",
			saved: []Dep{{Kind: KindFile, Path: "old.go", Digest: "sha256:1"}},
			want:  []string{"old.go is no longer referenced by the workflow"}},
		{name: "file newly referenced (a dep removed from the plan by hand)",
			cur:  []Dep{{Kind: KindFile, Path: "new.go", Digest: "sha256:1"}},
			want: []string{"new.go is now referenced by the workflow (it was not when the plan was made)"}},
		{name: "state changed",
			saved: []Dep{{Kind: KindState, Path: "s.yaml", Digest: "sha256:1"}},
			cur:   []Dep{{Kind: KindState, Path: "s.yaml", Digest: "sha256:2"}},
			want:  []string{"the state file s.yaml changed since the plan"}},
		{name: "state deleted",
			saved: []Dep{{Kind: KindState, Path: "s.yaml", Digest: "sha256:1"}},
			cur:   []Dep{{Kind: KindState, Path: "s.yaml", Digest: Missing}},
			want:  []string{"the state file s.yaml was deleted since the plan"}},
		{name: "HEAD moved",
			saved: []Dep{{Kind: KindHead, Digest: h1}},
			cur:   []Dep{{Kind: KindHead, Digest: h2}},
			want:  []string{"HEAD moved from abc1234 to def5678"}},
		{name: "first commit",
			saved: []Dep{{Kind: KindHead, Digest: NoHead}},
			cur:   []Dep{{Kind: KindHead, Digest: h2}},
			want:  []string{"HEAD is now def5678 (there was no commit when the plan was made)"}},
		{name: "lock now held",
			saved: []Dep{{Kind: KindLock, Digest: LockFree}},
			cur:   []Dep{{Kind: KindLock, Digest: "held by pid 42 on ci-7"}},
			want:  []string{"the lock is now held by pid 42 on ci-7"}},
		{name: "lock released",
			saved: []Dep{{Kind: KindLock, Digest: "stale (pid 42 on ci-7)"}},
			cur:   []Dep{{Kind: KindLock, Digest: LockFree}},
			want:  []string{"the lock was stale (pid 42 on ci-7) when the plan was made and is now free"}},
		{name: "phase moved",
			saved: []Dep{{Kind: KindPhase, Digest: "implement"}},
			cur:   []Dep{{Kind: KindPhase, Digest: "review"}},
			want:  []string{"the resume point moved from phase implement to review"}},
		{name: "decision differs",
			saved: []Dep{{Kind: KindDecision, Digest: "resume"}},
			cur:   []Dep{{Kind: KindDecision, Digest: "ask"}},
			want:  []string{"the decision re-derived from the current state is ask, the plan says resume"}},
		{name: "mode differs",
			saved: []Dep{{Kind: KindMode, Digest: "preflight"}},
			cur:   []Dep{{Kind: KindMode, Digest: "autopilot"}},
			want:  []string{"the mode changed from preflight to autopilot"}},
		{name: "workflow differs",
			saved: []Dep{{Kind: KindWorkflow, Digest: "workflow:a"}},
			cur:   []Dep{{Kind: KindWorkflow, Digest: "workflow:b"}},
			want:  []string{"the workflow is now workflow:b, the plan is for workflow:a"}},
		{name: "version differs",
			saved: []Dep{{Kind: KindVersion, Digest: "orchestrate v1.0.0"}},
			cur:   []Dep{{Kind: KindVersion, Digest: "orchestrate v1.1.0"}},
			want:  []string{"the plan was made by orchestrate v1.0.0, this is orchestrate v1.1.0"}},
		{name: "control characters quoted",
			saved: []Dep{{Kind: KindFile, Path: "a\x1b[31m.go", Digest: "sha256:1"}},
			cur:   []Dep{{Kind: KindFile, Path: "a\x1b[31m.go", Digest: "sha256:2"}},
			want:  []string{`"a\x1b[31m.go" changed since the plan`}},
		{name: "duplicate saved deps reported once",
			saved: []Dep{{Kind: KindHead, Digest: h1}, {Kind: KindHead, Digest: h1}},
			cur:   []Dep{{Kind: KindHead, Digest: h2}},
			want:  []string{"HEAD moved from abc1234 to def5678"}},
		{name: "several, in saved order then new",
			saved: []Dep{{Kind: KindState, Path: "s", Digest: "1"}, {Kind: KindHead, Digest: h1}},
			cur:   []Dep{{Kind: KindHead, Digest: h2}, {Kind: KindState, Path: "s", Digest: "2"}, {Kind: KindFile, Path: "n", Digest: "3"}},
			want: []string{"the state file s changed since the plan", "HEAD moved from abc1234 to def5678",
				"n is now referenced by the workflow (it was not when the plan was made)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(tt.saved, tt.cur)
			var msgs []string
			for _, c := range got {
				msgs = append(msgs, c.String())
			}
			if strings.Join(msgs, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("Compare messages:\n%s\nwant:\n%s", strings.Join(msgs, "\n"), strings.Join(tt.want, "\n"))
			}
			if tt.wantKind != "" {
				c := got[0]
				if c.Kind != tt.wantKind || c.Saved != tt.wantSavedDig || c.Current != tt.wantCurrentDg {
					t.Fatalf("change = %+v", c)
				}
			}
		})
	}
}

func TestSignature(t *testing.T) {
	tests := []struct {
		name    string
		sealKey []byte
		edit    func(*File)
		loadKey []byte
		wantErr error
	}{
		{name: "signed, verified", sealKey: testKey, loadKey: testKey},
		{name: "unsigned, no key: self-check passes", loadKey: nil},
		{name: "unsigned, key set: refused", loadKey: testKey, wantErr: ErrUnsigned},
		{name: "signed, no key: cannot verify", sealKey: testKey, loadKey: nil, wantErr: ErrKeyNeeded},
		{name: "signed, other key", sealKey: testKey, loadKey: []byte("another key"), wantErr: ErrBadSignature},
		{name: "phase edited by hand", sealKey: testKey, loadKey: testKey, edit: func(f *File) { f.Phase = "review" }, wantErr: ErrBadSignature},
		{name: "approval granted by hand", sealKey: testKey, loadKey: testKey, edit: func(f *File) { f.Approved = !f.Approved }, wantErr: ErrBadSignature},
		{name: "decision edited by hand", sealKey: testKey, loadKey: testKey, edit: func(f *File) { f.Decision = "ask" }, wantErr: ErrBadSignature},
		{name: "dep digest edited by hand", sealKey: testKey, loadKey: testKey, edit: func(f *File) { f.Deps[1].Digest = Missing }, wantErr: ErrBadSignature},
		{name: "dep removed by hand", sealKey: testKey, loadKey: testKey, edit: func(f *File) { f.Deps = f.Deps[1:] }, wantErr: ErrBadSignature},
		{name: "time edited by hand", sealKey: testKey, loadKey: testKey, edit: func(f *File) { f.CreatedAt = f.CreatedAt.Add(time.Second) }, wantErr: ErrBadSignature},
		{name: "signature removed", sealKey: testKey, loadKey: testKey, edit: func(f *File) { f.Signature = "" }, wantErr: ErrBadSignature},
		{name: "signature not hex", sealKey: testKey, loadKey: testKey, edit: func(f *File) { f.Signature = "zz" }, wantErr: ErrBadSignature},
		{name: "downgraded to sha256 with a key", sealKey: testKey, loadKey: testKey, edit: func(f *File) { f.SignatureAlg = AlgSHA256 }, wantErr: ErrUnsigned},
		{name: "unsigned, edited: self-check fails", loadKey: nil, edit: func(f *File) { f.Phase = "review" }, wantErr: ErrBadSignature},
		{name: "unknown algorithm, no key", loadKey: nil, edit: func(f *File) { f.SignatureAlg = "none" }, wantErr: ErrBadSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Seal(sample(), tt.sealKey)
			f.Deps = append([]Dep(nil), f.Deps...)
			if tt.edit != nil {
				tt.edit(&f)
			}
			data, err := Encode(f)
			must(t, err)
			got, err := Decode(data, tt.loadKey)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("Decode error = %v, want %v", err, tt.wantErr)
			}
			if err == nil && got.Signed() != (len(tt.sealKey) > 0) {
				t.Fatalf("Signed() = %v", got.Signed())
			}
		})
	}
}

// TestCanonical: the canonical encoding has a fixed field order, sorts the
// deps, ignores the JSON layout, and changes with every value.
func TestCanonical(t *testing.T) {
	f := sample()
	want := "orchestrate-plan canonical v1\n" +
		"schema \"\"\n" +
		"created_at \"2026-11-20T12:00:00Z\"\n" +
		"orchestrate_version \"orchestrate dev\"\n" +
		"workflow_id \"workflow:sdc-4.2\"\n" +
		"phase \"implement\"\n" +
		"mode \"preflight\"\n" +
		"decision \"resume\"\n" +
		"reason \"approved: state is clean\"\n" +
		"approved \"true\"\n" +
		"forced \"false\"\n" +
		"restart \"false\"\n" +
		"from_phase \"\"\n" +
		"state_file \".orchestrate/workflows/sdc-4.2.yaml\"\n" +
		"agent \"dev\"\n" +
		"remaining \"2\"\n" +
		"- \"implement\"\n" +
		"- \"review\"\n" +
		"deps \"6\"\n" +
		"dep \"file\" \"docs/stories/4.2.md\" \"missing\"\n" +
		"dep \"file\" \"src/search.ts\" \"sha256:25a6634263c1b1f6fc4697a04e2b9904ea4b042a89af59dc93ec1f5d44848a26\"\n" +
		"dep \"head\" \"\" \"0123456789abcdef0123456789abcdef01234567\"\n" +
		"dep \"lock\" \"\" \"free\"\n" +
		"dep \"phase\" \"\" \"implement\"\n" +
		"dep \"state\" \".orchestrate/workflows/sdc-4.2.yaml\" \"sha256:4ba69735ca53765ed6a709edb56c6ea236b7193a3b29a6b390c346f0f4340e4e\"\n"
	got := string(Canonical(f))
	if got != want {
		t.Fatalf("canonical encoding changed:\n%s\nwant:\n%s", got, want)
	}

	// deps order does not matter
	g := sample()
	g.Deps[0], g.Deps[5] = g.Deps[5], g.Deps[0]
	if !bytes.Equal(Canonical(f), Canonical(g)) {
		t.Fatal("canonical encoding depends on deps order")
	}
	// a time in another zone is the same instant
	g.CreatedAt = f.CreatedAt.In(time.FixedZone("X", 3600))
	if !bytes.Equal(Canonical(f), Canonical(g)) {
		t.Fatal("canonical encoding depends on the time zone")
	}

	// every field matters, and a value cannot be shifted into another field
	edits := map[string]func(*File){
		"schema": func(f *File) { f.Schema = "x" }, "version": func(f *File) { f.Version = "x" },
		"workflow": func(f *File) { f.WorkflowID = "x" }, "phase": func(f *File) { f.Phase = "x" },
		"mode": func(f *File) { f.Mode = "x" }, "decision": func(f *File) { f.Decision = "x" },
		"reason": func(f *File) { f.Reason = "x" }, "approved": func(f *File) { f.Approved = false },
		"forced": func(f *File) { f.Forced = true }, "restart": func(f *File) { f.Restart = true },
		"from": func(f *File) { f.FromPhase = "x" }, "state": func(f *File) { f.StateFile = "x" },
		"agent": func(f *File) { f.Agent = "x" }, "remaining": func(f *File) { f.Remaining = f.Remaining[:1] },
		"deps": func(f *File) { f.Deps = f.Deps[:5] }, "dep path": func(f *File) { f.Deps[1].Path = "x" },
		"phase shifted into agent": func(f *File) { f.Phase, f.Agent = "implement\nagent \"dev", "" },
		"remaining shifted":        func(f *File) { f.Remaining = []string{"implement\n- \"review"} },
	}
	for name, edit := range edits {
		g := sample()
		g.Deps = append([]Dep(nil), g.Deps...)
		edit(&g)
		if bytes.Equal(Canonical(f), Canonical(g)) {
			t.Errorf("%s: canonical encoding unchanged", name)
		}
	}

	// reordering the JSON keys, or re-indenting, keeps a signed plan valid
	s := Seal(sample(), testKey)
	data, err := Encode(s)
	must(t, err)
	var m map[string]any
	must(t, json.Unmarshal(data, &m))
	compact, err := json.Marshal(m) // keys sorted alphabetically, no indent
	must(t, err)
	if _, err := Decode(compact, testKey); err != nil {
		t.Fatalf("reordered plan refused: %v", err)
	}
	// sealing twice gives the same bytes
	again, err := Encode(Seal(sample(), testKey))
	must(t, err)
	if !bytes.Equal(data, again) {
		t.Fatal("Encode(Seal(...)) is not stable")
	}
}

func TestDecodeSchema(t *testing.T) {
	good, err := Encode(Seal(sample(), nil))
	must(t, err)
	tests := []struct {
		name string
		data string
	}{
		{"empty", ""},
		{"not json", "hello"},
		{"array", "[]"},
		{"other schema", strings.Replace(string(good), Schema, "orchestrate-plan/v9", 1)},
		{"unknown field", strings.Replace(string(good), `"schema"`, `"extra": 1, "schema"`, 1)},
		{"trailing data", string(good) + "{}"},
		{"wrong type", strings.Replace(string(good), `"approved": true`, `"approved": "yes"`, 1)},
		{"too large", strings.Repeat(" ", MaxSize+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := Decode([]byte(tt.data), nil); !errors.Is(err, ErrSchema) {
				t.Fatalf("Decode error = %v, want ErrSchema", err)
			}
		})
	}
}

func TestSaveLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "plan.json")
	saved, err := Save(p, sample(), testKey)
	must(t, err)
	fi, err := os.Stat(p)
	must(t, err)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("plan mode = %v, want 0600", fi.Mode().Perm())
	}
	got, err := Load(p, testKey)
	must(t, err)
	if !bytes.Equal(Canonical(got), Canonical(saved)) || got.Signature != saved.Signature {
		t.Fatalf("Load = %+v, want %+v", got, saved)
	}
	// overwriting a regular plan works
	if _, err := Save(p, sample(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(p, testKey); !errors.Is(err, ErrUnsigned) {
		t.Fatalf("Load unsigned with key = %v, want ErrUnsigned", err)
	}

	// non-regular targets are refused, nothing written through them
	target := filepath.Join(dir, "target")
	must(t, os.WriteFile(target, []byte("keep"), 0o644))
	must(t, os.Symlink(target, filepath.Join(dir, "link")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "folder"), 0o755))
	for _, name := range []string{"link", "fifo", "folder"} {
		if _, err := Save(filepath.Join(dir, name), sample(), testKey); err == nil {
			t.Errorf("Save over %s: no error", name)
		}
		if _, err := Load(filepath.Join(dir, name), testKey); err == nil {
			t.Errorf("Load of %s: no error", name)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Fatalf("symlink target written: %q", b)
	}
	if _, err := Load(filepath.Join(dir, "none.json"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Load missing = %v, want not exist", err)
	}
	big := filepath.Join(dir, "big.json")
	must(t, os.WriteFile(big, bytes.Repeat([]byte(" "), MaxSize+1), 0o600))
	if _, err := Load(big, nil); err == nil {
		t.Fatal("Load of an oversized file: no error")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
