package agentbridge

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"time"

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
	f     Frame
	merge string          // key for coalescing text chunks ("" = not a chunk)
	text  strings.Builder // concatenated chunk text when merged
	n     int             // chunks merged
}

// observer turns raw ACP lines into paced, coalesced, encrypted frames to the
// owner.
type observer struct {
	ck      [32]byte
	owner   string
	publish func(ctx context.Context, ev *nostr.Event) error

	mu    sync.Mutex
	queue []*pendingFrame
	seq   uint64
	wake  chan struct{}
}

func newObserver(ck [32]byte, owner string, publish func(context.Context, *nostr.Event) error) *observer {
	return &observer{ck: ck, owner: owner, publish: publish, wake: make(chan struct{}, 1)}
}

// add queues one raw line of a turn. Consecutive text chunks of the same kind
// in the same session merge into one frame.
func (o *observer) add(ref turnRef, dir string, line []byte) {
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
	pf := &pendingFrame{f: Frame{V: 1, Seq: o.seq, Channel: ref.channel, Session: ref.session, Turn: ref.turn, Dir: dir,
		Msg: append(json.RawMessage(nil), line...)}, n: 1}
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
		Method string       `json:"method"`
		Params updateParams `json:"params"`
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
	f := pf.f
	if pf.n > 1 {
		f.Msg = withChunkText(f.Msg, pf.text.String())
	}
	ev, err := SealFrame(f, o.ck, o.owner)
	if err != nil { // too large: keep the frame (and its seq) with a stub
		f.Msg, _ = json.Marshal(map[string]any{"truncated": len(f.Msg)})
		if ev, err = SealFrame(f, o.ck, o.owner); err != nil {
			return
		}
	}
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	o.publish(pctx, ev) // ephemeral: a frame lost with the connection shows as a seq gap
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
