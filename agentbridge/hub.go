package agentbridge

import (
	"context"
	"errors"
	"fmt"
	"sync"

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

// Subscribe adapts a client subscription to Sub: EOSE receives once, and the
// end of the subscription is reported on Closed (Events is never closed).
func (h clientHub) Subscribe(ctx context.Context, fs nostr.Filters) (*Sub, error) {
	s, err := h.c.Subscribe(ctx, fs...)
	if err != nil {
		return nil, err
	}
	events := make(chan *nostr.Event)
	eose := make(chan struct{}, 1)
	closed := make(chan string, 1)
	stop := make(chan struct{})
	var once sync.Once
	go func() {
		select {
		case <-s.EOSE():
			eose <- struct{}{}
		case <-stop:
		}
	}()
	go func() {
		for ev := range s.Events() {
			select {
			case events <- &ev:
			case <-stop:
				return
			}
		}
		reason := "subscription ended"
		if err := s.Err(); err != nil {
			var re *client.RefusedError
			if errors.As(err, &re) {
				reason = re.Reason
			} else {
				reason = err.Error()
			}
		}
		select {
		case closed <- reason:
		case <-stop:
		}
	}()
	unsub := func() {
		once.Do(func() { close(stop) })
		s.Close()
	}
	return &Sub{Events: events, EOSE: eose, Closed: closed, Unsub: unsub}, nil
}
