package runner

import (
	"context"

	"github.com/nbd-wtf/go-nostr"
)

// onCancel honours hive workflow cancel RUN from the workflow's author, a
// channel owner or admin, or the one who started the run (a paired device
// acts as its owner); the run stops before its next step, or in a wait.
func (r *Runner) onCancel(ctx context.Context, ev nostr.Event, addr, id string) {
	r.mu.Lock()
	rn := r.runs[id]
	df := r.defs[addr]
	who := r.names.ActsFor(ev.PubKey)
	var allowed bool
	if rn != nil && rn.address == addr && rn.final == "" {
		role := r.chans[rn.channel].Members[who]
		allowed = who == r.names.ActsFor(rn.initiator) || role == "owner" || role == "admin" || (df != nil && r.names.ActsFor(df.ev.PubKey) == who)
	}
	r.mu.Unlock()
	if rn == nil || !allowed {
		r.log.Info("cancel ignored", "run", id, "by", ev.PubKey)
		return
	}
	select {
	case rn.cancel <- who:
	default:
	}
}
