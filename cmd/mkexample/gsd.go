package main

import "time"

// gsdFiles is one interrupted GSD phase (invented content, real shapes):
// phase 07.2 has plan 01 summarised and plan 02 (slugged) and 03 open.
var gsdFiles = map[string]string{
	".planning/STATE.md": `---
status: executing
stopped_at: Completed 07.2-01-PLAN.md
---
# Project State

## Current Position

Phase: 07.2 of 9 (API auth)
Plan: 1 of 3 — COMPLETE
Status: Executing

## Session Continuity

Stopped at: Completed 07.2-01-PLAN.md
Resume file: None
`,
	".planning/phases/07.2-api-auth/07.2-01-PLAN.md":          gsdPlan("01", "1", "[]", "src/search.ts", "Issue API tokens", "Token issuer"),
	".planning/phases/07.2-api-auth/07.2-01-SUMMARY.md":       "# Phase 07.2 Plan 01: token issuer\n",
	".planning/phases/07.2-api-auth/07.2-02-api-keys-PLAN.md": gsdPlan("02", "2", `["07.2-01"]`, "src/keys.ts", "API keys for service accounts", "Key store"),
	".planning/phases/07.2-api-auth/07.2-03-PLAN.md": `---
phase: 07.2-api-auth
plan: 03
depends_on: ["07.2-02"]
---
<objective>
Key rotation
</objective>
`,
}

// gsdPlan is the PLAN.md of plan n of phase 07.2, in wave, after deps (a
// YAML list), with one task that edits file.
func gsdPlan(n, wave, deps, file, objective, task string) string {
	return "---\nphase: 07.2-api-auth\nplan: " + n + "\nwave: " + wave + "\ndepends_on: " + deps +
		"\nfiles_modified: [" + file + "]\n---\n<objective>\n" + objective + "\n</objective>\n<tasks>\n" +
		"<task type=\"auto\">\n  <name>Task 1: " + task + "</name>\n  <files>" + file + "</files>\n</task>\n</tasks>\n"
}

// writeGSD adds the GSD phase to the example repository, committed three
// hours ago.
func writeGSD(dir string, now time.Time) error {
	return commitFiles(dir, gsdFiles, "gsd: phase 07.2 plan 01 done", "Dev <dev@example.com>", now.Add(-3*time.Hour))
}
