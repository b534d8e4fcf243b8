package main

import (
	"time"

	"github.com/orchestrate-dev/orchestrate/internal/gitfixture"
)

// speckitFiles are a spec-kit (V1 layout) feature interrupted halfway
// through /speckit.implement: two of five tasks ticked.
var speckitFiles = map[string]string{
	".specify/memory/constitution.md":            "# Project Constitution\n\n## Core Principles\n\n### I. Tests first\n",
	"specs/004-csv-export/spec.md":               "# Feature Specification: CSV export of invoices\n\n**Feature Branch**: `004-csv-export`\n**Status**: Draft\n",
	"specs/004-csv-export/plan.md":               "# Implementation Plan: CSV export of invoices\n\n**Branch**: `004-csv-export` | **Spec**: [spec.md](./spec.md)\n",
	"specs/004-csv-export/contracts/export.yaml": "openapi: 3.0.0\ninfo:\n  title: Invoice export\n  version: 0.1.0\n",
	"specs/004-csv-export/tasks.md": "# Tasks: CSV export of invoices\n\n" +
		"**Input**: Design documents from `/specs/004-csv-export/`\n\n" +
		"## Phase 1: Setup\n\n" +
		"- [x] T001 Create the export module in `src/billing/export.ts`\n\n" +
		"## Phase 2: User Story 1 - Download invoices as CSV (Priority: P1) 🎯 MVP\n\n" +
		"- [x] T002 [P] [US1] Contract test for GET /invoices.csv in tests/billing/export.test.ts\n" +
		"- [ ] T003 [US1] Implement the CSV writer in `src/billing/export.ts`\n" +
		"- [ ] T004 [US1] Add the download route in src/billing/routes.ts\n\n" +
		"## Phase 3: Polish\n\n" +
		"- [ ] T005 [P] Document the columns in docs/billing-export.md\n",
}

// speckitStep commits the spec-kit feature 35 minutes ago.
func speckitStep() step {
	var paths []string
	for p := range speckitFiles {
		paths = append(paths, p)
	}
	return step{ago: 35 * time.Minute, author: "Bruno Costa <bruno@example.com>", message: "004-csv-export: T001-T002 done", paths: paths,
		edit: func(dir string) error {
			for p, content := range speckitFiles {
				if err := gitfixture.WriteFile(dir, p, content); err != nil {
					return err
				}
			}
			return nil
		}}
}
