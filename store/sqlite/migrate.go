package sqlite

import (
	"database/sql"
	"fmt"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// migrateChannel adds the channel column to a log written before it existed
// and fills it from the stored events, oldest first so targets come before
// the reactions to them.
func migrateChannel(db *sql.DB) error {
	var has bool
	if err := db.QueryRow(`SELECT COUNT(*) > 0 FROM pragma_table_info('events') WHERE name = 'channel'`).Scan(&has); err != nil {
		return err
	}
	if has {
		return nil
	}
	tx, err := db.Begin()
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`ALTER TABLE events ADD COLUMN channel TEXT`); err != nil {
		return err
	}
	rows, err := tx.Query(`SELECT seq, raw FROM events ORDER BY seq`)
	if err != nil {
		return err
	}
	chans := map[string]string{}
	type upd struct {
		seq int64
		ch  string
	}
	var ups []upd
	for rows.Next() {
		var seq int64
		var raw string
		if err := rows.Scan(&seq, &raw); err != nil {
			rows.Close()
			return err
		}
		ev := &nostr.Event{}
		if ev.UnmarshalJSON([]byte(raw)) != nil {
			continue
		}
		if ch := store.ChannelOf(ev, func(id string) (string, bool) { ch, ok := chans[id]; return ch, ok }); ch != "" {
			chans[ev.ID] = ch
			ups = append(ups, upd{seq, ch})
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, u := range ups {
		if _, err := tx.Exec(`UPDATE events SET channel = ? WHERE seq = ?`, u.ch, u.seq); err != nil {
			return fmt.Errorf("recording channels: %w", err)
		}
	}
	return tx.Commit()
}
