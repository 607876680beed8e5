package kinds

import "github.com/nbd-wtf/go-nostr"

// ThreadRoot is the root of the thread a message belongs to (NIP-10 marked
// e tags, as the hub checks them): its root-marked e tag; else its
// reply-marked one (a reply to a top-level message that names only its
// parent); else the message itself.
func ThreadRoot(ev *nostr.Event) string {
	if id, ok := markedE(ev, "root", "reply"); ok {
		return id
	}
	return ev.ID
}

// ReplyTo is the message ev answers: its reply-marked e tag, else its
// root-marked one; "" for a top-level message.
func ReplyTo(ev *nostr.Event) string {
	id, _ := markedE(ev, "reply", "root")
	return id
}

// markedE is the id of ev's first e tag marked first, else of its last one
// marked second; ok is false when it has neither.
func markedE(ev *nostr.Event, first, second string) (id string, ok bool) {
	for _, tg := range ev.Tags {
		if len(tg) >= 4 && tg[0] == "e" {
			switch tg[3] {
			case first:
				return tg[1], true
			case second:
				id, ok = tg[1], true
			}
		}
	}
	return id, ok
}
