package web

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"

	"github.com/ainb/hive/spec"
)

// Every data-testid of spec/web.md's contract is in the built page (the
// bundle or index.html) as a quoted string, and so is each attribute the
// contract names: the spec and the page cannot drift apart unnoticed.
func TestContractInBuiltPage(t *testing.T) {
	doc := spec.Text(t, "web.md")
	start, end := strings.Index(doc, "<!-- contract:"), strings.Index(doc, "<!-- /contract -->")
	if start < 0 || end < start {
		t.Fatal("spec/web.md has no contract section (<!-- contract: ... --> ... <!-- /contract -->)")
	}
	var built strings.Builder
	err := fs.WalkDir(Dist(), ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(Dist(), name)
		built.Write(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	page := built.String()
	row := regexp.MustCompile("(?m)^\\| `([a-z-]+)` \\|[^|]*\\|([^|]*)\\|$")
	attr := regexp.MustCompile("`(data-[a-z-]+)`")
	rows := row.FindAllStringSubmatch(doc[start:end], -1)
	if len(rows) < 14 {
		t.Fatalf("the contract lists %d ids, want the 14 of issue 21 at least", len(rows))
	}
	for _, r := range rows {
		id := r[1]
		if !strings.Contains(page, `"`+id+`"`) && !strings.Contains(page, `'`+id+`'`) {
			t.Errorf("data-testid %q of spec/web.md is not in the built page (web/dist): rebuild with make web, or fix the spec", id)
		}
		for _, a := range attr.FindAllStringSubmatch(r[2], -1) {
			if !strings.Contains(page, a[1]) && !strings.Contains(page, "dataset."+camel(strings.TrimPrefix(a[1], "data-"))) {
				t.Errorf("attribute %s of %q (spec/web.md) is not in the built page", a[1], id)
			}
		}
	}
}

// camel is a data- attribute's dataset name: event-id -> eventId.
func camel(s string) string {
	parts := strings.Split(s, "-")
	for i := 1; i < len(parts); i++ {
		parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
	}
	return strings.Join(parts, "")
}
