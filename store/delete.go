package store

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// applyDeletion removes what a NIP-09 deletion names, if its author wrote it:
// events by id (never other deletions), all of them found with one query,
// and addresses spelled canonically.
func (c *Core) applyDeletion(tx WriteTx, del *nostr.Event) error {
	var ids []string
	for _, tag := range del.Tags {
		if len(tag) >= 2 && tag[0] == "e" && c.db.Storable(tag[1]) {
			ids = append(ids, tag[1])
		}
	}
	if len(ids) > 0 {
		var a Args
		cond := c.db.In(&a, "id", ids, false)
		if err := c.deleteWhere(tx, cond+` AND pubkey = ? AND kind != ?`, append(a, del.PubKey, kinds.Deletion)...); err != nil {
			return err
		}
	}
	for _, tag := range del.Tags {
		if len(tag) < 2 || tag[0] != "a" {
			continue
		}
		addr, err := kinds.ParseAddress(tag[1])
		if err != nil || addr.PubKey != del.PubKey {
			continue // only the canonical spelling names an address
		}
		if err := c.deleteWhere(tx, `pubkey = ? AND kind = ? AND d = ? AND created_at <= ?`, addr.PubKey, addr.Kind, addr.D, int64(del.CreatedAt)); err != nil {
			return err
		}
	}
	return nil
}

func (c *Core) deleteByID(tx WriteTx, id string) error {
	if !c.db.Storable(id) {
		return nil // nothing so spelled is stored
	}
	var seq int64
	err := tx.QueryRow(`SELECT seq FROM events WHERE id = ?`, id).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("error: %w", err)
	}
	return c.deleteSeqs(tx, []int64{seq})
}

// deleteWhere deletes every event matching the condition, with its tags.
func (c *Core) deleteWhere(tx WriteTx, cond string, args ...any) error {
	rows, err := tx.Query(`SELECT seq FROM events WHERE `+cond, args...)
	if err != nil {
		return fmt.Errorf("error: %w", err)
	}
	var seqs []int64
	for rows.Next() {
		var seq int64
		if err := rows.Scan(&seq); err != nil {
			rows.Close()
			return fmt.Errorf("error: %w", err)
		}
		seqs = append(seqs, seq)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("error: %w", err)
	}
	if len(seqs) == 0 {
		return nil
	}
	return c.deleteSeqs(tx, seqs)
}
