package main

import (
	"fmt"
	"path"
	"sort"
	"strings"
)

// kiroSpecs is the number of Kiro specs the specs-kiro shape plants.
const kiroSpecs = 500

// kiroShape reports whether shape plants Kiro specs.
func kiroShape(shape string) bool { return shape == "specs" || shape == "specs-kiro" }

// kiroWords name the generated features and their tasks.
var kiroWords = []string{"billing", "search", "audit", "export", "import", "profile", "session", "webhook", "report", "inbox",
	"upload", "sync", "notify", "invite", "quota", "ledger", "catalog", "checkout", "schedule", "feed"}

// genKiro returns the files of n Kiro specs under root (".kiro"), as the
// three producers write them, path → content: Kiro IDE 1.x specs (indented
// sub-tasks, `- [ ]*` optional tasks, [-] markers, .config.kiro,
// tasks.meta.json, a Task Dependency Graph), early flat IDE specs (sub-tasks
// at column 0, parents never ticked) and cc-sdd specs (spec.json, (P),
// _Requirements:_, _Depends:_). Of every 25 specs 15 are finished, one is
// in flight, four are not started and five still in design (no tasks.md):
// a repository keeps many specs and works on a few (issue 23 saw three in
// flight).
// Tasks name the paths in existing (cycled through) as the files they
// touch, so that validation has files to check; with none they name paths
// under src/<feature>/. The same arguments give the same files.
func genKiro(root string, n int, existing ...string) map[string]string {
	out := map[string]string{}
	next := 0
	file := func(feature string, k int) string {
		if len(existing) == 0 {
			return fmt.Sprintf("src/%s/part%d.ts", feature, k)
		}
		next++
		return existing[(next-1)%len(existing)]
	}
	for i := 0; i < n; i++ {
		feature := fmt.Sprintf("%s-%s-%03d", kiroWords[i%len(kiroWords)], kiroWords[(i/len(kiroWords)+3)%len(kiroWords)], i)
		dir := root + "/specs/" + feature
		out[dir+"/requirements.md"] = kiroRequirements(feature)
		stage := kiroStage(i)
		producer := (i / 5) % 3
		if stage != 4 {
			out[dir+"/design.md"] = "# Design Document\n\n## Overview\n\nThe " + feature + " feature.\n\n## Correctness Properties\n\n### Property 1: Round trip\n"
		}
		groups, subs := 6+i%5, 3+i%3
		total := groups * subs
		done := 0
		switch stage {
		case 0:
			done = total
		case 2:
			done = total/3 + i%(total/3)
		}
		if stage != 4 {
			out[dir+"/tasks.md"] = kiroTasks(feature, producer, groups, subs, done, func(k int) string { return file(feature, k) })
		}
		switch producer {
		case 0:
			out[dir+"/.config.kiro"] = fmt.Sprintf(`{"specId": "%08x-0000-4000-8000-%012x", "workflowType": "requirements-first", "specType": "feature"}`+"\n", i, i)
			if stage == 2 {
				at := int64(1795000000000) + int64(i)*60000
				out[dir+"/tasks.meta.json"] = fmt.Sprintf(`{"pbtResults": {}, "executionHistory": {"%d.%d task": [{"executionId": "e%d", "chatSessionId": "c%d", "timestamp": %d}]}}`+"\n",
					done/subs+1, done%subs+1, i, i, at)
			}
		case 2:
			phase := "tasks-generated"
			if stage == 4 {
				phase = "design-generated"
			}
			out[dir+"/spec.json"] = fmt.Sprintf("{\n  \"feature_name\": %q,\n  \"phase\": %q,\n  \"approvals\": {\"tasks\": {\"generated\": true, \"approved\": true}}\n}\n", feature, phase)
		}
	}
	return out
}

// kiroStage is spec i's stage: 0 finished, 2 in flight, 3 not started, 4
// in design (no tasks.md).
func kiroStage(i int) int {
	switch k := i % 25; {
	case k == 12:
		return 2
	case k < 16:
		return 0
	case k < 20:
		return 3
	}
	return 4
}

// kiroRequirements is a short EARS requirements document.
func kiroRequirements(feature string) string {
	return "# Requirements Document\n\n## Introduction\n\nThe " + feature + " feature.\n\n## Requirements\n\n### Requirement 1\n\n" +
		"**User Story:** As a user, I want " + feature + ", so that I save time.\n\n#### Acceptance Criteria\n\n" +
		"1. WHEN the user asks THEN the system SHALL answer\n2. IF it fails THEN the system SHALL say why\n"
}

// kiroTasks writes a tasks.md of groups × subs leaf tasks, the first done
// of them ticked, in the producer's layout (0 IDE 1.x, 1 early flat, 2
// cc-sdd). Parents are never ticked (Kiro does not tick them).
func kiroTasks(feature string, producer, groups, subs, done int, file func(int) string) string {
	var b strings.Builder
	b.WriteString("# Implementation Plan\n\n")
	if producer == 0 {
		b.WriteString("## Overview\n\nImplement " + feature + " in small steps.\n\n## Tasks\n\n")
	}
	k := 0
	for g := 1; g <= groups; g++ {
		open := "[ ]"
		if producer != 1 && k < done && done < k+subs {
			open = "[-]"
		}
		fmt.Fprintf(&b, "- %s %d. %s the %s %s\n", open, g, capital(kiroWords[(g+len(feature))%len(kiroWords)]), feature, []string{"model", "service", "handlers", "view", "tests"}[g%5])
		indent := "  "
		if producer != 0 {
			indent = ""
		}
		for s := 1; s <= subs; s++ {
			box := "[ ]"
			if k < done {
				box = "[x]"
			}
			star := ""
			if producer == 0 && s == subs && g%2 == 0 {
				star = "*" // an optional property test: not counted
			}
			p := file(k)
			par := ""
			if producer == 2 && s%2 == 1 {
				par = " (P)"
			}
			fmt.Fprintf(&b, "%s- %s%s %d.%d Implement %s in `%s`%s\n", indent, box, star, g, s, path.Base(p), p, par)
			fmt.Fprintf(&b, "%s  - Cover the error paths and the empty case\n", indent)
			fmt.Fprintf(&b, "%s  - _Requirements: %d.%d, %d.%d_\n", indent, 1, 1+s%2, g%3+1, 1)
			if producer == 2 && s > 1 {
				fmt.Fprintf(&b, "  - _Depends: %d.%d_\n", g, s-1)
			}
			if star == "" {
				k++
			}
		}
		b.WriteString("\n")
	}
	if producer == 0 {
		b.WriteString("## Notes\n\n- Tasks marked with `*` are optional\n\n```markdown\n- [ ] 9. Example task\n```\n\n## Task Dependency Graph\n\n```json\n{\"waves\": [")
		for g := 1; g <= groups; g++ {
			if g > 1 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "{\"id\": %d, \"tasks\": [\"%d.1\"]}", g-1, g)
		}
		b.WriteString("]}\n```\n")
	}
	return b.String()
}

// kiroChanges are the Kiro spec files the specs-kiro shape commits at
// commit slot i of total: each spec in one commit, the specs spread over
// the history from slot 1 on, its tasks naming referenced-by-nobody source
// files of the repository.
func (s *shapeGen) kiroChanges(i, total int) []change {
	if !kiroShape(s.p.Shape) {
		return nil
	}
	if s.kiro == nil {
		var existing []string
		for f := 7; f < len(s.files) && len(existing) < 4000; f += 23 {
			existing = append(existing, s.files[f])
		}
		files := genKiro(".kiro", kiroSpecs, existing...)
		byDir := map[string][]string{}
		for p := range files {
			byDir[path.Dir(p)] = append(byDir[path.Dir(p)], p)
		}
		dirs := make([]string, 0, len(byDir))
		for d := range byDir {
			dirs = append(dirs, d)
		}
		sort.Strings(dirs)
		s.kiro = map[int][]change{}
		for k, d := range dirs {
			slot := 1 + k*(total-2)/len(dirs)
			ps := byDir[d]
			sort.Strings(ps)
			for _, p := range ps {
				s.kiro[slot] = append(s.kiro[slot], change{p, s.im.blob(files[p])})
			}
		}
	}
	return s.kiro[i]
}

// capital upper-cases the first letter of an ASCII word.
func capital(w string) string {
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}
