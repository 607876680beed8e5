package store

import (
	"database/sql"
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
