package client

import (
	"context"
	"encoding/json"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// watchRetry is how soon a watch control frame that failed is sent again.
const watchRetry = 10 * time.Second

// KeepWatch keeps this key's watch of agent (spec/agents.md, "A watch
// outlives restarts"): it sends the watch control frame, sealed with ck
// (the conversation key of the agent and this key), now, and then, until
// ctx ends, every observer.WatchRenew (every watchRetry after a failure)
// and whenever the agent's status (kind 10451) shows a connection of its
// bridge to the hub that the hub did not hold when the watch began: a
// bridge that started, restarted or reconnected. So a paired device gets
// the frames from the moment the bridge is up, whichever started first,
// and the owner gets the pending permission requests again. It returns the
// first send's error (the watch goes on; a caller that gives up ends ctx),
// or the status query's (no watch then).
func (c *Client) KeepWatch(ctx context.Context, agent string, ck [32]byte) error {
	f := nostr.Filter{Kinds: []int{kinds.AgentStatus}, Authors: []string{agent}}
	// The status the hub holds now is a bridge the first watch reaches (or
	// none); a later one with a new connection is a bridge to watch again.
	var run bridgeRun
	stored, err := c.Query(ctx, f)
	if err != nil {
		return err
	}
	for i := range stored {
		run.next(&stored[i])
	}
	status, err := c.Subscribe(ctx, f)
	if err != nil {
		return err
	}
	send := func() error {
		ev, err := observer.SealFrame(observer.Control{V: 1, Type: observer.CtlWatch}, ck, agent)
		if err != nil {
			return err
		}
		pctx, cancel := context.WithTimeout(ctx, c.opts.Timeout)
		defer cancel()
		_, err = c.Publish(pctx, *ev)
		return err
	}
	first := send()
	go func() {
		defer status.Close()
		next := observer.WatchRenew
		if first != nil {
			next = watchRetry
		}
		renew := time.NewTimer(next)
		defer renew.Stop()
		for {
			again := false
			select {
			case <-ctx.Done():
				return
			case <-renew.C:
				again = true
			case ev, ok := <-status.Events():
				if !ok {
					return
				}
				again = run.next(&ev)
			}
			if again {
				next := observer.WatchRenew
				if send() != nil && ctx.Err() == nil {
					next = watchRetry // a failure shows as missing frames until then
				}
				renew.Reset(next)
			}
		}
	}()
	return first
}

// bridgeRun is what a watcher knows of an agent's bridge from its status:
// its connection to the hub and whether it said it went offline.
type bridgeRun struct {
	conn    int64
	offline bool
}

// next takes the agent's newest status and reports whether it shows a
// bridge connection the watcher has not sent a watch to: a new Conn, or a
// bridge back from offline (a bridge that does not say Conn).
func (b *bridgeRun) next(ev *nostr.Event) bool {
	var s AgentState
	if json.Unmarshal([]byte(ev.Content), &s) != nil {
		return false
	}
	offline := s.State == AgentOffline
	fresh := !offline && (s.Conn != b.conn || b.offline)
	b.conn, b.offline = s.Conn, offline
	return fresh
}
