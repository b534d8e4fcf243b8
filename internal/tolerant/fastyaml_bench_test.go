package tolerant

import (
	"os"
	"testing"
)

func benchFile(b *testing.B, name string) []byte {
	data, err := os.ReadFile("testdata/fastyaml/" + name)
	if err != nil {
		b.Fatal(err)
	}
	return data
}

func BenchmarkDecodeStateFast(b *testing.B) {
	data := benchFile(b, "bench-workflows-state.yaml")
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, ok := fastDecodeYAMLMap(data); !ok {
			b.Fatal("declined")
		}
	}
}

func BenchmarkDecodeStateYAMLv3(b *testing.B) {
	data := benchFile(b, "bench-workflows-state.yaml")
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, err := decodeYAMLMapSlow(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeStateValue(b *testing.B) {
	data := benchFile(b, "bench-workflows-state.yaml")
	m, _ := fastDecodeYAMLMap(data)
	v := EncodeValue(nil, m)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		if _, ok := DecodeMapValue(v); !ok {
			b.Fatal("bad value")
		}
	}
}

func BenchmarkEncodeStateValue(b *testing.B) {
	data := benchFile(b, "bench-workflows-state.yaml")
	m, _ := fastDecodeYAMLMap(data)
	b.SetBytes(int64(len(data)))
	for i := 0; i < b.N; i++ {
		EncodeValue(nil, m)
	}
}
