package store

import (
	"database/sql"
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
	// Authors are the keys whose author-only events count as the reader's own
	// (a member's key and its paired devices'); nil: Reader only.
	Authors []string
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

// scopeSQL renders the scope as one condition on the events row e of a
// query for kinds ks (nil: any kind), or "" when the scope cannot exclude any
// row of those kinds. Only the gates of the kinds asked for are rendered.
func (c *Core) scopeSQL(sc *Scope, ks []int, a *Args) string {
	authorOnly, recipientOnly, other := sc.Gates(ks)
	var cases []string
	if len(authorOnly) > 0 {
		var own string
		if len(sc.Authors) > 0 {
			own = c.db.In(a, "e.pubkey", sc.Authors, false)
		} else {
			own = "e.pubkey = " + a.Add(sc.Reader)
		}
		cases = append(cases, "WHEN e.kind IN ("+intList(authorOnly)+") THEN "+own)
	}
	if len(recipientOnly) > 0 {
		cases = append(cases, "WHEN e.kind IN ("+intList(recipientOnly)+") THEN (e.pubkey = "+a.Add(sc.Reader)+" OR EXISTS "+
			"(SELECT 1 FROM tags s WHERE s.name = 'p' AND s.value = "+a.Add(sc.Reader)+" AND s.created_at = e.created_at AND s.seq = e.seq))")
	}
	channel := ""
	if hidden := c.storable(sc.Hidden); other && len(hidden) > 0 {
		channel = "(e.channel IS NULL OR " + c.db.In(a, "e.channel", hidden, true) + ")"
	}
	switch {
	case len(cases) == 0:
		return channel
	case channel == "":
		channel = "TRUE"
	}
	return "(CASE " + strings.Join(cases, " ") + " ELSE " + channel + " END)"
}

func intList(ks []int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = strconv.Itoa(k)
	}
	return strings.Join(s, ",")
}
