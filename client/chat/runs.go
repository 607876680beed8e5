package chat

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// RunBadge is the newest record of a workflow run on its card (kind
// 40461 by the card's author: records by anyone else do not count), shown
// as the card's badge, as receipts are (spec/workflows.md, "Runs are
// events").
type RunBadge struct {
	Run     string          `json:"run"`
	Status  string          `json:"status"` // kinds.RunStarted, ...
	Step    string          `json:"step,omitempty"`
	Index   int             `json:"index,omitempty"` // the step's number, from 1
	Of      int             `json:"of,omitempty"`
	Outcome string          `json:"outcome,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	By      string          `json:"by,omitempty"`
	Until   int64           `json:"until,omitempty"` // a wait's end, unix seconds
	For     string          `json:"for,omitempty"`   // a waiting record's: approval, agent
	Who     string          `json:"who,omitempty"`   // whom it waits for, in words
	Ms      int64           `json:"ms,omitempty"`    // a finished run's duration
	At      nostr.Timestamp `json:"at"`
}

// runBadge reads a run record into the badge it would show.
func runBadge(ev *nostr.Event) (*RunBadge, bool) {
	b := &RunBadge{Run: tagOf(ev, kinds.RunTag), Status: tagOf(ev, "status"), Outcome: tagOf(ev, "outcome"), At: ev.CreatedAt}
	if !kinds.ValidRunStatus(b.Status) {
		return nil, false
	}
	var body struct {
		Reason string `json:"reason"`
		By     string `json:"by"`
		Until  int64  `json:"until"`
		Ms     int64  `json:"ms"`
		For    string `json:"for"`
		Who    string `json:"who"`
	}
	json.Unmarshal([]byte(ev.Content), &body) // content that is not JSON adds nothing
	b.Reason, b.By, b.Until, b.Ms, b.For, b.Who = body.Reason, body.By, body.Until, body.Ms, body.For, body.Who
	if t := ev.Tags.Find("step"); len(t) >= 4 {
		b.Step = t[1]
		b.Index, _ = strconv.Atoi(t[2])
		b.Of, _ = strconv.Atoi(t[3])
	}
	return b, true
}

// Words is the badge as a surface prints it: "running step 2/4", "waiting
// until 16:20", "waiting for approval (carol, channel admins) until 16:20",
// "waiting for reviewer", "✓ finished 12s", "✗ failed at gate: ...". Times are in loc.
func (b RunBadge) Words(loc *time.Location) string {
	switch b.Status {
	case kinds.RunStarted:
		return "started"
	case kinds.RunStep:
		switch b.Outcome {
		case kinds.StepRunning:
			return fmt.Sprintf("running step %d/%d", b.Index, b.Of)
		case kinds.StepFailed:
			return fmt.Sprintf("step %d/%d failed: %s", b.Index, b.Of, b.Reason)
		}
		return fmt.Sprintf("step %d/%d %s", b.Index, b.Of, b.Outcome)
	case kinds.RunWaiting:
		until := time.Unix(b.Until, 0).In(loc).Format("15:04")
		switch b.For {
		case kinds.WaitApproval:
			return "waiting for approval (" + b.Who + ") until " + until
		case kinds.WaitAgent:
			return "waiting for " + b.Who
		}
		return "waiting until " + until
	case kinds.RunApproved:
		return "✓ " + b.Reason
	case kinds.RunDenied:
		return "✗ " + b.Reason
	case kinds.RunFinished:
		return fmt.Sprintf("✓ finished %ds", (b.Ms+500)/1000)
	case kinds.RunFailed:
		return "✗ failed " + b.Reason
	case kinds.RunCancelled:
		return "✗ " + b.Reason
	}
	return b.Status + ": " + b.Reason
}
