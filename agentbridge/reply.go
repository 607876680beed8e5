package agentbridge

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
)

// MaxReplyBytes bounds a reply's content; longer text is cut at a UTF-8
// boundary and ends with truncationNote.
const MaxReplyBytes = 32 << 10

const truncationNote = "\n\n[truncated: the full answer is in the turn's observer frames]"

// target is the mention a batch's reply answers: its newest mention (a
// queued steer has none).
func target(batch []Mention) *Mention {
	for i := len(batch) - 1; i >= 0; i-- {
		if batch[i].ID != "" {
			return &batch[i]
		}
	}
	return nil
}

// rootOf is the thread a mention belongs to (a top-level mention starts
// its own).
func rootOf(m *Mention) string {
	if m.Root != "" {
		return m.Root
	}
	return m.ID
}

// replyEvent builds the reply to a batch: threaded under the newest mention
// (NIP-10 root and reply markers), quoting every other mention of the batch
// with a q tag (NIP-10's replacement for "mention" markers, which the hub
// refuses on messages), p-tagging every asker.
func replyEvent(batch []Mention, text string) *nostr.Event {
	tags := nostr.Tags{{"h", batch[len(batch)-1].Channel}}
	if t := target(batch); t != nil {
		tags = append(tags, nostr.Tag{"e", rootOf(t), "", "root"}, nostr.Tag{"e", t.ID, "", "reply"})
		for _, m := range batch {
			if m.ID != "" && m.ID != t.ID {
				tags = append(tags, nostr.Tag{"q", m.ID})
			}
		}
	}
	tags = append(tags, askers(batch)...)
	tags = append(tags, hopsTag(batch))
	return &nostr.Event{Kind: kinds.Message, CreatedAt: nostr.Now(), Content: clip(text), Tags: tags}
}

// pointerEvents builds, for every other thread the batch's mentions were
// posted in, one short reply in that thread (under its newest mention, with
// its askers) that links to reply, so every asker finds the answer where
// they asked. Top-level mentions need none: the reply names them.
func pointerEvents(batch []Mention, reply *nostr.Event) []*nostr.Event {
	t := target(batch)
	if t == nil {
		return nil
	}
	main := rootOf(t)
	var order []string
	groups := map[string][]Mention{}
	for _, m := range batch {
		if m.ID == "" || m.Root == "" || m.Root == m.ID || m.Root == main {
			continue
		}
		if groups[m.Root] == nil {
			order = append(order, m.Root)
		}
		groups[m.Root] = append(groups[m.Root], m)
	}
	link, _ := nip19.EncodeEvent(reply.ID, nil, reply.PubKey)
	var out []*nostr.Event
	for _, root := range order {
		g := groups[root]
		newest := g[len(g)-1]
		tags := nostr.Tags{{"h", newest.Channel}, {"e", root, "", "root"}, {"e", newest.ID, "", "reply"}, {"q", reply.ID}}
		tags = append(tags, askers(g)...)
		tags = append(tags, hopsTag(batch))
		content := fmt.Sprintf("(answered together with %d other mention(s) that arrived during the same turn: nostr:%s)", len(batch)-len(g), link)
		out = append(out, &nostr.Event{Kind: kinds.Message, CreatedAt: nostr.Now(), Content: content, Tags: tags})
	}
	return out
}

// askers p-tags every author of ms once, in order.
func askers(ms []Mention) nostr.Tags {
	var tags nostr.Tags
	seen := map[string]bool{}
	for _, m := range ms {
		if !seen[m.Author] {
			seen[m.Author] = true
			tags = append(tags, nostr.Tag{"p", m.Author})
		}
	}
	return tags
}

// hopsTag is one more than the largest hop count of the batch.
func hopsTag(batch []Mention) nostr.Tag {
	hops := 0
	for _, m := range batch {
		hops = max(hops, m.Hops)
	}
	return nostr.Tag{"hops", strconv.Itoa(hops + 1)}
}

// clip applies the MaxReplyBytes rule.
func clip(s string) string {
	if len(s) <= MaxReplyBytes {
		return s
	}
	cut := MaxReplyBytes - len(truncationNote)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + truncationNote
}

// refusedNote is the content of the failure reply that replaces a reply the
// hub refused for good: the hub's reason, which names what to fix.
func refusedNote(err error) string {
	why := err.Error()
	var re *client.RefusedError
	if errors.As(err, &re) {
		why = re.Reason
	}
	return clip("⚠️ (could not post the answer: the hub refused it: " + why + ")")
}

// postReply posts the reply of a batch, then a pointer to it in every other
// thread the batch touches, and records the batch as answered. A reply the
// hub refuses for good (invalid:, restricted:, ...: retrying cannot change
// it) is replaced by a short failure reply with the same tags, so the
// mention is still answered once; transient errors are retried by publish.
// Each mention then gets its receipt: answered, or failed with the reason.
func (r *runner) postReply(ctx context.Context, batch []Mention, text string) {
	r.postAnswer(ctx, batch, text, "")
}

// postFailure posts a failure reply (a reply like any other, so the mention
// is answered once) and failed receipts with the reason.
func (r *runner) postFailure(ctx context.Context, batch []Mention, why string) {
	r.postAnswer(ctx, batch, "⚠️ "+why, why)
}

// postAnswer is postReply with failed = the reason when the text reports a
// failure.
func (r *runner) postAnswer(ctx context.Context, batch []Mention, text, failed string) {
	ev := replyEvent(batch, text)
	pctx, cancel := context.WithTimeout(ctx, replyDeadline)
	defer cancel()
	err := r.link.publish(pctx, ev)
	if err != nil && refusedForGood(err) {
		r.log.Warn("the hub refused the reply; posting a failure reply instead", "channel", batch[0].Channel, "bytes", len(ev.Content), "err", err)
		ev = replyEvent(batch, refusedNote(err))
		failed = strings.TrimPrefix(ev.Content, "⚠️ ")
		err = r.link.publish(pctx, ev)
	}
	if err != nil {
		r.log.Error("posting the reply failed", "channel", batch[0].Channel, "err", err)
		r.out.receipt(batch, kinds.ReceiptFailed, "the answer could not be posted: "+err.Error(), "")
		return
	}
	for _, ptr := range pointerEvents(batch, ev) {
		if err := r.link.publish(pctx, ptr); err != nil {
			r.log.Error("posting a pointer to the reply failed", "channel", batch[0].Channel, "err", err)
		}
	}
	r.state.MarkAnswered(batch, 0)
	if failed != "" {
		r.out.receipt(batch, kinds.ReceiptFailed, failed, ev.ID)
	} else {
		r.out.receipt(batch, kinds.ReceiptAnswered, "", ev.ID)
	}
}
