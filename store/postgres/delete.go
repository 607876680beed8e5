package postgres

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// addrDeleted reports whether a NIP-09 deletion by ev's author covers ev's
// address at or after ev's created_at.
func addrDeleted(tx *Tx, ev *nostr.Event) (bool, error) {
	addr := fmt.Sprintf("%d:%s:%s", ev.Kind, ev.PubKey, ev.Tags.GetD())
	var gone bool
	err := tx.QueryRow(`SELECT EXISTS (SELECT 1 FROM tags t JOIN events e ON e.seq = t.seq
		WHERE t.name = 'a' AND t.value = $1 AND e.kind = $2 AND e.pubkey = $3 AND e.created_at >= $4)`,
		addr, kinds.Deletion, ev.PubKey, int64(ev.CreatedAt)).Scan(&gone)
	return gone, err
}

// applyDeletion removes what a NIP-09 deletion names, if its author wrote it:
// events by id (never other deletions), and addresses spelled canonically.
func applyDeletion(tx *Tx, del *nostr.Event) error {
	for _, tag := range del.Tags {
		if len(tag) < 2 {
			continue
		}
		switch tag[0] {
		case "e":
			var seq int64
			err := tx.QueryRow(`SELECT seq FROM events WHERE id = $1 AND pubkey = $2 AND kind != $3`, tag[1], del.PubKey, kinds.Deletion).Scan(&seq)
			if errors.Is(err, sql.ErrNoRows) {
				continue
			}
			if err != nil {
				return fmt.Errorf("error: %w", err)
			}
			if err := deleteSeq(tx, seq); err != nil {
				return err
			}
		case "a":
			addr, err := kinds.ParseAddress(tag[1])
			if err != nil || addr.PubKey != del.PubKey {
				continue // only the canonical spelling names an address
			}
			if err := deleteWhere(tx, `pubkey = $1 AND kind = $2 AND d = $3 AND created_at <= $4`, addr.PubKey, addr.Kind, addr.D, int64(del.CreatedAt)); err != nil {
				return err
			}
		}
	}
	return nil
}

func deleteByID(tx *Tx, id string) error {
	var seq int64
	err := tx.QueryRow(`SELECT seq FROM events WHERE id = $1`, id).Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("error: %w", err)
	}
	return deleteSeq(tx, seq)
}

// deleteSeq deletes one event and its tag rows.
func deleteSeq(tx *Tx, seq int64) error {
	if _, err := tx.Exec(`DELETE FROM tags WHERE seq = $1`, seq); err != nil {
		return fmt.Errorf("error: %w", err)
	}
	if _, err := tx.Exec(`DELETE FROM events WHERE seq = $1`, seq); err != nil {
		return fmt.Errorf("error: %w", err)
	}
	return nil
}

// deleteWhere deletes every event matching the condition, with its tags.
func deleteWhere(tx *Tx, cond string, args ...any) error {
	if _, err := tx.Exec(`DELETE FROM tags WHERE seq IN (SELECT seq FROM events WHERE `+cond+`)`, args...); err != nil {
		return fmt.Errorf("error: %w", err)
	}
	if _, err := tx.Exec(`DELETE FROM events WHERE `+cond, args...); err != nil {
		return fmt.Errorf("error: %w", err)
	}
	return nil
}
