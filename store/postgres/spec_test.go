package postgres

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/ainb/hive/store"
)

// spec/storage.md names the lock, the notification channel and the poll
// interval the code uses.
func TestSpecNamesTheLockAndTheChannel(t *testing.T) {
	raw, err := os.ReadFile("../../spec/storage.md")
	if err != nil {
		t.Fatal(err)
	}
	spec := string(raw)
	var o store.Options
	o.Defaults()
	for _, want := range []string{
		fmt.Sprintf("pg_advisory_xact_lock(0x%x)", writeLock),
		"NOTIFY " + Channel,
		fmt.Sprintf("%d ms", o.FollowPoll.Milliseconds()),
		"READ COMMITTED",
	} {
		if !strings.Contains(spec, want) {
			t.Errorf("spec/storage.md does not say %q", want)
		}
	}
}
