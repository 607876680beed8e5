package store

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// Querier runs SQL with ? placeholders: a Reader, or a WriteTx.
type Querier interface {
	Query(q string, args ...any) (*sql.Rows, error)
	QueryRow(q string, args ...any) *sql.Row
}

// EachOfKinds calls fn with every stored event of kinds ks in commit order
// (sequence number), reading a page at a time, so the log is never all in
// memory.
func EachOfKinds(q Querier, ks []int, fn func(*nostr.Event) error) error {
	ph := strings.TrimSuffix(strings.Repeat("?,", len(ks)), ",")
	args := make([]any, len(ks), len(ks)+1)
	for i, k := range ks {
		args[i] = k
	}
	const page = 64
	query := "SELECT seq, raw FROM events WHERE kind IN (" + ph + ") AND seq > ? ORDER BY seq LIMIT " + fmt.Sprint(page)
	var after int64
	for {
		rows, err := q.Query(query, append(args, after)...)
		if err != nil {
			return err
		}
		var evs []*nostr.Event
		for rows.Next() {
			var raw string
			if err := rows.Scan(&after, &raw); err != nil {
				rows.Close()
				return err
			}
			ev := &nostr.Event{}
			if err := ev.UnmarshalJSON([]byte(raw)); err != nil {
				rows.Close()
				return err
			}
			evs = append(evs, ev)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, ev := range evs {
			if err := fn(ev); err != nil {
				return err
			}
		}
		if len(evs) < page {
			return nil
		}
	}
}

// CopyRows copies every event row of the log live reads into the log tx
// writes, as plain rows: no rules run, nothing is indexed (a scratch copy
// to replay state from).
func CopyRows(live Querier, tx WriteTx) error {
	rows, err := live.Query(`SELECT seq, id, pubkey, created_at, kind, d, expiration, raw FROM events ORDER BY seq`)
	if err != nil {
		return fmt.Errorf("reading the log: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var seq, at int64
		var kind int
		var id, pk, raw string
		var d sql.NullString
		var exp sql.NullInt64
		if err := rows.Scan(&seq, &id, &pk, &at, &kind, &d, &exp, &raw); err != nil {
			return err
		}
		if _, err := tx.Exec(`INSERT INTO events (seq, id, pubkey, created_at, kind, d, expiration, raw) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, seq, id, pk, at, kind, d, exp, raw); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CountStored is the number of events in the log.
func CountStored(q Querier) (int64, error) {
	var n int64
	err := q.QueryRow(`SELECT COUNT(*) FROM events`).Scan(&n)
	return n, err
}

// EventByID loads a stored event by id, or nil when it is not stored.
// Inside a commit batch (the projector's transaction) it first looks among
// the events the batch's saves name, read with the batch's first query.
func EventByID(q Querier, id string) (*nostr.Event, error) {
	raw, found := "", false
	if n, ok := q.(namedTx); ok {
		raw, found = n.storedRaw(id)
	}
	if !found {
		err := q.QueryRow(`SELECT raw FROM events WHERE id = ?`, id).Scan(&raw)
		if errors.Is(err, sql.ErrNoRows) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
	ev := &nostr.Event{}
	if err := ev.UnmarshalJSON([]byte(raw)); err != nil {
		return nil, fmt.Errorf("stored event %s is corrupt: %w", id, err)
	}
	return ev, nil
}

// StoredChannels maps those of ids that are stored to the channel recorded
// for each ("" for none), 256 ids to a query.
func StoredChannels(q Querier, ids []string) (map[string]string, error) {
	out := map[string]string{}
	err := eachIn(q, `SELECT id, channel FROM events WHERE id IN (%s)`, ids, func(r *sql.Rows) error {
		var id string
		var ch sql.NullString
		err := r.Scan(&id, &ch)
		out[id] = ch.String
		return err
	})
	return out, err
}

// Authored is who signed a stored event and its kind.
type Authored struct {
	PubKey string
	Kind   int
}

// AuthorsOf maps those of ids that are stored to their author and kind,
// 256 ids to a query.
func AuthorsOf(q Querier, ids []string) (map[string]Authored, error) {
	out := map[string]Authored{}
	err := eachIn(q, `SELECT id, pubkey, kind FROM events WHERE id IN (%s)`, ids, func(r *sql.Rows) error {
		var id string
		var a Authored
		err := r.Scan(&id, &a.PubKey, &a.Kind)
		out[id] = a
		return err
	})
	return out, err
}

// HasAtOrBefore reports whether pubkey has a stored event of kind created
// at or before at.
func HasAtOrBefore(q Querier, pubkey string, kind int, at int64) (bool, error) {
	var found bool
	err := q.QueryRow(`SELECT EXISTS (SELECT 1 FROM events WHERE pubkey = ? AND kind = ? AND created_at <= ?)`, pubkey, kind, at).Scan(&found)
	return found, err
}

// eachIn runs query (its %s the placeholders of a page of ids, after args)
// for ids, 256 at a time, calling fn for every row.
func eachIn(q Querier, query string, ids []string, fn func(*sql.Rows) error, args ...any) error {
	const page = 256
	for len(ids) > 0 {
		n := min(len(ids), page)
		all := append([]any{}, args...)
		for _, id := range ids[:n] {
			all = append(all, id)
		}
		rows, err := q.Query(fmt.Sprintf(query, strings.TrimSuffix(strings.Repeat("?,", n), ",")), all...)
		if err != nil {
			return err
		}
		for rows.Next() {
			if err := fn(rows); err != nil {
				rows.Close()
				return err
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}
