package layering

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// mapHeading is the section of docs/ARCHITECTURE.md that holds the map.
const mapHeading = "## The map: every package"

// mapTables are the two tables of the map: the layers in order (layer name →
// its position) and the packages (module-relative package → its layer).
type mapTables struct {
	layers   []string
	packages map[string]string
	dups     []string // packages named in more than one row
}

// parseMap reads the map section of an ARCHITECTURE.md: its table whose
// header starts "| layer |" and its table whose header starts "| package |".
// A cell's backquotes are dropped.
func parseMap(doc string) (mapTables, error) {
	var m mapTables
	start := strings.Index(doc, "\n"+mapHeading+"\n")
	if start < 0 {
		return m, fmt.Errorf("no section %q", mapHeading)
	}
	section := doc[start+1+len(mapHeading):]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	m.packages = map[string]string{}
	var header string
	for _, line := range strings.Split(section, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "|") {
			header = ""
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(strings.TrimSpace(c), "`", "")
		}
		switch {
		case header == "":
			header = cells[0]
			continue
		case strings.Trim(cells[0], "-: ") == "":
			continue // the delimiter row
		case header == "layer":
			m.layers = append(m.layers, cells[0])
		case header == "package":
			if len(cells) < 2 {
				return m, fmt.Errorf("package row without a layer: %s", line)
			}
			if _, dup := m.packages[cells[0]]; dup {
				m.dups = append(m.dups, cells[0])
			}
			m.packages[cells[0]] = cells[1]
		}
	}
	if len(m.layers) == 0 || len(m.packages) == 0 {
		return m, fmt.Errorf("section %q: want a table of layers and a table of packages", mapHeading)
	}
	return m, nil
}

// checkMap returns every way the map disagrees with the module's packages
// and the layering table, sorted.
func checkMap(m mapTables, pkgs []string) []string {
	var problems []string
	var names []string
	for _, l := range layers {
		names = append(names, l.name)
	}
	if !slices.Equal(m.layers, names) {
		problems = append(problems, fmt.Sprintf("the map's layers are %q; the layering table's are %q", m.layers, names))
	}
	for _, d := range m.dups {
		problems = append(problems, fmt.Sprintf("%s has more than one row in the map", d))
	}
	for _, p := range pkgs {
		got, ok := m.packages[p]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s is missing from the map (docs/ARCHITECTURE.md, %q)", p, mapHeading))
			continue
		}
		if i, _ := layerOf(p); i >= 0 && got != layers[i].name {
			problems = append(problems, fmt.Sprintf("%s: the map says layer %q, the layering table %q", p, got, layers[i].name))
		}
	}
	for p := range m.packages {
		if !slices.Contains(pkgs, p) {
			problems = append(problems, fmt.Sprintf("the map names %s, which is no package of the module", p))
		}
	}
	sort.Strings(problems)
	return problems
}

func TestArchitectureMap(t *testing.T) {
	mod := loadModule(t)
	doc, err := os.ReadFile(filepath.Join(mod.root, "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseMap(string(doc))
	if err != nil {
		t.Fatalf("docs/ARCHITECTURE.md: %v", err)
	}
	var pkgs []string
	for p := range mod.graph {
		pkgs = append(pkgs, p)
	}
	for _, p := range checkMap(m, pkgs) {
		t.Error(p)
	}
}

// TestCheckMap proves checkMap finds what it is for.
func TestCheckMap(t *testing.T) {
	var layerRows strings.Builder
	for _, l := range layers {
		fmt.Fprintf(&layerRows, "| %s | x | y |\n", l.name)
	}
	doc := func(rows string) string {
		return "# A\n\n" + mapHeading + "\n\n| layer | packages | may import |\n|---|---|---|\n" + layerRows.String() +
			"\nText.\n\n| package | layer | holds | may import |\n|---|---|---|---|\n" + rows + "\n## Next\n\n| package | layer |\n|---|---|\n| `elsewhere` | leaf |\n"
	}
	pkgs := []string{"workflow", "app/cli"}
	tests := []struct {
		name string
		rows string
		want []string
	}{
		{"complete", "| `workflow` | domain | x | y |\n| `app/cli` | command | x | y |\n", nil},
		{"missing", "| `workflow` | domain | x | y |\n",
			[]string{`app/cli is missing from the map (docs/ARCHITECTURE.md, "## The map: every package")`}},
		{"stale", "| `workflow` | domain | x | y |\n| `app/cli` | command | x | y |\n| `gone` | leaf | x | y |\n",
			[]string{"the map names gone, which is no package of the module"}},
		{"wrong layer", "| `workflow` | leaf | x | y |\n| `app/cli` | command | x | y |\n",
			[]string{`workflow: the map says layer "leaf", the layering table "domain"`}},
		{"twice", "| `workflow` | domain | x | y |\n| `workflow` | domain | x | y |\n| `app/cli` | command | x | y |\n",
			[]string{"workflow has more than one row in the map"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := parseMap(doc(tt.rows))
			if err != nil {
				t.Fatal(err)
			}
			if got := checkMap(m, pkgs); !slices.Equal(got, tt.want) {
				t.Fatalf("checkMap =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
	if _, err := parseMap("# A\n\n## Other\n"); err == nil {
		t.Error("parseMap found a map in a document without one")
	}
}
