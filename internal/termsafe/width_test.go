package termsafe

import "testing"

func TestWidth(t *testing.T) {
	for _, r := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"abc", 3},
		{"日本", 4},
		{"e\u0301", 1}, // e + combining acute
		{"…", 1},
		{"✓", 1},
		{"🙂", 2},
		{"naïve — ünïcødé", 15},
	} {
		if got := Width(r.in); got != r.want {
			t.Errorf("Width(%q) = %d, want %d", r.in, got, r.want)
		}
	}
}

func TestTruncate(t *testing.T) {
	for _, r := range []struct {
		in         string
		w          int
		want, left string
	}{
		{"Phase 3/4 (Implementation)", 100, "Phase 3/4 (Implementation)", "Phase 3/4 (Implementation)"},
		{"Phase 3/4 (Implementation)", 26, "Phase 3/4 (Implementation)", "Phase 3/4 (Implementation)"},
		{"Phase 3/4 (Implementation)", 10, "Phase 3/4…", "…entation)"},
		{"docs/stories/4.2.search.md", 12, "docs/storie…", "…2.search.md"},
		{"日本語のテキスト", 7, "日本語…", "…キスト"},
		{"abc", 1, "…", "…"},
		{"abc", 0, "", ""},
		{"abc", -3, "", ""},
	} {
		got := Truncate(r.in, r.w)
		if got != r.want {
			t.Errorf("Truncate(%q, %d) = %q, want %q", r.in, r.w, got, r.want)
		}
		if r.w > 0 && Width(got) > r.w {
			t.Errorf("Truncate(%q, %d) = %q is %d wide", r.in, r.w, got, Width(got))
		}
		left := TruncateLeft(r.in, r.w)
		if left != r.left {
			t.Errorf("TruncateLeft(%q, %d) = %q, want %q", r.in, r.w, left, r.left)
		}
		if r.w > 0 && Width(left) > r.w {
			t.Errorf("TruncateLeft(%q, %d) = %q is %d wide", r.in, r.w, left, Width(left))
		}
	}
}

// TestTruncateIsRunewidthsWithTheTail: Truncate and TruncateLeft, which
// never measure Ellipsis (ellipsisWidth), cut as go-runewidth does with
// Ellipsis as its tail, for text of every kind and every width up to past
// its own.
func TestTruncateIsRunewidthsWithTheTail(t *testing.T) {
	if got := cells.StringWidth(Ellipsis); got != ellipsisWidth {
		t.Fatalf("Width(Ellipsis) = %d, ellipsisWidth says %d", got, ellipsisWidth)
	}
	for _, s := range []string{
		"", "a", "abc", "Phase 3/4 (Implementation)", "docs/stories/4.2.search.md",
		"日本語のテキスト", "e\u0301e\u0301e\u0301x", "naïve — ünïcødé", "🙂🙂a🙂",
		"👩\u200d💻 dev", "a\u200db", "\u0301abc", "x\u0300\u0301\u0302y", "🇫🇷🇩🇪 flags",
		"tab\there", "\xff\xfeinvalid", "…already…", "ｆｕｌｌｗｉｄｔｈ",
	} {
		for w := -1; w <= cells.StringWidth(s)+2; w++ {
			want, wantLeft := "", ""
			if w >= 1 {
				want = cells.Truncate(s, w, Ellipsis)
				if cells.StringWidth(s) <= w {
					wantLeft = s
				} else {
					wantLeft = cells.TruncatePrefix(s, w, Ellipsis)
				}
			}
			if got := Truncate(s, w); got != want {
				t.Errorf("Truncate(%q, %d) = %q, go-runewidth %q", s, w, got, want)
			}
			if got := TruncateLeft(s, w); got != wantLeft {
				t.Errorf("TruncateLeft(%q, %d) = %q, go-runewidth %q", s, w, got, wantLeft)
			}
		}
	}
}
