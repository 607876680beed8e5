package chatui

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// spec/cli.md lists every slash command and every rebindable action.
func TestSpecListsCommandsAndKeys(t *testing.T) {
	b, err := os.ReadFile("../../spec/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	spec := string(b)
	for _, c := range commands {
		if !regexp.MustCompile("`/" + c.name + "[ `]").MatchString(spec) {
			t.Errorf("spec/cli.md does not list /%s", c.name)
		}
	}
	for _, a := range actions {
		if !regexp.MustCompile(`\| ([a-z_]+ / )*` + a.name + `( / [a-z_]+)* \|`).MatchString(spec) {
			t.Errorf("spec/cli.md has no key table row for %s", a.name)
		}
	}
	if !strings.Contains(spec, "### hive chat") {
		t.Error("no hive chat section")
	}
}
