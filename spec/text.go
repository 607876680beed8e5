// Package spec embeds hive's specification texts (the Markdown files
// beside this one), so that a package's tests can tie what a spec states
// to the code that enforces it without each reading the file itself.
package spec

import (
	"embed"
	"strings"
	"testing"
)

//go:embed *.md
var texts embed.FS

// Text is the spec file name (for example "protocol.md"); the test fails
// at once if there is no such file.
func Text(t testing.TB, name string) string {
	t.Helper()
	b, err := texts.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Flat is Text with every run of white space folded to one space, so that a
// sentence can be found however the file wraps it.
func Flat(t testing.TB, name string) string {
	t.Helper()
	return fold(Text(t, name))
}

// Says fails the test once for each of want that the spec file name does
// not say; white space is folded on both sides.
func Says(t testing.TB, name string, want ...string) {
	t.Helper()
	flat := Flat(t, name)
	for _, w := range want {
		if !strings.Contains(flat, fold(w)) {
			t.Errorf("spec/%s does not say %q", name, w)
		}
	}
}

func fold(s string) string { return strings.Join(strings.Fields(s), " ") }
