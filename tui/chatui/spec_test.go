package chatui

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ainb/hive/spec"
)

// spec/cli.md lists every slash command and every rebindable action.
func TestSpecListsCommandsAndKeys(t *testing.T) {
	doc := spec.Text(t, "cli.md")
	for _, c := range commands() {
		if !regexp.MustCompile("`/" + c.name + "[ `]").MatchString(doc) {
			t.Errorf("spec/cli.md does not list /%s", c.name)
		}
	}
	for _, a := range actions() {
		if !regexp.MustCompile(`\| ([a-z_]+ / )*` + a.name + `( / [a-z_]+)* \|`).MatchString(doc) {
			t.Errorf("spec/cli.md has no key table row for %s", a.name)
		}
	}
	if !strings.Contains(doc, "### hive chat") {
		t.Error("no hive chat section")
	}
}
