package main

import (
	"fmt"
	"strings"
)

// openspecCaps are the capabilities the generated changes touch.
var openspecCaps = []string{"auth", "billing", "search", "notifications", "reports", "profile", "audit", "export"}

// genOpenSpec returns the files of n OpenSpec changes under root (the
// `openspec` folder, repository-relative), shaped like real 1.x projects:
// a config.yaml, per change a proposal, a delta spec, an .openspec.yaml and
// a tasks.md of 3–6 numbered groups with 2–7 tasks each (some with indented
// sub-tasks, requirement references and backticked source paths), plus an
// archive of n/5 finished changes. Four in ten changes are in flight (some
// tasks ticked), four in ten complete, one in ten not started, one in ten
// a draft without tasks.md. The output depends on n alone.
func genOpenSpec(root string, n int) map[string]string {
	files := map[string]string{
		root + "/config.yaml":               "schema: spec-driven\ncontext: |\n  Go service; tests with go test.\n",
		root + "/specs/auth/spec.md":        "# auth Specification\n\n## Purpose\nSign-in.\n\n## Requirements\n### Requirement: Sign in\nThe system SHALL sign users in.\n",
		root + "/specs/billing/spec.md":     "# billing Specification\n\n## Purpose\nInvoices.\n\n## Requirements\n### Requirement: Invoice\nThe system SHALL issue invoices.\n",
		root + "/changes/IMPLEMENTATION.md": "Order in which changes land.\n",
	}
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%s-%s-%03d", slug(pickWord(verbs, i)), words[(i*7)%len(words)], i)
		dir := fmt.Sprintf("%s/changes/%s", root, id)
		cp := openspecCaps[i%len(openspecCaps)]
		files[dir+"/proposal.md"] = fmt.Sprintf("## Why\n\nChange %d of the %s capability.\n\n## What Changes\n\n- %s the %s flow.\n\n## Impact\n\n- Affected specs: %s\n", i, cp, pickWord(verbs, i), words[i%len(words)], cp)
		files[dir+"/specs/"+cp+"/spec.md"] = fmt.Sprintf("## ADDED Requirements\n\n### Requirement: %s %d\nThe system SHALL handle case %d.\n\n#### Scenario: Case %d\n- **WHEN** it happens\n- **THEN** it is handled\n", strings.ToUpper(cp[:1])+cp[1:], i, i, i)
		files[dir+"/.openspec.yaml"] = fmt.Sprintf("schema: spec-driven\ncreated: 2026-%02d-%02d\n", 1+i%12, 1+i%28)
		kind := i % 10
		if kind == 9 {
			continue // a draft: proposal and delta spec only
		}
		files[dir+"/tasks.md"] = openspecTasks(i, kind)
	}
	for i := 0; i < n/5; i++ {
		id := fmt.Sprintf("2026-%02d-%02d-%s-%s-old%03d", 1+i%12, 1+i%28, slug(pickWord(verbs, i+3)), words[(i*3)%len(words)], i)
		files[fmt.Sprintf("%s/changes/archive/%s/tasks.md", root, id)] = openspecTasks(i, 4)
		files[fmt.Sprintf("%s/changes/archive/%s/proposal.md", root, id)] = "## Why\n\nArchived change.\n"
	}
	return files
}

// slug is a word in kebab case ("speed up" is speed-up).
func slug(w string) string { return strings.ReplaceAll(w, " ", "-") }

// pickWord is list[i mod len].
func pickWord(list []string, i int) string { return list[i%len(list)] }

// openspecTasks writes change i's tasks.md: kind 0–3 leaves it in flight,
// 4–7 complete (archived changes use 4), 8 not started.
func openspecTasks(i, kind int) string {
	groups := 3 + i%4
	total := 0
	type line struct {
		text   string
		indent bool
	}
	var lines [][]line
	for g := 0; g < groups; g++ {
		var gl []line
		for t := 0; t < 2+(i+g)%6; t++ {
			text := fmt.Sprintf("%d.%d %s the %s %s", g+1, t+1, pickWord(verbs, i+g+t), words[(i+t)%len(words)], words[(g*5+t)%len(words)])
			if (i+g+t)%3 == 0 {
				f := (i*37 + g*11 + t) % 100
				dir := f / filesPerDir
				text += fmt.Sprintf(" in `src/pkg%03d/sub%02d/file%05d.go`", dir/subsPerPkg, dir%subsPerPkg, f)
			}
			gl = append(gl, line{text: text})
			total++
			if (i+t)%5 == 0 {
				gl = append(gl, line{text: fmt.Sprintf("%d.%d.1 Cover the edge case", g+1, t+1), indent: true})
				total++
			}
		}
		lines = append(lines, gl)
	}
	done := 0
	switch {
	case kind < 4:
		done = 1 + (i*7)%(total-1) // some, not all
	case kind < 8:
		done = total
	}
	var b strings.Builder
	k := 0
	for g, gl := range lines {
		fmt.Fprintf(&b, "## %d. %s %s\n\n", g+1, strings.ToUpper(words[(i+g)%len(words)][:1])+words[(i+g)%len(words)][1:], "work")
		for _, l := range gl {
			box := " "
			if k < done {
				box = "x"
			}
			k++
			if l.indent {
				b.WriteString("  ")
			}
			fmt.Fprintf(&b, "- [%s] %s\n", box, l.text)
			if !l.indent && k%4 == 0 {
				fmt.Fprintf(&b, "  - _Requirements: %s %d_\n", openspecCaps[i%len(openspecCaps)], i)
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}
