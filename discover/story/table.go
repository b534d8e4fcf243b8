package story

import (
	"strings"
)

// tableCell returns the path cell of a table row, or "" for a header or a
// separator row.
func (s *storyState) tableCell(row string) string {
	cells := appendTableCells(s.cells[:0], row, MaxTableCells)
	s.table.rows++
	if IsSeparatorRow(cells) {
		return ""
	}
	if s.table.rows == 1 {
		// a header row names the path column: "| File | Action |"
		header := -1
		for i, c := range cells {
			if _, ok := storyFileListPath(c); ok {
				header = -1
				break
			}
			n := strings.ToLower(storyPlain(c))
			if header < 0 && (strings.Contains(n, "file") || strings.Contains(n, "path")) {
				header = i
			}
		}
		if header >= 0 {
			s.table.col = header
			return ""
		}
	}
	if s.table.col < len(cells) {
		return cells[s.table.col]
	}
	return ""
}

// TableCells splits a table row into at most max cells.
func TableCells(row string, max int) []string {
	return appendTableCells(nil, row, max)
}

// appendTableCells is TableCells appending to cells (the parser's buffer).
func appendTableCells(cells []string, row string, max int) []string {
	row = strings.TrimSpace(row)
	row = strings.TrimPrefix(row, "|")
	for start := len(cells); len(cells)-start < max && row != ""; {
		i := strings.IndexByte(row, '|')
		if i < 0 {
			if c := strings.TrimSpace(row); c != "" {
				cells = append(cells, c)
			}
			break
		}
		cells = append(cells, strings.TrimSpace(row[:i]))
		row = row[i+1:]
	}
	return cells
}

// IsSeparatorRow reports whether cells are a table's "|---|:--:|" row.
func IsSeparatorRow(cells []string) bool {
	if len(cells) == 0 {
		return true
	}
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" || !strings.Contains(c, "-") {
			return false
		}
	}
	return true
}

// Bullet returns the text of a list item ("- x", "* x", "+ x", "1. x",
// "1) x", with an optional "[ ]" or "[x]" checkbox).
func Bullet(t string) (string, bool) {
	var body string
	switch {
	case len(t) >= 2 && (t[0] == '-' || t[0] == '*' || t[0] == '+') && (t[1] == ' ' || t[1] == '\t'):
		body = t[2:]
	default:
		i := 0
		for i < len(t) && i < 9 && t[i] >= '0' && t[i] <= '9' {
			i++
		}
		if i == 0 || i+1 >= len(t) || (t[i] != '.' && t[i] != ')') || (t[i+1] != ' ' && t[i+1] != '\t') {
			return "", false
		}
		body = t[i+2:]
	}
	body = strings.TrimSpace(body)
	for _, box := range []string{"[ ]", "[x]", "[X]"} {
		if strings.HasPrefix(body, box) {
			body = strings.TrimSpace(body[len(box):])
			break
		}
	}
	return body, true
}

// Unemphasize removes balanced emphasis around a word: "**a.ts**",
// "__a.ts__", "*a.ts*" (but not the "*" of a glob such as "src/ui/*").
func Unemphasize(t string) string {
	for _, m := range []string{"**", "__", "*", "_"} {
		if len(t) > 2*len(m) && strings.HasPrefix(t, m) && strings.HasSuffix(t, m) {
			return t[len(m) : len(t)-len(m)]
		}
	}
	return t
}
