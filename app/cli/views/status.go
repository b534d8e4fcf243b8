package views

import (
	"github.com/orchestrate-dev/orchestrate/app/cli/tablefit"
	"github.com/orchestrate-dev/orchestrate/workflow"
)

// StatusRow is a row of the status table.
type StatusRow struct {
	ID, Type, Position, Age, Validation, Source string
	Life                                        string // lifecycle (lifecycle.go)
}

// Status is the status template's data: the table's rows and the widths
// of its columns (FitStatus).
type Status struct {
	Root   string
	Rows   []StatusRow
	Hidden int
	// Life is set when some row has a lifecycle other than interrupted:
	// the LIFECYCLE column is shown.
	Life bool
	W    struct{ ID, Type, Pos, Age, Val, Life int }
}

// minIDWidth is the narrowest the ID column of status gets on a narrow
// terminal before TYPE is cut (when the ids are unique that short; shorter
// ids are whole); past that, ids keep what makes them unique.
const minIDWidth = 12

// FitStatus sets the column widths of data's table, cutting its cells so a
// row fits width columns (tablefit.Fit; 0: nothing is cut).
func FitStatus(data *Status, width int) {
	n := len(data.Rows)
	ids, types, pos, ages, vals, lives, srcs := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, r := range data.Rows {
		ids[i], types[i], pos[i], ages[i], vals[i], lives[i], srcs[i] = r.ID, r.Type, r.Position, r.Age, r.Validation, r.Life, r.Source
		if lives[i] == "" {
			lives[i] = "-" // as the template shows it
		}
	}
	cols := []tablefit.Col{
		{Header: "ID", Cells: ids, Flex: true, Min: max(tablefit.UniqueWidth(ids), minIDWidth), Floor: tablefit.UniqueWidth(ids)},
		{Header: "TYPE", Cells: types, Floor: len("TYPE")}, // the id names the type too
		{Header: "POSITION", Cells: pos, Flex: true},
		{Header: "AGE", Cells: ages},
		{Header: "VALIDATION", Cells: vals},
	}
	if data.Life {
		cols = append(cols, tablefit.Col{Header: "LIFECYCLE", Cells: lives, Flex: true})
	}
	cols = append(cols, tablefit.Col{Header: "SOURCE", Cells: srcs, Flex: true, KeepEnd: true})
	ws := tablefit.Fit(cols, 2, width)
	data.W.ID, data.W.Type, data.W.Pos, data.W.Age, data.W.Val = ws[0], ws[1], ws[2], ws[3], ws[4]
	if data.Life {
		data.W.Life = ws[5]
	}
	for i := range data.Rows {
		r := &data.Rows[i]
		r.ID, r.Type, r.Position, r.Source = ids[i], types[i], pos[i], srcs[i]
		if data.Life {
			r.Life = lives[i]
		}
	}
}

// StatusWord is the short state of a candidate that is not resumable.
func StatusWord(c workflow.Candidate) string {
	if c.Status == "" {
		return "not resumable"
	}
	return c.Status
}
