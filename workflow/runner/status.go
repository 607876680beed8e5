package runner

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// statusLoop renews the runner's agent status (kind 10451, as a bridge's)
// every 30 s, so that hive who shows it with its state, and saves the
// cursor.
func (r *Runner) statusLoop(ctx context.Context) {
	t := time.NewTicker(30 * time.Second)
	defer t.Stop()
	conn := time.Now().UnixMilli()
	for {
		r.mu.Lock()
		open := 0
		for _, rn := range r.runs {
			if rn.final == "" {
				open++
			}
		}
		r.mu.Unlock()
		st := client.AgentState{State: client.AgentIdle, Processes: 1, Conn: conn, At: time.Now().Unix()}
		if open > 0 {
			st.State, st.Busy = client.AgentWorking, open
		}
		b, _ := json.Marshal(st)
		exp := time.Now().Unix() + kinds.AgentStatusMaxLifetime
		if _, err := r.c.Publish(ctx, nostr.Event{Kind: kinds.AgentStatus, Content: string(b), Tags: nostr.Tags{{"expiration", strconv.FormatInt(exp, 10)}}}); err != nil && ctx.Err() == nil {
			r.log.Debug("status", "err", err)
		}
		r.saveCursor()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
