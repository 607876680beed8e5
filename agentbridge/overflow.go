package agentbridge

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/ainb/hive/kinds"
)

// MaxMentionBytes bounds the text a queued mention keeps (and the prompt
// gets) of its event's content; longer content is cut at a UTF-8 boundary
// and ends with a note giving its size.
const MaxMentionBytes = 32 << 10

// keepContent is the part of an event's content a mention keeps: a copy
// (so the decoded event is not held by the queue), cut to MaxMentionBytes.
func keepContent(s string) string {
	if len(s) <= MaxMentionBytes {
		return strings.Clone(s)
	}
	cut := MaxMentionBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.Clone(s[:cut]) + fmt.Sprintf("\n[cut: the mention is %d bytes; the bridge keeps the first %d]", len(s), MaxMentionBytes)
}

// queueMention is enqueue on the dispatcher goroutine.
func (d *dispatcher) queueMention(ctx context.Context, m Mention) {
	if why := d.queue.Full(m); why != "" {
		d.overflow(ctx, m, why)
		return
	}
	delete(d.toldFull, overflowKey(m))
	if d.queue.Push(m) {
		d.out.receipt([]Mention{m}, kinds.ReceiptQueued, "", "")
		d.pump(ctx)
	}
}

func overflowKey(m Mention) string { return m.Channel + "\x00" + m.Author }

// overflow answers a mention the queue refused. The first refused mention of
// an author in a channel gets a failure reply naming the limit; later ones
// are covered by it (logged, recorded as answered) until one of that
// author's mentions there is queued again. So a flood costs one reply, and
// no mention is dropped without its author being told.
func (d *dispatcher) overflow(ctx context.Context, m Mention, why string) {
	d.state.MarkAnswered([]Mention{m}, 0)
	d.out.receipt([]Mention{m}, kinds.ReceiptFailed, "not queued: "+why, "")
	k := overflowKey(m)
	if d.toldFull[k] {
		d.log.Warn("mention not queued: the queue is full (its author was told)", "event", m.ID, "channel", m.Channel, "author", m.Author)
		return
	}
	d.toldFull[k] = true
	d.log.Warn("mention not queued: the queue is full; posting a failure reply", "event", m.ID, "channel", m.Channel, "author", m.Author, "why", why)
	go d.postFailure(ctx, []Mention{m}, "not queued: "+why+". This mention, and your next ones in this channel until the agent has caught up, get no answer: please re-send them later.")
}
