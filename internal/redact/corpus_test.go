package redact

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusLine is one input of a corpus file and where it is.
type corpusLine struct {
	pos  string // file:line
	text string
}

// readCorpus returns the inputs of testdata/corpus/name ("%%" removed,
// comments and blank lines skipped).
func readCorpus(t *testing.T, name string) []corpusLine {
	t.Helper()
	path := filepath.Join("testdata", "corpus", name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []corpusLine
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, corpusLine{pos: path + ":" + itoa(n), text: strings.ReplaceAll(line, "%%", "")})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func itoa(n int) string {
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			return string(b[i:])
		}
	}
}

// unmark splits a marked secrets line into its input, the redacted line
// expected, and the secrets («…»).
func unmark(line string) (in, want string, secrets []string) {
	var inB, wantB strings.Builder
	for {
		i := strings.Index(line, "«")
		if i < 0 {
			break
		}
		j := strings.Index(line[i:], "»")
		if j < 0 {
			break
		}
		secret := line[i+len("«") : i+j]
		inB.WriteString(line[:i] + secret)
		wantB.WriteString(line[:i] + Placeholder)
		secrets = append(secrets, secret)
		line = line[i+j+len("»"):]
	}
	inB.WriteString(line)
	wantB.WriteString(line)
	return inB.String(), wantB.String(), secrets
}

// TestCorpus: every secret of testdata/corpus/secrets.txt is redacted,
// exactly where it is marked, and every look-alike of lookalikes.txt stays
// byte for byte. Each failure names its file and line.
func TestCorpus(t *testing.T) {
	secrets := readCorpus(t, "secrets.txt")
	if len(secrets) < 100 {
		t.Errorf("secrets.txt holds %d inputs, want at least 100", len(secrets))
	}
	for _, l := range secrets {
		in, want, marked := unmark(l.text)
		if len(marked) == 0 {
			t.Errorf("%s: no «secret» marked", l.pos)
			continue
		}
		got := String(in)
		if got != want {
			t.Errorf("%s:\n   in %s\n  got %s\n want %s", l.pos, in, got, want)
		}
		for _, s := range marked {
			if strings.Contains(got, s) {
				t.Errorf("%s: secret %q survived", l.pos, s)
			}
		}
		if again := String(got); again != got {
			t.Errorf("%s: not idempotent: %s", l.pos, again)
		}
	}
	looks := readCorpus(t, "lookalikes.txt")
	if len(looks) < 100 {
		t.Errorf("lookalikes.txt holds %d inputs, want at least 100", len(looks))
	}
	for _, l := range looks {
		if got := String(l.text); got != l.text {
			t.Errorf("%s: look-alike changed\n   in %s\n  got %s", l.pos, l.text, got)
		}
	}
}
