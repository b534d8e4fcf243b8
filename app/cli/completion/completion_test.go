package completion

import "testing"

func TestCompletable(t *testing.T) {
	tests := []struct {
		word string
		want bool
	}{
		{"workflow:sdc-1", true},
		{"sdc:4.2", true},
		{"", false},
		{"a b", false},
		{"a\tb", false},
		{"a\nb", false},
		{"a\u202eb", false},
		{"$(rm)", false},
	}
	for _, tt := range tests {
		if got := Completable(tt.word); got != tt.want {
			t.Errorf("Completable(%q) = %v, want %v", tt.word, got, tt.want)
		}
	}
}
