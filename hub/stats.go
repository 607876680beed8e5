package hub

import (
	"context"
	"fmt"

	"github.com/ainb/hive/store/sqlite"
)

// Stats are counts from a hub's projection, for `hive status --data DIR`.
type Stats struct {
	Members  int `json:"members"`
	Agents   int `json:"agents"`
	Channels int `json:"channels"`
	Events   int `json:"events"`
}

// ReadStats counts members, agents, channels and stored events in the
// database at dbPath, read-only (the hub may be running).
func ReadStats(ctx context.Context, dbPath string) (Stats, error) {
	var s Stats
	db, err := sqlite.OpenReadOnly(dbPath)
	if err != nil {
		return s, err
	}
	defer db.Close()
	for _, q := range []struct {
		table string
		n     *int
	}{{"hub_members", &s.Members}, {"agents", &s.Agents}, {"channels", &s.Channels}, {"events", &s.Events}} {
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM "+q.table).Scan(q.n); err != nil {
			return s, fmt.Errorf("%s: %w", dbPath, err)
		}
	}
	return s, nil
}
