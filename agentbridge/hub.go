package agentbridge

import (
	"context"
	"errors"
	"fmt"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// Hub is the bridge's view of one authenticated connection to the hub.
type Hub interface {
	// Publish signs ev as the agent (when unsigned), sends it and waits for OK.
	Publish(ctx context.Context, ev *nostr.Event) error
	// Query returns the stored events matching f, or the hub's refusal.
	Query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error)
	// Subscribe opens a live subscription.
	Subscribe(ctx context.Context, fs nostr.Filters) (*Sub, error)
	// Done is closed when the connection is lost.
	Done() <-chan struct{}
	Close()
}

// Sub is a live subscription: stored events, EOSE, then live ones.
type Sub struct {
	Events <-chan *nostr.Event
	EOSE   <-chan struct{}
	Closed <-chan string // the hub's CLOSED reason
	Unsub  func()
}

// Dialer connects to the hub as keys, with the owner's attestation tag.
type Dialer func(ctx context.Context, url string, keys identity.Keys, tag nostr.Tag) (Hub, error)

// ErrUnreachable marks a hub the bridge could not connect to.
var ErrUnreachable = errors.New("hub unreachable")

// ErrAuthRefused marks a dial that reached the hub but whose AUTH was refused.
var ErrAuthRefused = errors.New("AUTH refused")

// DialClient is the Dialer over the client package.
func DialClient(ctx context.Context, url string, keys identity.Keys, tag nostr.Tag) (Hub, error) {
	c, err := client.Dial(ctx, url, keys, tag)
	if errors.Is(err, client.ErrRefused) {
		return nil, fmt.Errorf("%w: %v", ErrAuthRefused, err)
	}
	if err != nil {
		return nil, err
	}
	return clientHub{c}, nil
}

type clientHub struct{ c *client.Client }

// Publish signs ev in place (the bridge reads its id) and waits for OK.
func (h clientHub) Publish(ctx context.Context, ev *nostr.Event) error {
	signed, err := h.c.Publish(ctx, *ev)
	*ev = signed
	return err
}

func (h clientHub) Query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error) {
	evs, err := h.c.Query(ctx, f)
	out := make([]*nostr.Event, len(evs))
	for i := range evs {
		out[i] = &evs[i]
	}
	return out, err
}

// Done is closed when the client gives up (it reconnects by itself otherwise).
func (h clientHub) Done() <-chan struct{} { return h.c.Done() }
func (h clientHub) Close()                { h.c.Close() }

func (h clientHub) Subscribe(ctx context.Context, fs nostr.Filters) (*Sub, error) {
	s, err := h.c.Subscribe(ctx, fs...)
	if err != nil {
		return nil, err
	}
	events := make(chan *nostr.Event)
	closed := make(chan string, 1)
	go func() {
		defer close(events)
		for ev := range s.Events() {
			events <- &ev
		}
		var re *client.RefusedError
		if errors.As(s.Err(), &re) {
			closed <- re.Reason
		}
	}()
	return &Sub{Events: events, EOSE: s.EOSE(), Closed: closed, Unsub: s.Close}, nil
}
