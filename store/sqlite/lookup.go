package sqlite

import (
	"strings"

	"github.com/ainb/hive/store"
)

// lookupBranches is the most values Lookup gives a select each.
const lookupBranches = 8

// Lookup renders a few values as one select each, joined by UNION ALL, so
// each is one probe of col's index. SQLite drives an index lookup from an
// IN list through a temporary B-tree of the values, a new page cache each
// time, whose memory the C allocator hands back to the system at its end:
// on the writer's path (a batch's deletion check, an event's channel
// lookup) that was page faults on every statement. The count is padded to
// a power of two by repeating the last value, so that few statement shapes
// exist; more values than lookupBranches go through In.
func (d *db) Lookup(a *store.Args, col string, vals []string, sel func(cond string) string) string {
	if len(vals) > lookupBranches {
		return sel(d.In(a, col, vals, false))
	}
	n := 1
	for n < len(vals) {
		n *= 2
	}
	parts := make([]string, n)
	for i := range parts {
		parts[i] = sel(col + " = " + a.Add(vals[min(i, len(vals)-1)]))
	}
	return strings.Join(parts, " UNION ALL ")
}
