package sqlite

import (
	"fmt"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// DeleteSeqs deletes events and their tag rows. The tag index is keyed by
// (name, value, created_at, seq) with no index on seq alone, so each event's
// tag rows are found from the event itself.
func (d *db) DeleteSeqs(tx store.WriteTx, seqs []int64) error {
	for _, seq := range seqs {
		var raw string
		if err := tx.QueryRow(`SELECT raw FROM events WHERE seq = ?`, seq).Scan(&raw); err != nil {
			return fmt.Errorf("error: %w", err)
		}
		ev := &nostr.Event{}
		if err := ev.UnmarshalJSON([]byte(raw)); err != nil {
			return fmt.Errorf("error: stored event is corrupt: %w", err)
		}
		for _, k := range store.IndexedTags(ev) {
			if _, err := tx.Exec(`DELETE FROM tags WHERE name = ? AND value = ? AND created_at = ? AND seq = ?`,
				k[0], k[1], int64(ev.CreatedAt), seq); err != nil {
				return fmt.Errorf("error: %w", err)
			}
		}
		if _, err := tx.Exec(`DELETE FROM events WHERE seq = ?`, seq); err != nil {
			return fmt.Errorf("error: %w", err)
		}
	}
	return nil
}
