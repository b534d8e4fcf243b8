package main

import (
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// openspecFiles are an OpenSpec (1.x layout) change interrupted in the
// middle of /opsx:apply: three of six tasks ticked, an indented sub-task
// open among them.
var openspecFiles = map[string]string{
	"openspec/config.yaml": "schema: spec-driven\ncontext: |\n  TypeScript service; tests with vitest.\n",
	"openspec/specs/notifications/spec.md": "# notifications Specification\n\n## Purpose\nHow users are told about billing events.\n\n" +
		"## Requirements\n### Requirement: Email on paid invoice\nThe system SHALL email the customer when an invoice is paid.\n",
	"openspec/changes/add-sms-notifications/.openspec.yaml": "schema: spec-driven\ncreated: 2026-01-12\n",
	"openspec/changes/add-sms-notifications/proposal.md": "## Why\n\nCustomers miss billing emails; SMS reaches them.\n\n" +
		"## What Changes\n\n- Send an SMS when an invoice is paid, when the customer opted in.\n\n## Impact\n\n- Affected specs: notifications\n- Affected code: src/notifications/\n",
	"openspec/changes/add-sms-notifications/specs/notifications/spec.md": "## ADDED Requirements\n\n### Requirement: SMS on paid invoice\n" +
		"The system SHALL send an SMS when an invoice is paid and the customer opted in.\n\n#### Scenario: Opted in\n- **WHEN** an invoice is paid\n- **THEN** one SMS is sent\n",
	"openspec/changes/add-sms-notifications/tasks.md": "## 1. Provider\n\n" +
		"- [x] 1.1 Add the SMS client in `src/notifications/sms.ts`\n" +
		"- [x] 1.2 Read the provider key from the environment\n" +
		"  - [ ] 1.2.1 Fail fast when the key is missing\n\n" +
		"## 2. Sending\n\n" +
		"- [x] 2.1 Send on invoice paid in `src/notifications/events.ts`\n" +
		"- [ ] 2.2 Respect the opt-in flag\n" +
		"  - _Requirements: SMS on paid invoice_\n\n" +
		"## 3. Verification\n\n" +
		"- [ ] 3.1 Run `npx vitest` and add the opt-in scenario\n",
	"src/notifications/sms.ts":    "export const sendSms = async (to: string, body: string) => ({ to, body });\n",
	"src/notifications/events.ts": "import { sendSms } from './sms';\nexport const onInvoicePaid = (to: string) => sendSms(to, 'Invoice paid');\n",
}

// openspecStep commits the OpenSpec change 45 minutes ago.
func openspecStep() step {
	var paths []string
	for p := range openspecFiles {
		paths = append(paths, p)
	}
	return step{ago: 45 * time.Minute, author: ana, message: "add-sms-notifications: 1.1, 1.2, 2.1 done", paths: paths,
		edit: func(dir string) error {
			for p, content := range openspecFiles {
				if err := gitfixture.WriteFile(dir, p, content); err != nil {
					return err
				}
			}
			return nil
		}}
}
