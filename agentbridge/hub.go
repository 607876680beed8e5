package agentbridge

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// HubConn is the bridge's view of its authenticated connection to the hub (the
// client package, which reconnects and resubscribes by itself).
type HubConn interface {
	// Publish signs ev as the agent (when unsigned), sends it and waits for
	// OK; ev is replaced by the signed event.
	Publish(ctx context.Context, ev *nostr.Event) error
	// Query returns the stored events matching f, or the hub's refusal.
	Query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error)
	// Subscribe opens a live subscription.
	Subscribe(ctx context.Context, fs nostr.Filters) (*Sub, error)
	// Done is closed when the connection is gone for good.
	Done() <-chan struct{}
	// Reconnected receives after the connection dropped and came back,
	// once its live subscriptions were sent again.
	Reconnected() <-chan struct{}
	Close()
	// Client is the connection's client, for the chat model's loaders
	// (a prompt's context).
	Client() *client.Client
}

// Sub is a live subscription: stored events, EOSE, then live ones.
type Sub struct {
	Events <-chan *nostr.Event
	EOSE   <-chan struct{}
	Closed <-chan string // the hub's CLOSED reason
	Unsub  func()
}

// Target is how the bridge reaches the hub.
type Target struct {
	URLs []string
	Pin  string
	// Log hears the connection's own events: each drop (debug), reconnect
	// with its resubscriptions (info), failed reconnect (warn) and hub
	// NOTICE (info). Nil: they are not logged.
	Log *slog.Logger
	// OnReconnect hears each reconnection of the connection, once its
	// subscriptions are sent again (nil: nobody).
	OnReconnect func()
}

// Dialer connects to the hub as keys, with the owner's attestation tag.
type Dialer func(ctx context.Context, to Target, keys identity.Keys, tag nostr.Tag) (HubConn, error)

// Error classes of startup failures (the client's, so the CLI maps them to
// exit codes).
var (
	ErrUnreachable = client.ErrUnreachable
	ErrAuthRefused = client.ErrAuth
)

// DialClient is the Dialer over the client package. Its subscriptions
// resubscribe after a drop from the newest created_at seen minus
// catchUpSlack, as a restart catches up, so a mention dated that far behind
// (a slow clock) and stored during the drop is not skipped.
func DialClient(ctx context.Context, to Target, keys identity.Keys, tag nostr.Tag) (HubConn, error) {
	re := make(chan struct{}, 1)
	poke := func() {
		select {
		case re <- struct{}{}:
		default:
		}
	}
	c, err := client.Connect(ctx, client.Options{URLs: to.URLs, Keys: keys, AuthTag: tag, Pin: to.Pin, Log: to.Log, SkewMargin: catchUpSlack, OnReconnect: func() {
		poke()
		if to.OnReconnect != nil {
			to.OnReconnect()
		}
	}})
	if err != nil {
		return nil, err
	}
	return clientHub{c, re}, nil
}

type clientHub struct {
	client      *client.Client
	reconnected chan struct{} // poked on each reconnection
}

func (h clientHub) Publish(ctx context.Context, ev *nostr.Event) error {
	signed, err := h.client.Publish(ctx, *ev)
	*ev = signed
	return err
}

func (h clientHub) Query(ctx context.Context, f nostr.Filter) ([]*nostr.Event, error) {
	evs, err := h.client.Query(ctx, f)
	out := make([]*nostr.Event, len(evs))
	for i := range evs {
		out[i] = &evs[i]
	}
	return out, err
}

func (h clientHub) Done() <-chan struct{}        { return h.client.Done() }
func (h clientHub) Reconnected() <-chan struct{} { return h.reconnected }
func (h clientHub) Close()                       { h.client.Close() }
func (h clientHub) Client() *client.Client       { return h.client }

func (h clientHub) Subscribe(ctx context.Context, fs nostr.Filters) (*Sub, error) {
	s, err := h.client.Subscribe(ctx, fs...)
	if err != nil {
		return nil, err
	}
	events := make(chan *nostr.Event)
	closed := make(chan string, 1)
	stop := make(chan struct{})
	go func() {
		for ev := range s.Events() {
			select {
			case events <- &ev:
			case <-stop:
				return
			}
		}
		var re *client.RefusedError
		if errors.As(s.Err(), &re) {
			closed <- re.Reason
		} else if err := s.Err(); err != nil && !errors.Is(err, client.ErrClosed) {
			closed <- err.Error()
		}
	}()
	unsub := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		s.Close()
	}
	return &Sub{Events: events, EOSE: s.EOSE(), Closed: closed, Unsub: unsub}, nil
}

// refusedForGood reports whether retrying a publish cannot help.
func refusedForGood(err error) bool {
	return errors.Is(err, client.ErrAuth) || errors.Is(err, client.ErrInvalid) || errors.Is(err, client.ErrDuplicate)
}

// resolveTarget reads the config's hub: a ws:// or wss:// URL, or the name
// of a client profile (its hubs and pin; the key is the agent's own).
func resolveTarget(hub, pin string, lookupEnv func(string) (string, bool)) (Target, error) {
	spec := client.TargetSpec{Pin: pin, OwnKey: true}
	url := strings.HasPrefix(hub, "ws://") || strings.HasPrefix(hub, "wss://")
	if url {
		spec.Hub = hub
	} else {
		spec.Profile = hub
	}
	t, err := client.ResolveTarget(spec, lookupEnv)
	if err != nil && !url {
		return Target{}, errors.New(`hub = "` + hub + `" is neither a ws:// or wss:// URL nor a profile (` + err.Error() + `)`)
	}
	return Target{URLs: t.Hubs, Pin: t.Pin}, err
}
