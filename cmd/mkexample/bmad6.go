package main

import "time"

// bmad6Files is a BMAD-METHOD v6 project (6.0 layout) with one story
// interrupted in dev-story: the ledger says in-progress, the file still
// says ready-for-dev (6.0 writes it only at the end), two of five tasks
// ticked.
var bmad6Files = map[string]string{
	"_bmad/bmm/config.yaml": `# BMM Module Configuration
# Version: 6.0.3
project_name: demo
output_folder: "{project-root}/_bmad-output"
implementation_artifacts: "{project-root}/_bmad-output/implementation-artifacts"
`,
	"_bmad-output/implementation-artifacts/sprint-status.yaml": `# generated: demo
# project: demo
# project_key: NOKEY
# tracking_system: file-system
# story_location: "{project-root}/_bmad-output/implementation-artifacts"

project: demo
project_key: NOKEY
tracking_system: file-system
story_location: "{project-root}/_bmad-output/implementation-artifacts"

development_status:
  epic-5: in-progress
  5-1-export-csv: done
  5-2-export-scheduling: in-progress # cron syntax agreed with ops
  5-3-export-email: ready-for-dev
  5-4-export-s3: backlog
  epic-5-retrospective: optional
`,
	"_bmad-output/implementation-artifacts/5-1-export-csv.md": `# Story 5.1: Export CSV

Status: done

## Tasks / Subtasks

- [x] Task 1: CSV writer
`,
	"_bmad-output/implementation-artifacts/5-2-export-scheduling.md": `# Story 5.2: Export scheduling

Status: ready-for-dev

## Story

As an admin, I want exports to run on a schedule.

## Tasks / Subtasks

- [x] Task 1: Schedule model (AC: 1)
- [x] Task 2: Cron parser (AC: 2)
- [ ] Task 3: Scheduler loop (AC: 3)
  - [ ] Run due exports
- [ ] Task 4: Admin screen (AC: 4)

## Dev Agent Record

### File List

- src/export/schedule.ts
`,
	"_bmad-output/implementation-artifacts/5-3-export-email.md": `# Story 5.3: Export by email

Status: ready-for-dev

## Tasks / Subtasks

- [ ] Task 1: Mailer
`,
	"src/export/schedule.ts": "export const every = (cron: string) => cron;\n",
}

// bmad6Example writes the BMAD v6 project into the example repository and
// commits it three hours before now.
func bmad6Example(dir string, now time.Time) error {
	return commitFiles(dir, bmad6Files, "BMAD v6 sprint 5: story 5.2 in progress", bruno, now.Add(-3*time.Hour))
}
