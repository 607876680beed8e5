package sqlite

import (
	"fmt"
	"strings"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// Insert stores the event row, then its tag rows 32 to a statement; the
// event's sequence number is its rowid.
func (d *db) Insert(tx store.WriteTx, row store.Row) (int64, error) {
	ev := row.Event
	res, err := tx.Exec(`INSERT INTO events (id, pubkey, created_at, kind, d, expiration, raw, channel) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`,
		ev.ID, ev.PubKey, int64(ev.CreatedAt), ev.Kind, row.D, row.Expiration, row.Raw, row.Channel)
	if err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return 0, store.ErrDuplicate
	}
	seq, err := res.LastInsertId()
	if err != nil {
		return 0, fmt.Errorf("insert: %w", err)
	}
	tags := row.Tags
	for len(tags) > 0 {
		n := min(len(tags), 32)
		args := make([]any, 0, 4*n)
		for _, k := range tags[:n] {
			args = append(args, k[0], k[1], int64(ev.CreatedAt), seq)
		}
		q := "INSERT INTO tags (name, value, created_at, seq) VALUES " + strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?),", n), ",")
		if _, err := tx.Exec(q, args...); err != nil {
			return 0, fmt.Errorf("insert tags: %w", err)
		}
		tags = tags[n:]
	}
	return seq, nil
}

// Storable: SQLite text holds any bytes.
func (d *db) Storable(string) bool { return true }

// Refuse: SQLite holds every event.
func (d *db) Refuse(*nostr.Event) error { return nil }
