package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// The search index of a log written before it existed is built in the
// background, a batch per write transaction: search_state holds the highest
// sequence number to index (the log's top at the upgrade) and how far the
// build got. New messages index themselves as they are stored.
const (
	stateTarget = "backfill_target"
	stateDone   = "backfill_done"
	// backfillBatch is how many messages one write transaction indexes.
	backfillBatch = 2000
)

// MarkSearchBackfill records, when a backend has just created the search
// index on an existing log, that the log's messages so far are still to be
// indexed. Call it in the transaction that created the index.
func MarkSearchBackfill(tx interface {
	Exec(string, ...any) (sql.Result, error)
}) error {
	_, err := tx.Exec(`INSERT INTO search_state (k, v) SELECT ?, COALESCE(MAX(seq), 0) FROM events WHERE TRUE
		ON CONFLICT (k) DO NOTHING`, stateTarget)
	if err == nil {
		_, err = tx.Exec(`INSERT INTO search_state (k, v) VALUES (?, 0) ON CONFLICT (k) DO NOTHING`, stateDone)
	}
	return err
}

// SearchProgress is how far the search index of an existing log is built:
// messages up to sequence number Done of Target are indexed.
type SearchProgress struct {
	Done   int64 `json:"done_seq"`
	Target int64 `json:"target_seq"`
}

// Ready reports whether every message is indexed.
func (p SearchProgress) Ready() bool { return p.Done >= p.Target }

// String says how far the build is, for logs and hive status.
func (p SearchProgress) String() string {
	if p.Ready() {
		return "ready"
	}
	return fmt.Sprintf("building: %.1f%% (up to event %d of %d)", 100*float64(p.Done)/float64(max(p.Target, 1)), p.Done, p.Target)
}

// ReadSearchProgress reads the build's progress from a log's database.
// It fails on a log whose index does not exist yet.
func ReadSearchProgress(ctx context.Context, q Querier) (SearchProgress, error) {
	var p SearchProgress
	rows, err := q.Query(`SELECT k, v FROM search_state`)
	if err != nil {
		return p, err
	}
	defer rows.Close()
	for rows.Next() {
		var k string
		var v int64
		if err := rows.Scan(&k, &v); err != nil {
			return p, err
		}
		switch k {
		case stateTarget:
			p.Target = v
		case stateDone:
			p.Done = v
		}
	}
	return p, rows.Err()
}

// backfill builds the index of the messages stored before it existed, one
// batch per write transaction, until done or stop is closed.
func (c *Core) backfill(stop <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	var p SearchProgress
	err := c.execIndex(ctx, func(tx WriteTx) error { return readProgress(tx, &p) })
	if err != nil || p.Ready() {
		return
	}
	c.opts.Log(fmt.Sprintf("search index: indexing the %d events stored before it existed, in the background", p.Target), nil)
	start, last := time.Now(), time.Now()
	n := 0
	for !p.Ready() {
		var indexed int
		err := c.execIndex(ctx, func(tx WriteTx) error {
			var err error
			indexed, err = c.backfillBatch(tx, &p)
			return err
		})
		if err != nil {
			if ctx.Err() == nil {
				c.opts.Log("search index: building failed; it resumes at the next start", err)
			}
			return
		}
		n += indexed
		if time.Since(last) > 5*time.Second || p.Ready() {
			last = time.Now()
			c.opts.Log(fmt.Sprintf("search index: %s, %d messages indexed in %s (%.0f/s)", p, n, time.Since(start).Round(time.Millisecond), float64(n)/time.Since(start).Seconds()), nil)
		}
	}
}

func readProgress(tx WriteTx, p *SearchProgress) error {
	for k, v := range map[string]*int64{stateTarget: &p.Target, stateDone: &p.Done} {
		if err := tx.QueryRow(`SELECT v FROM search_state WHERE k = ?`, k).Scan(v); err != nil && err != sql.ErrNoRows {
			return err
		}
	}
	return nil
}

// backfillBatch indexes the next batch of messages after p.Done by their
// current text and records the progress in the same transaction.
func (c *Core) backfillBatch(tx WriteTx, p *SearchProgress) (int, error) {
	if err := readProgress(tx, p); err != nil || p.Ready() {
		return 0, err
	}
	var a Args
	q := `SELECT e.seq, e.raw FROM events e WHERE e.seq > ` + a.Add(p.Done) + ` AND e.seq <= ` + a.Add(p.Target) +
		` AND ` + c.db.InInts(&a, "e.kind", SearchableKinds()) + ` ORDER BY e.seq LIMIT ` + fmt.Sprint(backfillBatch)
	rows, err := tx.Query(q, a...)
	if err != nil {
		return 0, err
	}
	type msg struct {
		seq int64
		ev  *nostr.Event
	}
	var msgs []msg
	var ids []string
	read, done := 0, p.Target
	for rows.Next() {
		var m msg
		var raw string
		if err := rows.Scan(&m.seq, &raw); err != nil {
			rows.Close()
			return 0, err
		}
		if read++; read == backfillBatch {
			done = m.seq
		}
		m.ev = &nostr.Event{}
		if m.ev.UnmarshalJSON([]byte(raw)) == nil {
			msgs = append(msgs, m)
			ids = append(ids, m.ev.ID)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	if len(ids) > 0 {
		over, err := c.overlays(tx.Query, ids)
		if err != nil {
			return 0, err
		}
		var texts []IndexedText
		for _, m := range msgs {
			if text, deleted := applyText(m.ev, over[m.ev.ID]); !deleted {
				// New: a message's edits since the upgrade indexed it already, with its edited text.
				texts = append(texts, IndexedText{Seq: m.seq, Text: text, Edited: text != m.ev.Content, New: true})
			}
		}
		if err := c.db.IndexText(tx, texts); err != nil {
			return 0, err
		}
	}
	if _, err := tx.Exec(`UPDATE search_state SET v = ? WHERE k = ?`, done, stateDone); err != nil {
		return 0, err
	}
	p.Done = done
	return len(msgs), nil
}
