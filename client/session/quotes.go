package session

import (
	"context"

	"github.com/nbd-wtf/go-nostr"
)

// Quoted are the messages rows quote that no page loaded (another
// channel's, an older one), fetched by Quotes for TakeQuoted.
type Quoted struct {
	Events []nostr.Event
}

// maxQuotedFetch bounds the quoted messages asked for at once.
const maxQuotedFetch = 100

// missingQuotes are the messages the rows of evs quote that the model has
// not loaded and the session has not asked for yet (each is asked once).
func (s *Session) missingQuotes(evs []nostr.Event) []string {
	var out []string
	for _, id := range s.chat.MissingQuotes(evs, maxQuotedFetch) {
		if !s.quotes[id] {
			s.quotes[id] = true
			out = append(out, id)
		}
	}
	return out
}

// Quotes fetches the quoted messages ids (Applied.Quoted): a Quoted.
func (s *Session) Quotes(ids []string) Job {
	c := s.c
	return func(ctx context.Context) Event {
		evs, err := c.Query(ctx, nostr.Filter{IDs: ids, Limit: len(ids)})
		if err != nil {
			return nil
		}
		return Quoted{Events: evs}
	}
}

// TakeQuoted keeps the quoted messages in the model as what their quotes
// show (chat.Model.ApplyQuoted), never as rows; their authors without a
// name are Unknown.
func (s *Session) TakeQuoted(q Quoted) Applied {
	var out Applied
	for i := range q.Events {
		ev := &q.Events[i]
		s.chat.ApplyQuoted(ev)
		if !s.chat.Names().Known(ev.PubKey) {
			out.Unknown = append(out.Unknown, ev.PubKey)
			s.chat.Names().Seen(ev.PubKey)
		}
	}
	return out
}
