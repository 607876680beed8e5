package hub

import (
	"database/sql"
	"errors"
	"strconv"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Read positions (kind 30078, d = read-state:<context>): each key of a
// member writes its own, in clear; the member's position is the maximum over
// its keys (spec/channels.md, "Read state"). The hub keeps each key's
// position from moving backwards, so a stale machine holding the same key
// cannot undo a newer mark.
func readStateRules(rs ruleSet) {
	rs.add((*tx).readState, kinds.ReadState)
}

func (t *tx) readState(ev *nostr.Event) (*change, error) {
	d := ev.Tags.GetD()
	if !strings.HasPrefix(d, kinds.ReadStatePrefix) {
		return nil, nil // other NIP-78 application data
	}
	pos, ok := readPosition(ev.Content)
	if !ok {
		return nil, reject("invalid: a read-state event's content is its read position, unix seconds as plain decimal digits; got %q", ev.Content)
	}
	var raw string
	err := t.QueryRow(`SELECT raw FROM events WHERE pubkey = ? AND kind = ? AND d = ?`, ev.PubKey, ev.Kind, d).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var old nostr.Event
	if err := old.UnmarshalJSON([]byte(raw)); err != nil {
		return nil, err
	}
	if prev, ok := readPosition(old.Content); ok && pos <= prev {
		return nil, reject("duplicate: your read position of %s is already at %d; it never moves backwards", strings.TrimPrefix(d, kinds.ReadStatePrefix), prev)
	}
	return nil, nil
}

// readPosition parses a position: canonical decimal unix seconds.
func readPosition(s string) (int64, bool) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != s {
		return 0, false
	}
	return n, true
}
