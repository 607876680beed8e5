package agentbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/ainb/hive/client"
	obs "github.com/ainb/hive/client/observer"
	"github.com/nbd-wtf/go-nostr"
)

// Observer pacing: at most frameRate frames per second after a burst of
// frameBurst; at most frameBacklog frames wait (older ones are dropped, which
// shows as a gap in seq).
const (
	frameRate    = 10
	frameBurst   = 10
	frameBacklog = 4096
)

// turnRef names the turn a raw line belongs to.
type turnRef struct{ channel, session, turn string }

type pendingFrame struct {
	frame obs.Frame
	merge string          // key for coalescing text chunks ("" = not a chunk)
	text  strings.Builder // concatenated chunk text when merged
	n     int             // chunks merged
}

// recipient is a key frames go to, with its conversation key.
type recipient struct {
	pk      string
	convKey [32]byte // NIP-44 conversation key between the agent and pk
}

// lease is a paired device's watch: frames go to it until until.
type lease struct {
	convKey [32]byte // NIP-44 conversation key between the agent and the device
	until   time.Time
}

// observer turns raw ACP lines into paced, coalesced, encrypted frames to the
// owner, and to the owner's paired devices that watch (each frame is sealed
// once per recipient, with the same seq).
type observer struct {
	owner   recipient
	publish func(ctx context.Context, ev *nostr.Event) error

	mu       sync.Mutex
	queue    []*pendingFrame
	seq      uint64
	wake     chan struct{}
	watchers map[string]lease // paired device -> its watch lease
	store    string           // where the leases are kept ("" = nowhere)
}

func newObserver(ownerKey [32]byte, owner string, publish func(context.Context, *nostr.Event) error) *observer {
	return &observer{owner: recipient{owner, ownerKey}, publish: publish, wake: make(chan struct{}, 1), watchers: map[string]lease{}}
}

// watch sends frames to a paired device until until (renewed by its next
// watch control frame).
func (o *observer) watch(pk string, convKey [32]byte, until time.Time) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.watchers[pk] = lease{convKey: convKey, until: until}
	o.saveLeasesLocked()
}

// unwatch stops frames to a device (the hub refused one: revoked, expired).
func (o *observer) unwatch(pk string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.watchers, pk)
	o.saveLeasesLocked()
}

// recipients is the owner, then every device whose lease runs at now.
func (o *observer) recipients(now time.Time) []recipient {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := []recipient{o.owner}
	expired := false
	for pk, l := range o.watchers {
		if now.After(l.until) {
			delete(o.watchers, pk)
			expired = true
			continue
		}
		out = append(out, recipient{pk, l.convKey})
	}
	if expired {
		o.saveLeasesLocked()
	}
	return out
}

// add queues one raw line of a turn. Consecutive text chunks of the same kind
// in the same session merge into one frame.
func (o *observer) add(ref turnRef, dir string, line []byte) { o.queueLine(ref, dir, line, false) }

// resend queues a permission request's line once more, marked as sent
// again (for a watch control frame).
func (o *observer) resend(ref turnRef, line []byte) { o.queueLine(ref, "in", line, true) }

// note queues a note of the bridge's own about a turn (obs.DirBridge).
func (o *observer) note(ref turnRef, n obs.BridgeNote) {
	b, _ := json.Marshal(n)
	o.queueLine(ref, obs.DirBridge, b, false)
}

func (o *observer) queueLine(ref turnRef, dir string, line []byte, resent bool) {
	key, text := chunkKey(line)
	o.mu.Lock()
	if key != "" && len(o.queue) > 0 {
		last := o.queue[len(o.queue)-1]
		if last.merge == key+"\x00"+ref.turn {
			last.text.WriteString(text)
			last.n++
			o.mu.Unlock()
			return
		}
	}
	o.seq++
	pf := &pendingFrame{frame: obs.Frame{V: 1, Seq: o.seq, Channel: ref.channel, Session: ref.session, Turn: ref.turn, Dir: dir,
		Msg: append(json.RawMessage(nil), line...), Resent: resent}, n: 1}
	if key != "" {
		pf.merge = key + "\x00" + ref.turn
		pf.text.WriteString(text)
	}
	o.queue = append(o.queue, pf)
	if len(o.queue) > frameBacklog {
		o.queue = o.queue[len(o.queue)-frameBacklog:]
	}
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// chunkKey returns a coalescing key and the text for agent message and
// thought chunks; "" for every other message.
func chunkKey(line []byte) (string, string) {
	if !bytes.Contains(line, []byte(`_chunk"`)) {
		return "", ""
	}
	var m struct {
		Method string           `json:"method"`
		Params obs.UpdateParams `json:"params"`
	}
	if json.Unmarshal(line, &m) != nil || m.Method != "session/update" || m.Params.Update.Content.Type != "text" {
		return "", ""
	}
	switch u := m.Params.Update.SessionUpdate; u {
	case "agent_message_chunk", "agent_thought_chunk":
		return m.Params.SessionID + "\x00" + u, m.Params.Update.Content.Text
	}
	return "", ""
}

// run sends queued frames until ctx ends.
func (o *observer) run(ctx context.Context) {
	tokens := float64(frameBurst)
	last := time.Now()
	tick := time.NewTicker(time.Second / frameRate)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		case <-tick.C:
		}
		now := time.Now()
		tokens = min(float64(frameBurst), tokens+now.Sub(last).Seconds()*frameRate)
		last = now
		for tokens >= 1 {
			pf := o.pop()
			if pf == nil {
				break
			}
			tokens--
			o.send(ctx, pf)
		}
	}
}

func (o *observer) pop() *pendingFrame {
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.queue) == 0 {
		return nil
	}
	pf := o.queue[0]
	o.queue = o.queue[1:]
	return pf
}

func (o *observer) send(ctx context.Context, pf *pendingFrame) {
	f := pf.frame
	if pf.n > 1 {
		f.Msg = withChunkText(f.Msg, pf.text.String())
	}
	if _, err := obs.SealFrame(f, o.owner.convKey, o.owner.pk); err != nil { // too large: keep the frame (and its seq) with a stub
		f.Msg, _ = json.Marshal(map[string]any{"truncated": len(f.Msg)})
	}
	for _, to := range o.recipients(time.Now()) {
		ev, err := obs.SealFrame(f, to.convKey, to.pk)
		if err != nil {
			return
		}
		pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err = o.publish(pctx, ev) // ephemeral: a frame lost with the connection shows as a seq gap
		cancel()
		if to.pk != o.owner.pk && errors.Is(err, client.ErrAuth) {
			o.unwatch(to.pk) // the hub no longer lets this device receive frames
		}
	}
}

// withChunkText rewrites a chunk notification's text (coalesced frames).
func withChunkText(raw json.RawMessage, text string) json.RawMessage {
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if dec.Decode(&m) != nil {
		return raw
	}
	params, _ := m["params"].(map[string]any)
	update, _ := params["update"].(map[string]any)
	content, _ := update["content"].(map[string]any)
	if content == nil {
		return raw
	}
	content["text"] = text
	b, err := json.Marshal(m)
	if err != nil {
		return raw
	}
	return b
}
