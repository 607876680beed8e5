package agentbridge

import (
	"context"
	"strings"
	"time"

	obs "github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// beginTurn records t in the state as in flight, until its final receipts
// are out, so that the next run can settle it if this one stops first
// (settleLastRun). It returns the record's start, for State.EndTurn.
func (r *runner) beginTurn(t *turn) int64 {
	rec := TurnRecord{Channel: t.channel, Began: time.Now().UnixNano()}
	for _, m := range t.batch {
		if m.ID != "" {
			rec.Mentions = append(rec.Mentions, MentionRef{ID: m.ID, Author: m.Author})
		}
	}
	r.state.BeginTurn(t.id, rec)
	return rec.Began
}

// settleLastRun ends the turns that the previous run left in flight (it was
// killed, crashed, or stopped mid-turn), before this run takes any mention:
//
//   - every watcher hears that each ended (an observer note,
//     obs.StopBridgeRestarted): a turn whose prompt never returned stays
//     "working" for them otherwise, and its mentions, asked again, are
//     answered by a turn of this run that may be named otherwise;
//   - a turn whose reply the hub holds gets the final receipts the previous
//     run may not have published (its mentions were recorded as answered,
//     so this run does not ask them again). A turn without one is asked
//     again by the catch-up, which gives its receipts anew, and its
//     mentions count as received when that turn began (r.asked): the
//     catch-up delivers stored events by created_at, and two mentions of
//     the same second in id order, which says nothing of which was asked
//     first, so a mention posted while the bridge was down could otherwise
//     go before the one in flight and take the reply's thread.
func (r *runner) settleLastRun(ctx context.Context) {
	h := r.link.current()
	r.asked = map[string]time.Time{}
	for id, rec := range r.state.LastRunTurns() {
		r.obs.note(turnRef{channel: rec.Channel, turn: id}, obs.BridgeNote{Ended: obs.StopBridgeRestarted})
		batch := make([]Mention, len(rec.Mentions))
		for i, m := range rec.Mentions {
			batch[i] = Mention{ID: m.ID, Channel: rec.Channel, Author: m.Author}
		}
		if t := target(batch); t != nil && h != nil {
			if reply := replyOnHub(ctx, h, r.keys.PublicHex, t.ID, r.log); reply != nil {
				r.finalReceipts(batch, reply)
				batch = nil
			}
		}
		for i, m := range batch {
			r.asked[m.ID] = time.Unix(0, rec.Began+int64(i))
		}
		r.state.EndTurn(id, rec.Began)
		r.log.Info("a turn of the last run ended with it", "turn", id, "channel", rec.Channel)
	}
}

// finalReceipts gives batch the receipts of reply, an answer the hub
// already holds: answered, or failed for a failure reply (its text is the
// reason).
func (r *runner) finalReceipts(batch []Mention, reply *nostr.Event) {
	if why, failed := strings.CutPrefix(reply.Content, "⚠️ "); failed {
		r.out.receipt(batch, kinds.ReceiptFailed, why, reply.ID)
		return
	}
	r.out.receipt(batch, kinds.ReceiptAnswered, "", reply.ID)
}
