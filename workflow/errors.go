package workflow

import (
	"fmt"
	"sort"
	"strings"
)

// Pos is a 1-based line and column in a definition file. Columns count
// characters (runes), as editors do.
type Pos struct {
	Line int `json:"line"`
	Col  int `json:"col"`
}

// Error is one problem found in a definition: where, what, and the fix.
type Error struct {
	Pos
	Message string `json:"message"`
}

func (e Error) String() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Message) }

// Errors are every problem of one definition file, in file order.
// At most MaxErrors are kept; Dropped counts the others.
type Errors struct {
	File    string
	List    []Error
	Dropped int
}

func (e *Errors) Error() string {
	lines := make([]string, len(e.List))
	for i, x := range e.List {
		lines[i] = e.File + ":" + x.String()
	}
	if e.Dropped > 0 {
		lines = append(lines, fmt.Sprintf("%s: %d more problems not shown", e.File, e.Dropped))
	}
	return strings.Join(lines, "\n")
}

// add records a problem at p.
func (e *Errors) add(p Pos, format string, args ...any) {
	if len(e.List) >= MaxErrors {
		e.Dropped++
		return
	}
	e.List = append(e.List, Error{Pos: p, Message: fmt.Sprintf(format, args...)})
}

// sorted puts the problems in file order (a stable sort: problems at one
// position keep the order they were found in).
func (e *Errors) sorted() {
	sort.SliceStable(e.List, func(i, j int) bool {
		a, b := e.List[i].Pos, e.List[j].Pos
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
}
