package main

import "time"

// taskmasterFiles is one Taskmaster 0.17+ project (tagged tasks file,
// current tag in state.json) with task 5 interrupted in subtask 5.2.
var taskmasterFiles = map[string]string{
	".taskmaster/state.json": `{
  "currentTag": "master",
  "lastSwitched": "2026-01-05T09:00:00.000Z",
  "branchTagMapping": {},
  "migrationNoticeShown": true
}
`,
	".taskmaster/config.json": `{
  "models": { "main": { "provider": "anthropic", "modelId": "claude-sonnet-4-20250514", "maxTokens": 64000 } },
  "global": { "logLevel": "info", "defaultTag": "master", "projectName": "Demo" }
}
`,
	"src/notify/digest.ts": "export function buildDigest(items: string[]): string {\n  return items.join('\\n');\n}\n",
	".taskmaster/tasks/tasks.json": `{
  "master": {
    "tasks": [
      {
        "id": 5,
        "title": "Daily e-mail digest of notifications",
        "description": "Collect the day's notifications into one e-mail.",
        "status": "in-progress",
        "priority": "medium",
        "dependencies": [],
        "details": "",
        "testStrategy": "Snapshot the rendered digest.",
        "subtasks": [
          { "id": 1, "title": "Query the day's notifications", "description": "", "dependencies": [], "details": "", "status": "done" },
          { "id": 2, "title": "Render the digest", "description": "Template in ` + "`src/notify/digest.ts`" + `.", "dependencies": [1], "details": "<info added on 2026-01-05T10:00:00.000Z>\nPlain-text body done; HTML part still to do.\n</info added on 2026-01-05T10:00:00.000Z>", "status": "in-progress" },
          { "id": 3, "title": "Schedule the send", "description": "", "dependencies": [2], "details": "", "status": "pending" }
        ]
      },
      { "id": 6, "title": "Unsubscribe link", "description": "", "status": "pending", "priority": "low", "dependencies": [5], "details": "", "testStrategy": "", "subtasks": [] }
    ],
    "metadata": { "created": "2026-01-05T09:00:00.000Z", "updated": "2026-01-05T10:00:00.000Z", "description": "Tasks for master context" }
  }
}
`,
}

// writeTaskmaster adds the Taskmaster project to the example repository in
// one commit, 3 hours before now (older than the demo's headline SDC, so
// the walkthrough still resumes that one first).
func writeTaskmaster(dir string, now time.Time) error {
	return commitFiles(dir, taskmasterFiles, "task-master: 5.1 done, 5.2 started", bruno, now.Add(-3*time.Hour))
}
