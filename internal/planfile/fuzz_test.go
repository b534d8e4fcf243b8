package planfile

import (
	"bytes"
	"testing"
)

// FuzzLoadPlan: Decode never panics on arbitrary bytes, with or without a
// key; and a signed plan whose bytes were changed either fails to verify or
// decodes to exactly the plan that was signed (whitespace, key order or an
// escape spelt differently): no mutation changes what a verified plan says.
func FuzzLoadPlan(f *testing.F) {
	signed, err := Encode(Seal(sample(), testKey))
	if err != nil {
		f.Fatal(err)
	}
	unsigned, err := Encode(Seal(sample(), nil))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(signed)
	f.Add(unsigned)
	f.Add([]byte(`{"schema":"orchestrate-plan/v1"}`))
	f.Add([]byte(`{"schema":"orchestrate-plan/v1","deps":[{"kind":"file","path":"\u0000","digest":"x"}],"signature_alg":"hmac-sha256","signature":"00"}`))
	f.Add([]byte("null"))
	want := Canonical(Seal(sample(), testKey))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, key := range [][]byte{nil, testKey} {
			got, err := Decode(data, key)
			if err != nil {
				continue
			}
			_ = Compare(got.Deps, sample().Deps)
			if len(key) > 0 && !bytes.Equal(Canonical(got), want) {
				t.Fatalf("a plan not signed with the key verified:\n%s", data)
			}
		}
	})
}
