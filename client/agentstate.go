package client

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Agent run states of an AgentState.
const (
	AgentIdle    = "idle"
	AgentWorking = "working"
	AgentOffline = "offline"
)

// AgentState is what an agent's bridge says of it: the content of its
// agent status (kind 10451, spec/agents.md "Status"), which the bridge
// renews every 30 s with an expiration, so a bridge that died is seen
// as not connected once it lapses. It names no channel and no message:
// WorkingOn is filled by the reader from the receipts it may read.
type AgentState struct {
	State       string `json:"state"` // AgentIdle, AgentWorking or AgentOffline
	Processes   int    `json:"processes"`
	Busy        int    `json:"busy"`         // processes running a turn
	Queued      int    `json:"queued"`       // mentions waiting (not in flight)
	BreakerOpen bool   `json:"breaker_open"` // a process slot's circuit breaker is open
	LastError   string `json:"last_error,omitempty"`
	LastErrorAt int64  `json:"last_error_at,omitempty"`
	// Deaf, when set, says why the bridge's live subscription to the
	// agent's channels delivers nothing now (the hub closed it, or the
	// agent's own status did not come back on it), since DeafSince: no
	// mention reaches the agent until it has subscribed again.
	Deaf      string `json:"deaf,omitempty"`
	DeafSince int64  `json:"deaf_since,omitempty"`
	// Conn is when the bridge's current connection to the hub was made
	// (unix milliseconds): a new value is a bridge that started, restarted
	// or reconnected, and a watching device renews its lease then.
	Conn int64 `json:"conn,omitempty"`

	At        int64       `json:"at"`                   // when the bridge said so
	Connected bool        `json:"connected"`            // a status not expired and not offline
	WorkingOn []WorkingOn `json:"working_on,omitempty"` // mentions it works on that the reader can see
}

// WorkingOn is a mention an agent's newest receipt says it is working on.
type WorkingOn struct {
	Channel string `json:"channel"`
	Event   string `json:"event"`
	Since   int64  `json:"since"`
}

// Summary is the state in a few words: "working on 1 (queue 2)",
// "idle", "offline", "breaker open", with the last error.
func (s AgentState) Summary() string {
	var parts []string
	switch {
	case !s.Connected:
		parts = append(parts, "not connected")
	case s.State == AgentWorking && len(s.WorkingOn) > 0:
		ons := make([]string, len(s.WorkingOn))
		for i, w := range s.WorkingOn {
			ons[i] = fmt.Sprintf("%s in #%s", w.Event[:min(8, len(w.Event))], w.Channel)
		}
		parts = append(parts, "working on "+strings.Join(ons, ", "))
	case s.State == AgentWorking:
		parts = append(parts, fmt.Sprintf("working (%d of %d processes)", s.Busy, s.Processes))
	default:
		parts = append(parts, s.State)
	}
	if s.Connected {
		parts = append(parts, fmt.Sprintf("queue %d", s.Queued))
	}
	if s.Connected && s.Deaf != "" {
		parts = append(parts, fmt.Sprintf("not hearing mentions since %s (%s; subscribing again)", time.Unix(s.DeafSince, 0).UTC().Format("15:04:05"), s.Deaf))
	}
	if s.BreakerOpen {
		parts = append(parts, "breaker open")
	}
	if s.LastError != "" {
		parts = append(parts, fmt.Sprintf("last error %s: %s", time.Unix(s.LastErrorAt, 0).UTC().Format("15:04:05"), s.LastError))
	}
	return strings.Join(parts, ", ")
}

// statusScan bounds the receipts read to find what agents work on.
const statusScan = 500

// AgentStates reads the newest status of each of agents (absent: the key
// never ran under a bridge that publishes one) and, from the receipts in
// channels the client may read, the mentions each works on now.
func (c *Client) AgentStates(ctx context.Context, agents, channels []string) (map[string]AgentState, error) {
	out := map[string]AgentState{}
	if len(agents) == 0 {
		return out, nil
	}
	evs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.AgentStatus}, Authors: agents, Limit: len(agents)})
	if err != nil {
		return nil, err
	}
	now := time.Now().Unix()
	for _, ev := range evs {
		var s AgentState
		if json.Unmarshal([]byte(ev.Content), &s) != nil {
			continue
		}
		if prev, ok := out[ev.PubKey]; ok && prev.At >= int64(ev.CreatedAt) {
			continue
		}
		s.At = int64(ev.CreatedAt)
		exp, _ := expirationOf(&ev)
		s.Connected = s.State != AgentOffline && (exp == 0 || exp > now)
		s.WorkingOn = nil
		out[ev.PubKey] = s
	}
	if len(channels) == 0 {
		return out, nil
	}
	since := nostr.Timestamp(now - int64(24*time.Hour/time.Second))
	recs, err := c.Query(ctx, nostr.Filter{Kinds: []int{kinds.Receipt}, Authors: agents, Tags: nostr.TagMap{"h": channels}, Since: &since, Limit: statusScan})
	if err != nil {
		return nil, err
	}
	type newest struct {
		status string
		at     int64
		ch     string
	}
	last := map[string]newest{} // agent + mention -> its newest receipt
	for _, ev := range recs {
		k := ev.PubKey + "\x00" + tagValueOf(&ev, "e")
		at := chat.Millis(&ev)
		if n, ok := last[k]; !ok || at > n.at {
			last[k] = newest{tagValueOf(&ev, "status"), at, tagValueOf(&ev, "h")}
		}
	}
	for k, n := range last {
		agent, id, _ := strings.Cut(k, "\x00")
		s, ok := out[agent]
		if !ok || n.status != kinds.ReceiptWorking || !s.Connected || s.State != AgentWorking {
			continue
		}
		s.WorkingOn = append(s.WorkingOn, WorkingOn{Channel: n.ch, Event: id, Since: n.at / 1000})
		out[agent] = s
	}
	return out, nil
}

func tagValueOf(ev *nostr.Event, name string) string {
	if t := ev.Tags.Find(name); len(t) >= 2 {
		return t[1]
	}
	return ""
}

// expirationOf is ev's NIP-40 expiration (0 without one).
func expirationOf(ev *nostr.Event) (int64, error) {
	v := tagValueOf(ev, "expiration")
	if v == "" {
		return 0, nil
	}
	var n int64
	_, err := fmt.Sscan(v, &n)
	return n, err
}
