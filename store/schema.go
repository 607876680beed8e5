package store

// EventIndexes are the events table's indexes, the same SQL on every backend
// (each writes its own tables, whose column types differ).
func EventIndexes() []string {
	return []string{
		`CREATE INDEX IF NOT EXISTS events_created ON events (created_at)`,
		`CREATE INDEX IF NOT EXISTS events_pubkey ON events (pubkey, created_at)`,
		`CREATE INDEX IF NOT EXISTS events_kind ON events (kind, created_at)`,
		`CREATE INDEX IF NOT EXISTS events_addr ON events (pubkey, kind, d) WHERE d IS NOT NULL`,
		`CREATE INDEX IF NOT EXISTS events_expiration ON events (expiration) WHERE expiration IS NOT NULL`,
	}
}
