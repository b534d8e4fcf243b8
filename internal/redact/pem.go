package redact

import (
	"sort"
	"strings"

	"github.com/orchestrate-dev/orchestrate/internal/lazyre"
)

var (
	pemHeader = lazyre.New(`-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
	pemFooter = lazyre.New(`-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----`)
)

// maxPEMBody is the longest private-key body looked at for its footer (a
// 16384-bit RSA key is about 12 KiB).
const maxPEMBody = 64 << 10

// privateKeys replaces every PEM private-key block of s, header to footer,
// by the placeholder. A block with no footer (cut short) is replaced up to
// where its base64 stops. A block never spans an unescaped double quote, so
// one inside a JSON string stays in it.
//
// Headers, footers and quotes are each found once, so the cost stays linear
// however many headers lack a footer.
func privateKeys(s string) string {
	if !strings.Contains(s, "PRIVATE KEY") {
		return s
	}
	headers := pemHeader().FindAllStringIndex(s, -1)
	if len(headers) == 0 {
		return s
	}
	footers := pemFooter().FindAllStringIndex(s, -1)
	quotes := unescapedQuotes(s)
	var b strings.Builder
	last, fi := 0, 0
	for _, h := range headers {
		if h[0] < last {
			continue // inside a block already replaced
		}
		for fi < len(footers) && footers[fi][0] < h[1] {
			fi++
		}
		end := -1
		if fi < len(footers) && footers[fi][0]-h[1] <= maxPEMBody {
			q := sort.SearchInts(quotes, h[1])
			if q == len(quotes) || quotes[q] >= footers[fi][0] {
				end = footers[fi][1]
			}
		}
		if end < 0 {
			end = base64Run(s, h[1])
		}
		b.WriteString(s[last:h[0]])
		b.WriteString(Placeholder)
		last = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// unescapedQuotes lists the offsets of the double quotes of s not preceded
// by an odd number of backslashes.
func unescapedQuotes(s string) []int {
	var out []int
	bs := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			bs++
			continue
		case '"':
			if bs%2 == 0 {
				out = append(out, i)
			}
		}
		bs = 0
	}
	return out
}

// base64Run returns the end of the base64 lines starting at s[i] (line
// breaks, literal or escaped as \n and \r, included between them).
func base64Run(s string, i int) int {
	end := i
	for i < len(s) {
		c := s[i]
		switch {
		case c >= 'A' && c <= 'Z', c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '+', c == '/', c == '=':
			i++
			end = i
		case c == '\n' || c == '\r':
			i++
		case c == '\\' && i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r'):
			i += 2
		default:
			return end
		}
	}
	return end
}
