package client

import (
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// Quote makes e quote quoted the way flotilla (NIP-C7) writes a quote: a
// ["q", id, relay, author] tag and a nostr:nevent1 reference (id, relay,
// author) opening the text, a blank line before the message's own
// text. relay is the hub's URL, where readers find the quoted message.
func Quote(e nostr.Event, quoted nostr.Event, relay string) (nostr.Event, error) {
	var relays []string
	if relay != "" {
		relays = []string{relay}
	}
	ref, err := nip19.EncodeEvent(quoted.ID, relays, quoted.PubKey)
	if err != nil {
		return e, err
	}
	e.Tags = append(e.Tags, nostr.Tag{"q", quoted.ID, relay, quoted.PubKey})
	if e.Content != "" {
		e.Content = "nostr:" + ref + "\n\n" + e.Content
	} else {
		e.Content = "nostr:" + ref
	}
	return e, nil
}
