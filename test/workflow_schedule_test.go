package test

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

const tickWorkflow = `name: tick
channel: ops
on:
  schedule:
    - cron: "* * * * *"
      max_late: 1h
steps:
  - id: say
    post: "tick ${{ trigger.id }}"
`

// Schedules through the real binaries, with the runner's clock shifted so
// that a slot comes within seconds (--clock-offset, no sleeping for a
// minute): a definition applied 200 s ago finds its missed slots at start;
// only the newest runs, the older ones are counted as skipped in the
// runner's status; the next slot fires once, within a second of its
// instant, dated at it.
func TestWorkflowScheduleFires(t *testing.T) {
	e := newWorkflowEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	def := client.WorkflowEvent("ops", "tick", e.runnerHex, tickWorkflow)
	def.CreatedAt = nostr.Timestamp(time.Now().Add(-200 * time.Second).Unix())
	if _, err := e.alice.Publish(ctx, def); err != nil {
		t.Fatal(err)
	}
	sub, err := e.alice.Subscribe(ctx, nostr.Filter{Kinds: []int{kinds.RunClaim}, Authors: []string{e.runnerHex}})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	<-sub.EOSE()

	real := time.Now()
	offset := time.Duration((56-real.Second()+60)%60)*time.Second - time.Duration(real.Nanosecond())
	e.serve(t, "--clock-offset", offset.String())
	var claims []nostr.Event
	var arrived []time.Time
	for len(claims) < 2 {
		select {
		case ev := <-sub.Events():
			claims, arrived = append(claims, ev), append(arrived, time.Now())
		case <-ctx.Done():
			t.Fatalf("claims: %d", len(claims))
		}
	}
	slot := func(ev nostr.Event) string {
		return ev.CreatedAt.Time().UTC().Format("2006-01-02T15:04") + " UTC"
	}
	for _, c := range claims {
		if tr := c.Tags.Find("trigger"); len(tr) < 3 || tr[1] != client.TriggerSchedule || tr[2] != slot(c) || c.CreatedAt%60 != 0 {
			t.Fatalf("claim %v at %d", c.Tags, c.CreatedAt)
		}
	}
	sort.Slice(claims, func(i, j int) bool { return claims[i].CreatedAt < claims[j].CreatedAt })
	if claims[1].CreatedAt-claims[0].CreatedAt != 60 {
		t.Fatalf("slots %s and %s are not consecutive", slot(claims[0]), slot(claims[1]))
	}
	// the second slot's instant, on the runner's clock, is this on ours
	due := claims[1].CreatedAt.Time().Add(-offset)
	if late := arrived[1].Sub(due); late > time.Second {
		t.Fatalf("slot %s fired %v after its instant", slot(claims[1]), late)
	} else {
		t.Logf("slot %s claimed %v after its instant", slot(claims[1]), late)
	}
	for _, c := range claims {
		e.waitFinal(t, c.ID, 20*time.Second)
		if n := len(e.messagesWith(t, "tick "+slot(c))); n != 1 {
			t.Fatalf("slot %s: %d posts", slot(c), n)
		}
	}
	sts := e.query(t, nostr.Filter{Kinds: []int{kinds.WorkflowStatus}, Authors: []string{e.runnerHex}})
	var st struct {
		Skipped int   `json:"skipped"`
		Settled int64 `json:"settled"`
	}
	if len(sts) != 1 || json.Unmarshal([]byte(sts[0].Content), &st) != nil || st.Skipped < 2 || st.Settled != int64(claims[0].CreatedAt)-60 {
		t.Fatalf("status: %+v %s", st, fmt.Sprint(sts))
	}
}
