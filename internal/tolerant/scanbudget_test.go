package tolerant

import (
	"strings"
	"sync"
	"testing"
)

func TestElements(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
		want int
	}{
		{"empty", "", 1},
		{"one line", "a: b", 1},
		{"LF", "a\nb\nc\n", 4},
		{"CRLF is one line", "a\r\nb\r\n", 3},
		{"CR alone", "a\rb\rc", 3},
		{"mixed", "a\r\nb\rc\n", 4},
		{"commas and brackets", `[{},{},{}]`, 7},
		{"NEL, LS, PS", "- a\u0085- b\u2028- c\u2029", 4},
		{"json object", `{"a":1,"b":[1,2]}`, 5},
	} {
		if got := Elements([]byte(tc.data)); got != tc.want {
			t.Errorf("%s: Elements(%q) = %d, want %d", tc.name, tc.data, got, tc.want)
		}
	}
	if got := FileElements("x.yaml", []byte("a\nb")); got != 2*YAMLWeight {
		t.Errorf("FileElements of YAML = %d, want %d", got, 2*YAMLWeight)
	}
	if got := FileElements("x.yml", []byte("a")); got != YAMLWeight {
		t.Errorf("FileElements of .yml = %d, want %d", got, YAMLWeight)
	}
	if got := FileElements("x.json", []byte("a,b")); got != 2 {
		t.Errorf("FileElements of JSON = %d, want 2", got)
	}
}

// TestElementsBoundValues: every decoded value the per-file check counts
// is an element, for the shapes the attacks used (so the scan's budget
// cannot be passed by a dense file).
func TestElementsBoundValues(t *testing.T) {
	for _, data := range []string{
		"[" + strings.Repeat("{},", 999) + "{}]",
		"- " + strings.Repeat("a\n- ", 999) + "a\n",
		"{" + strings.Repeat("a: b, ", 999) + "a: b}",
		"[" + strings.Repeat("1,", 999) + "1]",
	} {
		_, nodes := jsonShape([]byte(data))
		if strings.HasPrefix(data, "- ") {
			nodes = 1001 // the list and its 1,000 entries
		}
		if e := Elements([]byte(data)); e < nodes {
			t.Errorf("Elements = %d under the %d values of %.20q…", e, nodes, data)
		}
	}
}

func TestScanBudget(t *testing.T) {
	b := NewScanBudget(10)
	if b.Size() != 10 {
		t.Fatalf("Size = %d", b.Size())
	}
	if err := b.TakeN("a", 6); err != nil {
		t.Fatalf("6 of 10: %v", err)
	}
	if at, n := b.Spent(); at != "" || n != 0 {
		t.Errorf("Spent = %q %d before it ran out", at, n)
	}
	err := b.TakeN("b", 5)
	if err == nil || err.Code != "too-many" || !strings.Contains(err.Msg, "5 elements (lines, commas and brackets) past the 10 orchestrate reads in one scan") {
		t.Fatalf("5 more: %v", err)
	}
	// spent: even what would fit is refused, naming where it ran out
	err = b.TakeN("c", 1)
	if err == nil || !strings.Contains(err.Msg, "ran out at b") {
		t.Fatalf("after it ran out: %v", err)
	}
	if err := b.Take("d", []byte("x")); err == nil {
		t.Fatal("Take after it ran out: nil")
	}
	if at, n := b.Spent(); at != "b" || n != 3 {
		t.Errorf("Spent = %q %d, want b 3", at, n)
	}
	big := NewScanBudget(0)
	for i := 0; i < MaxScanReadElements/MaxFileCharge; i++ {
		if err := big.TakeN("huge", 1<<40); err != nil {
			t.Fatalf("file %d past MaxFileCharge: %v", i+1, err)
		}
	}
	if big.TakeN("one more", 1) == nil {
		t.Error("the files at MaxFileCharge left room")
	}
	var none *ScanBudget
	if none.Take("x", []byte("a")) != nil || none.TakeN("x", 1<<40) != nil || none.Size() != 0 {
		t.Error("a nil budget refused")
	}
	if at, n := none.Spent(); at != "" || n != 0 {
		t.Error("a nil budget is spent")
	}
	if NewScanBudget(0).Size() != MaxScanReadElements {
		t.Error("NewScanBudget(0) is not the default")
	}
}

// TestScanBudgetConcurrent: workers drawing at once never spend more than
// the budget (run with -race).
func TestScanBudgetConcurrent(t *testing.T) {
	b := NewScanBudget(1000)
	var mu sync.Mutex
	taken := 0
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100; i++ {
				if b.TakeN("f", 3) == nil {
					mu.Lock()
					taken += 3
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if taken > 1000 || taken < 1000-3 {
		t.Errorf("took %d of 1000", taken)
	}
}
