package runner

import (
	"context"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/workflow/expression"
	"github.com/nbd-wtf/go-nostr"
)

// scheduleTick is how often schedules are looked at: a slot fires within
// this of its instant.
const scheduleTick = 250 * time.Millisecond

// scheduleLoop fires schedule slots: each slot's claim is dated at the
// slot's instant, so a slot fires once whatever restarts. After a downtime
// only the newest missed slot within max_late runs (schedule.Due); the
// others are counted in the workflow's status.
func (r *Runner) scheduleLoop(ctx context.Context) {
	settled := map[string]time.Time{} // by address and schedule index: the newest slot settled
	t := time.NewTicker(scheduleTick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := r.now()
		var starts []start
		var skipped []*def
		r.mu.Lock()
		for addr, df := range r.defs {
			if d, _ := r.active(addr); d == nil || len(df.d.On.Schedule) == 0 {
				continue
			}
			for i, sc := range df.d.On.Schedule {
				key := addr + "\x00" + string(rune('0'+i))
				last := r.lastSlot(df, settled[key], now)
				due := sc.Schedule.Due(last, now, sc.MaxLate)
				if due.Skipped > 0 {
					r.log.Info("schedule slots skipped", "workflow", df.d.Name, "count", due.Skipped, "oldest", due.Oldest.ID(), "newest", due.Newest.ID())
					st := r.statuses[addr]
					st.Skipped += due.Skipped
					if due.Newest != nil && due.Newest.At.Unix() > st.Settled {
						st.Settled = due.Newest.At.Unix()
					}
					r.statuses[addr] = st
					skipped = append(skipped, df)
					settled[key] = due.Newest.At
				}
				if due.Run == nil {
					continue
				}
				settled[key] = due.Run.At
				sl := *due.Run
				starts = append(starts, start{addr: addr, trigger: client.TriggerSchedule, ref: sl.ID(), at: nostr.Timestamp(sl.At.Unix()),
					values: expression.Trigger{Type: client.TriggerSchedule, ID: sl.ID(), At: sl.At, Mentions: []string{},
						Channel: expression.Channel{ID: df.channel, Name: r.chans[df.channel].Name}}})
			}
		}
		r.mu.Unlock()
		for _, df := range skipped {
			r.mu.Lock()
			st := r.statuses[df.address]
			r.mu.Unlock()
			if st.Status == "" {
				st.Status = "active"
			}
			if err := r.setStatus(ctx, df, st); err != nil {
				r.log.Warn("status", "workflow", df.d.Name, "err", err)
			}
		}
		for _, s := range starts {
			r.start(ctx, s)
		}
	}
}

// lastSlot is the instant every slot up to which is settled: the newest
// of the workflow's schedule claims, the status's settled slot, the
// definition's time, and a week ago. r.mu held.
func (r *Runner) lastSlot(df *def, settled, now time.Time) time.Time {
	last := df.ev.CreatedAt.Time()
	if t := now.Add(-runMaxAge); t.After(last) {
		last = t
	}
	if st := r.statuses[df.address]; st.Settled > 0 && time.Unix(st.Settled, 0).After(last) {
		last = time.Unix(st.Settled, 0)
	}
	if settled.After(last) {
		last = settled
	}
	for _, rn := range r.runs {
		if rn.address == df.address && rn.trigger == client.TriggerSchedule && rn.claimedAt().After(last) {
			last = rn.claimedAt()
		}
	}
	return last
}
