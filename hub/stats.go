package hub

import (
	"context"
	"fmt"

	"github.com/ainb/hive/store"
)

// Stats are counts from a hub's log and projections, for `hive status --data DIR`.
type Stats struct {
	Members  int `json:"members"`
	Agents   int `json:"agents"`
	Channels int `json:"channels"`
	Events   int `json:"events"`
	// Search is how far the search index of the log is built (empty when
	// the log has none yet: a hub that starts builds it).
	Search *store.SearchProgress `json:"search_index,omitempty"`
}

// ReadStats counts members, agents, channels and stored events of a hub's
// log, read through q (a read-only connection: the hub may be running),
// and reads the search index's progress.
func ReadStats(ctx context.Context, q store.Reader) (Stats, error) {
	var s Stats
	for _, c := range []struct {
		table string
		n     *int
	}{{"hub_members", &s.Members}, {"agents", &s.Agents}, {"channels", &s.Channels}} {
		if err := q.QueryRow("SELECT count(*) FROM " + c.table).Scan(c.n); err != nil {
			return s, fmt.Errorf("%s: %w", c.table, err)
		}
	}
	n, err := store.CountStored(q)
	if err != nil {
		return s, fmt.Errorf("events: %w", err)
	}
	s.Events = int(n)
	if p, err := store.ReadSearchProgress(ctx, q); err == nil {
		s.Search = &p
	}
	return s, nil
}
