package kinds

import (
	"slices"
	"strconv"

	"github.com/nbd-wtf/go-nostr"
)

// The status tag values of a workflow run record (kind RunRecord): where a
// run stands (spec/workflows.md, "Runs").
const (
	RunStarted   = "started"   // the run began (content: the definition it runs)
	RunStep      = "step"      // a step's outcome tag says running, success, failed or skipped
	RunWaiting   = "waiting"   // a wait step waits until the content's until
	RunFinished  = "finished"  // every step ran
	RunFailed    = "failed"    // a step failed (the content's reason)
	RunCancelled = "cancelled" // hive workflow cancel, by the content's by
	RunSkipped   = "skipped"   // the trigger did not start a run (the content's reason)
	RunApproved  = "approved"  // an approval gate was approved (the content's by and approvals)
	RunDenied    = "denied"    // an approval gate was denied (the content's by)
	RunIgnored   = "ignored"   // a reaction on an approval request that does not count (the content's by and reason); never a badge
)

// What a waiting record waits for (its content's "for"): a wait step's
// end has none.
const (
	WaitApproval = "approval" // an approval gate: the request, approvers, min, until
	WaitAgent    = "agent"    // ask_agent: the agent's receipt on the mention
)

// The outcome tag values of a step record.
const (
	StepRunning = "running"
	StepSuccess = "success"
	StepFailed  = "failed"
	StepSkipped = "skipped"
)

// RunStatuses lists the status values of a run record.
func RunStatuses() []string {
	return []string{RunStarted, RunStep, RunWaiting, RunFinished, RunFailed, RunCancelled, RunSkipped, RunApproved, RunDenied, RunIgnored}
}

// ValidRunStatus reports whether s is a run record's status.
func ValidRunStatus(s string) bool { return slices.Contains(RunStatuses(), s) }

// RunFinal reports whether s ends a run.
func RunFinal(s string) bool {
	return s == RunFinished || s == RunFailed || s == RunCancelled || s == RunSkipped
}

// MaxHops is the hops a trigger may carry: an event at MaxHops or more
// starts no run (spec/workflows.md, "Loops and budgets"), as the bridge
// answers no mention at that depth.
const MaxHops = 3

// RunTag names the tag of a run record that holds the run's id (its
// claim's): one letter, so that a filter can name it (#R).
const RunTag = "R"

// RunClaimEvent is the claim of the run a trigger starts (client.RunClaim,
// spec/workflows.md "Exactly once"), its id set: signed by runner (hex),
// dated at the trigger, with fixed tags and no content, so that every
// attempt to claim one trigger is one event. The hub computes it too, to
// name the run a webhook delivery starts.
func RunClaimEvent(runner, channel, address, trigger, ref string, at nostr.Timestamp, hops int) nostr.Event {
	ev := nostr.Event{PubKey: runner, Kind: RunClaim, CreatedAt: at, Content: "", Tags: nostr.Tags{
		{"h", channel}, {"a", address}, {"trigger", trigger, ref}, {"hops", strconv.Itoa(hops)}}}
	ev.ID = ev.GetID()
	return ev
}
