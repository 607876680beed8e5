// Package habits holds tests over the repository's own test files: the
// habits spec'd in the developers' guide that a reviewer would otherwise have
// to check by eye.
package habits

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxBareSleeps is how many time.Sleep calls outside a loop the tests may
// keep, each explained by a "bare sleep:" comment.
const maxBareSleeps = 10

// bareSleepMarker starts the comment that says why a bare sleep has no signal
// to wait for instead.
const bareSleepMarker = "bare sleep:"

// sleep is one time.Sleep call in a test file.
type sleep struct {
	pos       token.Position
	explained bool
}

// moduleRoot is the directory holding go.mod, above this package.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above", dir)
		}
		dir = up
	}
}

// testFiles lists the module's *_test.go files, relative to root, leaving out
// node_modules and hidden directories.
func testFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), "_test.go") {
			rel, _ := filepath.Rel(root, path)
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// bareSleeps returns the time.Sleep calls of one file that no for or range
// statement of their own function encloses (a sleep inside a loop is a poll
// interval; a function literal starts a new function).
func bareSleeps(fset *token.FileSet, f *ast.File) []sleep {
	explainedLines := map[int]bool{}
	for _, g := range f.Comments {
		if strings.Contains(g.Text(), bareSleepMarker) {
			// The comment explains a sleep on its last line or the line after.
			end := fset.Position(g.End()).Line
			explainedLines[end] = true
			explainedLines[end+1] = true
		}
	}
	var found []sleep
	var stack []ast.Node
	ast.Inspect(f, func(n ast.Node) bool {
		if n == nil {
			stack = stack[:len(stack)-1]
			return true
		}
		stack = append(stack, n)
		if !isTimeSleep(n) {
			return true
		}
		for i := len(stack) - 2; i >= 0; i-- {
			switch stack[i].(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				return true
			case *ast.FuncLit, *ast.FuncDecl:
				pos := fset.Position(n.Pos())
				found = append(found, sleep{pos: pos, explained: explainedLines[pos.Line]})
				return true
			}
		}
		return true
	})
	return found
}

// isTimeSleep reports whether n is a call of time.Sleep.
func isTimeSleep(n ast.Node) bool {
	call, ok := n.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "Sleep" {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	return ok && x.Name == "time"
}

// TestBareSleepsAreFewAndExplained: tests wait for a signal (EOSE, a log
// line, a receipt, an explicit created_at), not for the clock. At most
// maxBareSleeps sleeps outside a poll loop are left, each with a comment
// saying why no signal exists. -v lists them all.
func TestBareSleepsAreFewAndExplained(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	var all []sleep
	for _, rel := range testFiles(t, root) {
		f, err := parser.ParseFile(fset, filepath.Join(root, rel), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range bareSleeps(fset, f) {
			s.pos.Filename = rel
			all = append(all, s)
		}
	}
	for _, s := range all {
		t.Logf("bare sleep at %s:%d (explained: %v)", s.pos.Filename, s.pos.Line, s.explained)
		if !s.explained {
			t.Errorf("%s:%d: time.Sleep outside a poll loop without a %q comment saying why no signal exists", s.pos.Filename, s.pos.Line, bareSleepMarker)
		}
	}
	t.Logf("%d bare sleeps", len(all))
	if len(all) > maxBareSleeps {
		t.Errorf("%d bare sleeps in the tests, at most %d: wait for a signal instead", len(all), maxBareSleeps)
	}
}

// TestTestFilesNamedForSubject: a test file is named for what it tests, not
// for when it was written ("more", "extra", "new", a number).
func TestTestFilesNamedForSubject(t *testing.T) {
	root := moduleRoot(t)
	for _, rel := range testFiles(t, root) {
		base := strings.TrimSuffix(filepath.Base(rel), "_test.go")
		for _, word := range strings.Split(base, "_") {
			switch word {
			case "more", "extra", "new", "misc", "other", "2", "3":
				t.Errorf("%s: named %q, not for what it tests", rel, word)
			}
		}
	}
}
