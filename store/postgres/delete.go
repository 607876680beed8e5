package postgres

import (
	"fmt"

	"github.com/ainb/hive/store"
)

// DeleteSeqs deletes events and their tag rows (found by the tags_seq index).
func (d *db) DeleteSeqs(tx store.WriteTx, seqs []int64) error {
	if _, err := tx.Exec(`DELETE FROM tags WHERE seq = ANY(?)`, seqs); err != nil {
		return fmt.Errorf("error: %w", err)
	}
	if _, err := tx.Exec(`DELETE FROM events WHERE seq = ANY(?)`, seqs); err != nil {
		return fmt.Errorf("error: %w", err)
	}
	return nil
}
