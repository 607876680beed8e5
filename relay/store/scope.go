package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Scope narrows a query to the events one reader may read, inside the SQL
// itself, so a limit counts readable rows only and COUNT counts nothing else.
// A nil *Scope reads everything.
type Scope struct {
	Reader string
	// Hidden lists the channels whose events the reader may not read.
	Hidden []string
	// AuthorOnly kinds are readable by their author only; RecipientOnly kinds
	// by their author and the keys in their p tags. Other kinds are gated by
	// their channel (Hidden).
	AuthorOnly, RecipientOnly []int
}

// ChannelOf is the channel an event belongs to: its first h tag; for the
// channel snapshots 39000-39002 their d tag; for reactions and deletions
// without h, the channel recorded for the event itself if it is stored
// already, else that of the first e target that has one (so a deletion keeps
// its target's channel after the target is gone). "" when it belongs to none.
// lookup returns the channel recorded for a stored event and whether it is
// stored. The store records the result at write time; the hub's per-event
// read check uses the same function.
func ChannelOf(ev *nostr.Event, lookup func(id string) (string, bool)) string {
	if t := ev.Tags.Find("h"); t != nil {
		return t[1]
	}
	switch ev.Kind {
	case kinds.GroupMetadata, kinds.GroupAdmins, kinds.GroupMembers:
		if t := ev.Tags.Find("d"); t != nil {
			return t[1]
		}
	case kinds.Reaction, kinds.Deletion:
		if ch, stored := lookup(ev.ID); stored {
			return ch
		}
		for _, t := range ev.Tags {
			if len(t) >= 2 && t[0] == "e" {
				if ch, _ := lookup(t[1]); ch != "" {
					return ch
				}
			}
		}
	}
	return ""
}

// StoredChannel looks up the channel recorded for a stored event ("" if it
// has none); stored is false when the event is not in the log.
func StoredChannel(q interface {
	QueryRow(string, ...any) *sql.Row
}, id string) (ch string, stored bool) {
	var c sql.NullString
	if err := q.QueryRow(`SELECT channel FROM events WHERE id = ?`, id).Scan(&c); err != nil {
		return "", false
	}
	return c.String, true
}

// Gates are the read gates a query for kinds ks (nil: any kind) must
// render: the author-only and recipient-only kinds among ks, and whether any
// of ks is gated by its channel. Every backend renders these and no others.
func (sc *Scope) Gates(ks []int) (authorOnly, recipientOnly []int, channel bool) {
	if ks == nil {
		return sc.AuthorOnly, sc.RecipientOnly, true
	}
	for _, k := range ks {
		switch {
		case slices.Contains(sc.AuthorOnly, k):
			authorOnly = append(authorOnly, k)
		case slices.Contains(sc.RecipientOnly, k):
			recipientOnly = append(recipientOnly, k)
		default:
			channel = true
		}
	}
	return authorOnly, recipientOnly, channel
}

// sql renders the scope as one condition on the events row e of a query
// for kinds ks (nil: any kind), or "" when the scope cannot exclude any row
// of those kinds. Only the gates of the kinds asked for are rendered.
func (sc *Scope) sql(ks []int) (string, []any) {
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

// QueriedKinds is the union of the kinds filters ask for, nil if one asks for any.
func QueriedKinds(filters []nostr.Filter) []int {
	var ks []int
	for _, f := range filters {
		if f.Kinds == nil {
			return nil
		}
		ks = append(ks, f.Kinds...)
	}
	return ks
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
		if ch := ChannelOf(ev, func(id string) (string, bool) { ch, ok := chans[id]; return ch, ok }); ch != "" {
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
func (s *SQLite) Unreadable(ctx context.Context, ids []string, scope *Scope) (string, error) {
	if scope == nil || len(ids) == 0 {
		return "", nil
	}
	w, args := scope.sql(nil)
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
