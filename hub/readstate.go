package hub

import (
	"database/sql"
	"errors"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Read positions (kind 30078, d = read-state:<context>): each key of a
// member writes its own, in clear; the member's position is the maximum over
// its keys (spec/channels.md, "Read state"). The hub keeps each key's
// position from moving backwards (to a position that reads no more than the
// stored one: kinds.ReadPosition.Above), so a stale machine holding the same
// key cannot undo a newer mark.
func readStateRules(rs ruleSet) {
	rs.add((*tx).readState, kinds.ReadState)
}

func (t *tx) readState(ev *nostr.Event) (*change, error) {
	d := ev.Tags.GetD()
	if !strings.HasPrefix(d, kinds.ReadStatePrefix) {
		return nil, nil // other NIP-78 application data
	}
	pos, err := kinds.ParseReadPosition(ev.Content)
	if err != nil {
		return nil, reject("invalid: a read-state event's content is its read position (unix seconds, then optionally the ids of the rows read in that second): %v", err)
	}
	var raw string
	err = t.QueryRow(`SELECT raw FROM events WHERE pubkey = ? AND kind = ? AND d = ?`, ev.PubKey, ev.Kind, d).Scan(&raw)
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
	if prev, err := kinds.ParseReadPosition(old.Content); err == nil && !pos.Above(prev) {
		return nil, reject("duplicate: your read position of %s is already at %s; it never moves backwards", strings.TrimPrefix(d, kinds.ReadStatePrefix), prev.Describe())
	}
	return nil, nil
}
