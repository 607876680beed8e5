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

// enqueue hands a mention to the dispatcher, which queues it unless a queue
// limit refuses it (see overflow).
func (r *runner) enqueue(m Mention) { r.send(mentionIn{m}) }

// queueMention is enqueue on the dispatcher goroutine.
func (r *runner) queueMention(ctx context.Context, m Mention) {
	if why := r.d.q.Full(m); why != "" {
		r.overflow(ctx, m, why)
		return
	}
	delete(r.d.overflow, overflowKey(m))
	if r.d.q.Push(m) {
		r.receipt([]Mention{m}, kinds.ReceiptQueued, "", "")
		r.pump(ctx)
	}
}

func overflowKey(m Mention) string { return m.Channel + "\x00" + m.Author }

// overflow answers a mention the queue refused. The first refused mention of
// an author in a channel gets a failure reply naming the limit; later ones
// are covered by it (logged, recorded as answered) until one of that
// author's mentions there is queued again. So a flood costs one reply, and
// no mention is dropped without its author being told.
func (r *runner) overflow(ctx context.Context, m Mention, why string) {
	r.state.MarkAnswered([]Mention{m}, 0)
	r.receipt([]Mention{m}, kinds.ReceiptFailed, "not queued: "+why, "")
	k := overflowKey(m)
	if r.d.overflow[k] {
		r.log.Warn("mention not queued: the queue is full (its author was told)", "event", m.ID, "channel", m.Channel, "author", m.Author)
		return
	}
	r.d.overflow[k] = true
	r.log.Warn("mention not queued: the queue is full; posting a failure reply", "event", m.ID, "channel", m.Channel, "author", m.Author, "why", why)
	go r.postFailure(ctx, []Mention{m}, "not queued: "+why+". This mention, and your next ones in this channel until the agent has caught up, get no answer: please re-send them later.")
}
