package hub

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/spec"
)

// spec/channels.md names the same replayed kinds, tables and roles as the code.
func TestSpecMatchesCode(t *testing.T) {
	doc := spec.Flat(t, "channels.md")
	ks := kinds.StateKinds()
	var names []string
	for _, k := range ks {
		names = append(names, fmt.Sprint(k))
	}
	if want := "(kinds " + strings.Join(names, ", ") + ")"; !strings.Contains(doc, want) {
		t.Errorf("spec/channels.md should list the replayed state kinds as %q", want)
	}
	for _, tbl := range projectionTables {
		if !strings.Contains(doc, "`"+tbl+"`") {
			t.Errorf("spec/channels.md does not name projection table %s", tbl)
		}
	}
	for _, role := range channelRoles() {
		if !strings.Contains(doc, "`"+string(role)+"`") {
			t.Errorf("spec/channels.md does not name role %s", role)
		}
	}
}
