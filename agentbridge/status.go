package agentbridge

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// The agent status (kind 10451) is renewed every statusEvery and expires
// statusTTL after it was made, so a bridge that died is seen as gone. Each
// one is also the probe of the bridge's live subscription (feed.go).
const (
	statusEvery = 30 * time.Second
	statusTTL   = 150 * time.Second
)

// statusBoard is the agent's state as the status event tells it. The
// dispatcher and the turns write it; run publishes it.
type statusBoard struct {
	mu    sync.Mutex
	state client.AgentState
	last  nostr.Timestamp // created_at of the last status published
	poke  chan struct{}
}

func newStatusBoard(processes int) *statusBoard {
	return &statusBoard{state: client.AgentState{State: client.AgentIdle, Processes: processes}, poke: make(chan struct{}, 1)}
}

func (b *statusBoard) set(fn func(s *client.AgentState)) {
	b.mu.Lock()
	fn(&b.state)
	b.mu.Unlock()
	select {
	case b.poke <- struct{}{}:
	default:
	}
}

// connected marks a new connection to the hub in the status (Conn), which
// tells watchers to renew their leases; with publish, the status loop
// sends it (else its next status does).
func (b *statusBoard) connected(at time.Time, publish bool) {
	mark := func(s *client.AgentState) { s.Conn = at.UnixMilli() }
	if publish {
		b.set(mark)
		return
	}
	b.mu.Lock()
	mark(&b.state)
	b.mu.Unlock()
}

// failed records the last error: the first line of a failure's reason.
func (b *statusBoard) failed(reason string) {
	line, _, _ := strings.Cut(strings.TrimPrefix(reason, "⚠️ "), "\n")
	b.set(func(s *client.AgentState) { s.LastError, s.LastErrorAt = clipTo(line, 200), time.Now().Unix() })
}

// setDeaf records why the live subscription delivers nothing (the first
// cause is kept while it stays deaf), or "": it delivers again.
func (b *statusBoard) setDeaf(why string) {
	b.set(func(s *client.AgentState) {
		switch {
		case why == "":
			s.Deaf, s.DeafSince = "", 0
		case s.Deaf == "":
			s.Deaf, s.DeafSince = clipTo(why, 200), time.Now().Unix()
		}
	})
}

// deaf is why the live subscription delivers nothing, or "".
func (b *statusBoard) deaf() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state.Deaf
}

// probe asks run for a status soon, unchanged: the feed's probe.
func (b *statusBoard) probe() { b.set(func(*client.AgentState) {}) }

// noteDispatch copies the dispatcher's queue and slots to the board
// (called on the dispatcher goroutine).
func (d *dispatcher) noteDispatch() {
	busy, open := 0, false
	for _, s := range d.slots {
		busy += btoi(s.state == slotBusy)
		open = open || s.state == slotOpen
	}
	queued, inFlight := d.queue.Len(), len(d.inFlight)
	d.status.set(func(s *client.AgentState) {
		s.Busy, s.Queued, s.BreakerOpen, s.State = busy, queued, open, client.AgentIdle
		if busy > 0 || inFlight > 0 {
			s.State = client.AgentWorking
		}
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// statusEvent is the board as a status event, dated after the last one
// (a replaceable event of the same second might lose to it), or nil when
// it cannot be dated yet.
func (b *statusBoard) statusEvent(state string) *nostr.Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := nostr.Now()
	if now <= b.last {
		return nil
	}
	s := b.state
	if state != "" {
		s.State = state
	}
	s.Connected = s.State != client.AgentOffline
	content, _ := json.Marshal(s)
	exp := strconv.FormatInt(int64(now)+int64(statusTTL/time.Second), 10)
	return &nostr.Event{Kind: kinds.AgentStatus, CreatedAt: now, Content: string(content), Tags: nostr.Tags{{"expiration", exp}}}
}

// publish sends the board (with state, when given) on h; it
// returns the event sent. A status the hub holds a newer one of (the
// previous run's, made in the same second) is sent again a second later,
// so that a new connection's status (Conn) does not wait for the next
// change.
func (b *statusBoard) publish(ctx context.Context, h HubConn, state string) (*nostr.Event, error) {
	for try := 1; ; try++ {
		ev := b.statusEvent(state)
		for ev == nil {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(time.Until(time.Unix(int64(b.lastAt())+1, 0))):
			}
			ev = b.statusEvent(state)
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := h.Publish(pctx, ev)
		cancel()
		var re *client.RefusedError
		if err != nil && !(errors.As(err, &re) && strings.HasPrefix(re.Reason, "duplicate:") && try < 3) {
			return nil, err
		}
		b.mu.Lock()
		b.last = max(b.last, ev.CreatedAt)
		b.mu.Unlock()
		if err == nil {
			return ev, nil
		}
	}
}

func (b *statusBoard) lastAt() nostr.Timestamp {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.last
}

// run publishes the board on h when it changes (at most once a
// second) and every statusEvery, until ctx ends (serve publishes the
// offline status then); each status published goes to sent (the feed's
// probes), unless sent is full.
func (b *statusBoard) run(ctx context.Context, h HubConn, sent chan<- *nostr.Event, log *slog.Logger) {
	tick := time.NewTicker(statusEvery)
	defer tick.Stop()
	for {
		if ev, err := b.publish(ctx, h, ""); err != nil && ctx.Err() == nil {
			log.Warn("publishing the agent status", "err", err)
		} else if err == nil {
			select {
			case sent <- ev:
			default:
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-b.poke:
			select { // changes close together go out as one, after the prompt
			case <-ctx.Done():
				return
			case <-time.After(statusSettle):
			}
		case <-tick.C:
		}
	}
}

// statusSettle is how long a change of the status waits for the next.
const statusSettle = 250 * time.Millisecond
