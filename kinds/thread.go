package kinds

import "github.com/nbd-wtf/go-nostr"

// ThreadRoot is the root of the thread a message belongs to (NIP-10 marked
// e tags, as the hub checks them): its root-marked e tag; else its
// reply-marked one (a reply to a top-level message that names only its
// parent); else the message itself.
func ThreadRoot(ev *nostr.Event) string {
	root := ev.ID
	for _, tg := range ev.Tags {
		if len(tg) >= 4 && tg[0] == "e" {
			switch tg[3] {
			case "root":
				return tg[1]
			case "reply":
				root = tg[1]
			}
		}
	}
	return root
}

// ReplyTo is the message ev answers: its reply-marked e tag, else its
// root-marked one; "" for a top-level message.
func ReplyTo(ev *nostr.Event) string {
	var root string
	for _, tg := range ev.Tags {
		if len(tg) >= 4 && tg[0] == "e" {
			switch tg[3] {
			case "reply":
				return tg[1]
			case "root":
				root = tg[1]
			}
		}
	}
	return root
}
