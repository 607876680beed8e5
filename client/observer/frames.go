// Package observer is the observer protocol between an agent's bridge and
// its owner (and the owner's paired devices): the frame format (kind 24200,
// NIP-44 to one recipient, a seq per bridge), control frames and watch
// leases, and the transcript reducer that turns frames into what a watcher
// shows. It reads frames as JSON, without the ACP SDK, so every surface can
// import it (spec/agents.md).
package observer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// Frame is the decrypted content of an observer frame (agent to owner).
type Frame struct {
	V       int             `json:"v"`
	Seq     uint64          `json:"seq"`
	Channel string          `json:"channel"`
	Session string          `json:"session"`
	Turn    string          `json:"turn"`
	Dir     string          `json:"dir"` // "in": agent to bridge; "out": bridge to agent; DirBridge: the bridge's own note
	Msg     json.RawMessage `json:"msg"`
	// Resent marks a permission request the bridge sends again for a watch
	// control frame (the same raw message): not a new request.
	Resent bool `json:"resent,omitempty"`
}

// DirBridge is the Dir of a frame that carries a note of the bridge's own
// (Msg is a BridgeNote), not a line of the ACP wire.
const DirBridge = "bridge"

// BridgeNote is the message of a DirBridge frame.
type BridgeNote struct {
	// Ended, when set, says that the frame's turn is over without a stop
	// reason from the agent, and why (StopBridgeRestarted): a watcher shows
	// it stopped so.
	Ended string `json:"ended,omitempty"`
}

// StopBridgeRestarted is why a turn ended that a bridge run had in flight
// when it stopped (killed, crashed, or stopped mid-turn): its next run says
// so for each such turn as it starts, since the agent process that ran it
// is gone and no stop reason will come.
const StopBridgeRestarted = "bridge_restarted"

// Control is the decrypted content of a control frame (from the owner or
// one of the owner's paired devices, to the agent).
type Control struct {
	V       int             `json:"v"`
	Type    string          `json:"type"` // permission, cancel, steer, watch
	Session string          `json:"session"`
	Request json.RawMessage `json:"request,omitempty"` // JSON-RPC id of the session/request_permission
	Option  string          `json:"option,omitempty"`
	Text    string          `json:"text,omitempty"`
}

// Control frame types.
const (
	CtlPermission = "permission"
	CtlCancel     = "cancel"
	CtlSteer      = "steer"
	CtlWatch      = "watch" // pending permission requests again; a paired device also gets frames for WatchLease
)

// WatchLease is how long a paired device receives observer frames after its
// watch control frame; WatchRenew is how often `hive agent watch` renews it.
const (
	WatchLease = 5 * time.Minute
	WatchRenew = 2 * time.Minute
)

// maxPlaintext is NIP-44 v2's largest plaintext.
const maxPlaintext = 65535

// ControlMaxAge bounds how old a control frame may be when it arrives.
const ControlMaxAge = 5 * time.Minute

// SealFrame encrypts v with NIP-44 v2 under conversation key ck into an
// unsigned kind 24200 event to recipient.
func SealFrame(v any, ck [32]byte, recipient string) (*nostr.Event, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if len(b) > maxPlaintext {
		return nil, fmt.Errorf("frame of %d bytes is over NIP-44's %d", len(b), maxPlaintext)
	}
	ct, err := nip44.Encrypt(string(b), ck)
	if err != nil {
		return nil, err
	}
	return &nostr.Event{Kind: kinds.ObserverFrame, CreatedAt: nostr.Now(), Content: ct, Tags: nostr.Tags{{"p", recipient}}}, nil
}

// OpenFrame decrypts a kind 24200 event's content into v.
func OpenFrame(ev *nostr.Event, ck [32]byte, v any) error {
	if ev.Kind != kinds.ObserverFrame {
		return fmt.Errorf("kind %d is not an observer frame", ev.Kind)
	}
	pt, err := nip44.Decrypt(ev.Content, ck)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(pt)))
	dec.UseNumber()
	return dec.Decode(v)
}

// ParseControl opens and checks a control frame: it must be fresh and its
// fields must fit its type. ck is the conversation key of the agent and the
// frame's author, whom the caller has checked (the owner, or a live paired
// device of the owner).
func ParseControl(ev *nostr.Event, ck [32]byte, now time.Time) (Control, error) {
	var c Control
	if age := now.Sub(ev.CreatedAt.Time()); age > ControlMaxAge || age < -ControlMaxAge {
		return c, fmt.Errorf("stale control frame (created %v ago)", age.Round(time.Second))
	}
	if err := OpenFrame(ev, ck, &c); err != nil {
		return c, err
	}
	if c.V != 1 {
		return c, fmt.Errorf("unsupported control frame version %d", c.V)
	}
	if c.Session == "" && c.Type != CtlWatch {
		return c, errors.New("control frame without session")
	}
	switch c.Type {
	case CtlPermission:
		if len(c.Request) == 0 || c.Option == "" {
			return c, errors.New("permission control frame needs request and option")
		}
	case CtlCancel, CtlWatch:
	case CtlSteer:
		if c.Text == "" {
			return c, errors.New("steer control frame without text")
		}
	default:
		return c, fmt.Errorf("unknown control frame type %q", c.Type)
	}
	return c, nil
}

// IDKey canonicalises a JSON-RPC id for matching ("7", "\"abc\"").
func IDKey(raw json.RawMessage) string {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// LoadTurn is the observer frames' turn id for the lines of a session/load
// of session: "load:<session>".
func LoadTurn(session string) string { return loadPrefix + session }

const loadPrefix = "load:"
