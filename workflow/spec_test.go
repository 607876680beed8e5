package workflow

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ainb/hive/workflow/expression"
)

// spec/workflows.md's key table is Keys, its list of actions is Actions,
// and its environment table names the trigger's fields.
func TestSpecKeys(t *testing.T) {
	b, err := os.ReadFile("../spec/workflows.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	_, table, _ := strings.Cut(doc, "<!-- keys -->")
	table, _, _ = strings.Cut(table, "<!-- /keys -->")
	code := regexp.MustCompile("`([a-z_]+)`")
	seen := map[string]bool{}
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || strings.TrimSpace(cells[1]) == "mapping" || strings.HasPrefix(strings.TrimSpace(cells[1]), "---") {
			continue
		}
		name := strings.TrimSpace(cells[1])
		var keys []string
		for _, m := range code.FindAllStringSubmatch(cells[2], -1) {
			keys = append(keys, m[1])
		}
		if name == "webhook" {
			keys = nil // "(none: `webhook: {}` or `webhook:`)"
		}
		want, ok := Keys[name]
		if !ok || !slices.Equal(keys, want) && !(len(keys) == 0 && len(want) == 0) {
			t.Errorf("spec row %s: %v, code %v", name, keys, want)
		}
		seen[name] = true
	}
	for name := range Keys {
		if !seen[name] {
			t.Errorf("spec/workflows.md's key table has no row %s", name)
		}
	}
	if want := "The actions, one per step: `" + strings.Join(Actions, "`, `") + "`."; !strings.Contains(strings.ReplaceAll(doc, "\n", " "), want) {
		t.Errorf("spec does not list the actions as %q", want)
	}
	var fields []string
	tt := reflect.TypeOf(expression.Trigger{})
	for i := range tt.NumField() {
		fields = append(fields, "`"+tt.Field(i).Tag.Get("expr")+"`")
	}
	row := regexp.MustCompile("(?m)^\\| `trigger` \\| (.*) \\| everywhere \\|$").FindStringSubmatch(doc)
	if row == nil {
		t.Fatal("spec has no trigger row")
	}
	top := regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(row[1], "")
	if got := strings.Join(strings.Fields(strings.ReplaceAll(top, ",", " ")), ", "); got != strings.Join(fields, ", ") {
		t.Errorf("spec trigger fields %s, code %s", got, strings.Join(fields, ", "))
	}
}
