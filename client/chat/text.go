package chat

import (
	"encoding/json"
	"fmt"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// systemWords says a system row's type in words: %[1]s is the actor's
// name, %[2]s the target's.
var systemWords = map[string]string{
	"channel_created":  "%[1]s created the channel",
	"channel_archived": "%[1]s archived the channel",
	"member_added":     "%[1]s added %[2]s",
	"member_joined":    "%[2]s joined",
	"member_removed":   "%[1]s removed %[2]s",
	"member_left":      "%[2]s left",
}

// Text is what a row says to a person: a message's text with its mentions
// as @name and its event references dropped (the quote shows the one it
// quotes: quote.go); a system row in words ("alice joined"); "" for a
// tombstone.
func (m *Model) Text(r Row) string {
	if !r.System {
		return m.names.Render(dropRefs(r.Text), r.Mentions)
	}
	body, ok := systemBody(r.Text)
	if !ok {
		return r.Text
	}
	actor, target := m.names.Name(body.Actor), ""
	if body.Target != "" {
		target = m.names.Name(body.Target)
	}
	if w, ok := systemWords[body.Type]; ok {
		return fmt.Sprintf(w, actor, target)
	}
	return fmt.Sprintf("%s: %s %s", body.Type, actor, target)
}

// systemRow is what a system row's content says: what changed, who made
// the change and whom it names.
type systemRow struct{ Type, Actor, Target string }

func systemBody(text string) (systemRow, bool) {
	var body systemRow
	if json.Unmarshal([]byte(text), &body) != nil || body.Type == "" {
		return body, false
	}
	return body, true
}

// SystemKeys are the keys a system row's words name (its actor and its
// target), whose names a reader loads to show it; nil for other events.
func SystemKeys(ev *nostr.Event) []string {
	if ev.Kind != kinds.SystemRow {
		return nil
	}
	body, ok := systemBody(ev.Content)
	if !ok {
		return nil
	}
	var out []string
	for _, pk := range []string{body.Actor, body.Target} {
		if nostr.IsValid32ByteHex(pk) {
			out = append(out, pk)
		}
	}
	return out
}
