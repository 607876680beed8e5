package session

import (
	"context"
	"slices"
	"time"

	"github.com/ainb/hive/client"
	"github.com/nbd-wtf/go-nostr"
)

// SendTimeout bounds how long a message waits for its OK (through
// reconnects) before it shows as not sent.
const SendTimeout = 2 * time.Minute

// The states of a pending message.
const (
	Sending = "sending"
	Failed  = "failed"
)

// Pending is a message signed and sent, waiting for the hub's OK: sending
// (Attempt counts its publishes), or failed with the hub's reason.
type Pending struct {
	Event   nostr.Event
	Text    string
	State   string
	Reason  string
	Attempt int
}

// Outbox is the member's messages on their way (web/src/hub/outbox.js is
// its twin: spec/fixtures/session/outbox.json). A message is signed once,
// so a retry publishes the same event and can never be stored twice.
type Outbox struct{ items []*Pending }

// Items are the pending messages, oldest first.
func (o *Outbox) Items() []Pending {
	out := make([]Pending, len(o.items))
	for i, p := range o.items {
		out[i] = *p
	}
	return out
}

// Len is how many messages are pending.
func (o *Outbox) Len() int { return len(o.items) }

func (o *Outbox) item(id string) *Pending {
	if i := slices.IndexFunc(o.items, func(p *Pending) bool { return p.Event.ID == id }); i >= 0 {
		return o.items[i]
	}
	return nil
}

func (o *Outbox) drop(id string) {
	o.items = slices.DeleteFunc(o.items, func(p *Pending) bool { return p.Event.ID == id })
}

// Add queues a signed message (sending, its first attempt).
func (o *Outbox) Add(ev nostr.Event, text string) {
	o.items = append(o.items, &Pending{Event: ev, Text: text, State: Sending, Attempt: 1})
}

// Retry sends a failed message again (the same event); false when it is
// not failed.
func (o *Outbox) Retry(id string) bool {
	p := o.item(id)
	if p == nil || p.State != Failed {
		return false
	}
	p.State, p.Reason = Sending, ""
	p.Attempt++
	return true
}

// Discard drops a failed message and returns its text ("" when it is not
// failed).
func (o *Outbox) Discard(id string) string {
	p := o.item(id)
	if p == nil || p.State != Failed {
		return ""
	}
	o.drop(id)
	return p.Text
}

// Stored ends a message's wait: the hub took it.
func (o *Outbox) Stored(id string) { o.drop(id) }

// Refused marks a message failed with the hub's reason.
func (o *Outbox) Refused(id, reason string) {
	if p := o.item(id); p != nil {
		p.State, p.Reason = Failed, reason
	}
}

// Sent is a publish's end: the stored event, or why not.
type Sent struct {
	Event nostr.Event
	Text  string
	Edit  bool // an edit (not in the outbox)
	Err   error
}

// Send signs a message, queues it in the outbox and publishes it; the
// Sent comes once the hub answers (queued while reconnecting).
func (s *Session) Send(ev nostr.Event, text string) (Job, error) {
	signed, err := s.c.Sign(ev)
	if err != nil {
		return nil, err
	}
	s.outbox.Add(signed, text)
	return s.publish(signed, text, false), nil
}

// Edit publishes an edit (not queued: the row shows the old text until it is stored).
func (s *Session) Edit(ev nostr.Event, text string) Job { return s.publish(ev, text, true) }

func (s *Session) publish(ev nostr.Event, text string, edit bool) Job {
	c := s.c
	return func(ctx context.Context) Event {
		ctx, cancel := context.WithTimeout(ctx, SendTimeout)
		defer cancel()
		stored, err := c.Publish(ctx, ev)
		if err != nil {
			stored = ev
		}
		return Sent{Event: stored, Text: text, Edit: edit, Err: err}
	}
}

// TakeSent takes a publish's end: a stored message joins the timeline and
// leaves the outbox; a refused one stays failed with the hub's reason.
func (s *Session) TakeSent(m Sent) {
	if m.Err != nil {
		reason := client.RefusalReason(m.Err)
		if reason == "" {
			reason = m.Err.Error()
		}
		s.outbox.Refused(m.Event.ID, reason)
		return
	}
	s.outbox.Stored(m.Event.ID)
	s.Apply([]nostr.Event{m.Event})
}
