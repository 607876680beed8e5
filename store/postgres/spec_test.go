package postgres

import (
	"fmt"
	"testing"

	"github.com/ainb/hive/spec"
	"github.com/ainb/hive/store"
)

// spec/storage.md names the lock, the notification channel and the poll
// interval the code uses.
func TestSpecNamesTheLockAndTheChannel(t *testing.T) {
	var o store.Options
	o.Defaults()
	spec.Says(t, "storage.md",
		fmt.Sprintf("pg_advisory_xact_lock(0x%x)", writeLock),
		"NOTIFY "+Channel,
		fmt.Sprintf("%d ms", o.FollowPoll.Milliseconds()),
		"READ COMMITTED",
	)
}
