package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

// sql renders the scope as one condition on the events row e of a query
// for kinds ks (nil: any kind), or "" when the scope cannot exclude any row
// of those kinds. Only the gates of the kinds asked for are rendered.
func scopeSQL(sc *store.Scope, ks []int) (string, []any) {
	authorOnly, recipientOnly, other := sc.Gates(ks)
	var cases []string
	var args []any
	if len(authorOnly) > 0 {
		cases = append(cases, "WHEN e.kind IN ("+intList(authorOnly)+") THEN e.pubkey = ?")
		args = append(args, sc.Reader)
	}
	if len(recipientOnly) > 0 {
		cases = append(cases, "WHEN e.kind IN ("+intList(recipientOnly)+") THEN (e.pubkey = ? OR EXISTS "+
			"(SELECT 1 FROM tags s WHERE s.name = 'p' AND s.value = ? AND s.created_at = e.created_at AND s.seq = e.seq))")
		args = append(args, sc.Reader, sc.Reader)
	}
	channel := ""
	if other && len(sc.Hidden) > 0 {
		var list string
		list, args = hiddenList(sc.Hidden, args)
		channel = "(e.channel IS NULL OR e.channel NOT IN (" + list + "))"
	}
	switch {
	case len(cases) == 0:
		return channel, args
	case channel == "":
		channel = "1"
	}
	return "(CASE " + strings.Join(cases, " ") + " ELSE " + channel + " END)", args
}

// hiddenList renders the hidden channels for NOT IN: a few as placeholders
// (cheaper to test per row), padded to a power of two by repeating the last
// so that few statement shapes exist; many as one JSON array parameter.
func hiddenList(hidden []string, args []any) (string, []any) {
	if len(hidden) > 64 {
		j, _ := json.Marshal(hidden)
		return "SELECT value FROM json_each(?)", append(args, string(j))
	}
	n := 1
	for n < len(hidden) {
		n *= 2
	}
	for i := 0; i < n; i++ {
		args = append(args, hidden[min(i, len(hidden)-1)])
	}
	return placeholders(n), args
}

func intList(ks []int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = strconv.Itoa(k)
	}
	return strings.Join(s, ",")
}

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

// Unreadable returns the first of ids that is stored but outside scope, or "".
func (s *Store) Unreadable(ctx context.Context, ids []string, scope *store.Scope) (string, error) {
	if scope == nil || len(ids) == 0 {
		return "", nil
	}
	w, args := scopeSQL(scope, nil)
	if w == "" {
		return "", nil
	}
	q := "SELECT e.id FROM events e WHERE e.id IN (" + placeholders(len(ids)) + ") AND NOT " + w + " LIMIT 1"
	all := make([]any, 0, len(ids)+len(args))
	for _, id := range ids {
		all = append(all, id)
	}
	st, cached, err := s.readStmt(q)
	if err != nil {
		return "", err
	}
	if !cached {
		defer st.Close()
	}
	var id string
	err = st.QueryRowContext(context.WithoutCancel(ctx), append(all, args...)...).Scan(&id) // one short step: see QueryRaw
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return id, err
}
