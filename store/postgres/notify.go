package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/store"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/nbd-wtf/go-nostr"
)

// Channel is the NOTIFY channel on which every write transaction announces,
// as it commits, the highest sequence number it stored. The payload is only a
// wake-up call: followers read the log by sequence, so the 8 KB NOTIFY limit
// never matters and a missed notification costs nothing but latency.
const Channel = "hive_events"

// Committed is one event read back from the log by a follower.
type Committed struct {
	Seq int64
	store.Stored
}

// LastSeq is the highest sequence number in the log (0 when empty): where a
// follower starting now begins.
func (s *Store) LastSeq(ctx context.Context) (int64, error) {
	var seq int64
	err := s.r.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&seq)
	return seq, err
}

// Follow calls fn, in sequence order and once each, with every event committed
// after sequence after (negative: from now), by any instance, until ctx ends; local tells the
// events this store committed itself (one follower per store). It listens on
// a connection of its own; after a lost connection it reconnects and catches
// up from the log, and it also reads the log every Options.FollowPoll in
// case a notification went missing. Events replaced or deleted before it read them
// are skipped: they are no longer in the log.
func (s *Store) Follow(ctx context.Context, after int64, fn func(seq int64, ev store.Stored, local bool)) error {
	if after < 0 {
		// From now: read the top in the writer, after any batch in flight, so
		// every later commit of this store is already marked as its own.
		err := s.Exec(ctx, func(tx store.WriteTx) error {
			return tx.QueryRow(`SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&after)
		})
		if err != nil {
			return err
		}
	}
	deliver := func(c Committed) { fn(c.Seq, c.Stored, s.own.take(c.Seq)) }
	relayed := func(st store.Stored) { fn(0, st, false) }
	backoff := 50 * time.Millisecond
	for ctx.Err() == nil {
		err := s.follow(ctx, &after, deliver, relayed)
		if ctx.Err() != nil {
			break
		}
		s.opts.Log("following the log: reconnecting", err)
		select {
		case <-ctx.Done():
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, time.Second)
	}
	return ctx.Err()
}

func (s *Store) follow(ctx context.Context, after *int64, fn func(Committed), relayed func(store.Stored)) error {
	cfg := s.cfg.Copy()
	// A poll timeout only interrupts the wait; the default handler would also
	// send the server a cancel request that could hit the next query.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	cfg.RuntimeParams["application_name"] = "hive follower"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, "LISTEN "+Channel+"; LISTEN "+EphemeralChannel); err != nil {
		return err
	}
	for {
		// Listening first, then reading: nothing committed in between is lost.
		if err := s.catchUp(ctx, conn, after, fn); err != nil {
			return err
		}
		if err := s.awaitCommit(ctx, conn, *after, relayed); err != nil {
			return err
		}
	}
}

// awaitCommit returns when the log may hold more than sequence number after:
// on a notification of a later commit, or when the poll interval is up
// (counted from the call, so ephemeral events cannot put the poll off).
// Ephemeral events go to relayed on the way. A notification of a commit
// already read (several commits can land during one read) is passed over,
// so a burst of commits costs one read, not one per commit. Commits take
// the write lock and number their events in order, so a commit notified
// with a number up to after was read with everything before it.
func (s *Store) awaitCommit(ctx context.Context, conn *pgx.Conn, after int64, relayed func(store.Stored)) error {
	wait, cancel := context.WithTimeout(ctx, s.opts.FollowPoll)
	defer cancel()
	for {
		n, err := conn.WaitForNotification(wait)
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil && wait.Err() != nil:
			return nil // the poll timer
		case err != nil:
			return err // the connection failed
		case n.Channel == EphemeralChannel:
			s.relayed(n.Payload, relayed)
		default:
			if seq, err := strconv.ParseInt(n.Payload, 10, 64); err != nil || seq > after {
				return nil
			}
		}
	}
}

// catchUp reads everything after *after, a page at a time.
func (s *Store) catchUp(ctx context.Context, conn *pgx.Conn, after *int64, fn func(Committed)) error {
	for {
		rows, err := conn.Query(ctx, `SELECT seq, raw FROM events WHERE seq > $1 ORDER BY seq LIMIT 500`, *after)
		if err != nil {
			return err
		}
		var page []Committed
		for rows.Next() {
			var c Committed
			if err := rows.Scan(&c.Seq, &c.Raw); err != nil {
				rows.Close()
				return err
			}
			ev := &nostr.Event{}
			if err := ev.UnmarshalJSON(c.Raw); err != nil {
				rows.Close()
				return fmt.Errorf("stored event %d is corrupt: %w", c.Seq, err)
			}
			c.Event = ev
			page = append(page, c)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, c := range page {
			*after = c.Seq
			fn(c)
		}
		if len(page) < 500 {
			return nil
		}
	}
}

// EphemeralChannel carries ephemeral events (never stored) from the instance
// that received one to the others: "<origin> <event JSON>", within
// PostgreSQL's 8000-byte NOTIFY limit.
const EphemeralChannel = "hive_ephemeral"

// maxNotify is the largest NOTIFY payload PostgreSQL accepts.
const maxNotify = 7999

// Announce hands an ephemeral event to the other instances' followers. An
// event too large for a notification is refused with an error (it still
// reached this instance's subscribers).
func (s *Store) Announce(ctx context.Context, ev *nostr.Event) error {
	raw, err := ev.MarshalJSON()
	if err != nil {
		return err
	}
	payload := s.origin + " " + string(raw)
	if len(payload) > maxNotify {
		return fmt.Errorf("ephemeral kind %d event of %d bytes is too large to reach other instances (at most %d)", ev.Kind, len(raw), maxNotify-len(s.origin)-1)
	}
	_, err = s.r.ExecContext(ctx, `SELECT pg_notify($1, $2)`, EphemeralChannel, payload)
	return err
}

// relayed delivers an announced ephemeral event unless this store sent it.
func (s *Store) relayed(payload string, fn func(store.Stored)) {
	origin, raw, ok := strings.Cut(payload, " ")
	if !ok || origin == s.origin {
		return
	}
	ev := &nostr.Event{}
	if err := ev.UnmarshalJSON([]byte(raw)); err != nil {
		s.opts.Log("an announced ephemeral event is not an event", err)
		return
	}
	fn(store.Stored{Event: ev, Raw: []byte(raw)})
}
