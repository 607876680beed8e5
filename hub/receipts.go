package hub

import (
	"strconv"

	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// receiptRules: an agent's receipt (40010) names a message of its channel;
// an agent status (10451) is signed by an agent and expires within minutes.
func receiptRules(rs ruleSet) {
	rs.add((*tx).receipt, kinds.Receipt)
	rs.add((*tx).agentStatus, kinds.AgentStatus)
}

// signedByAgent refuses an event whose author is not an attested agent
// acting as itself (a paired device acts as its owner, a member is none).
func (t *tx) signedByAgent(ev *nostr.Event, what string) error {
	owner, err := t.ownerOf(ev.PubKey)
	if err != nil {
		return err
	}
	if owner == "" || t.by != ev.PubKey {
		return reject("restricted: only an agent signs %s (kind %d)", what, ev.Kind)
	}
	return nil
}

func (t *tx) receipt(ev *nostr.Event) (*change, error) {
	if err := t.signedByAgent(ev, "receipts"); err != nil {
		return nil, err
	}
	if status := tagValue(ev, "status"); !kinds.ValidReceiptStatus(status) {
		return nil, reject("invalid: receipt status %q: use one of %v", status, kinds.ReceiptStatuses())
	}
	_, _, err := t.target(ev)
	return nil, err
}

// agentStatus: an agent signs its own status, and its expiration is at
// most kinds.AgentStatusMaxLifetime after its created_at.
func (t *tx) agentStatus(ev *nostr.Event) (*change, error) {
	if err := t.signedByAgent(ev, "an agent status"); err != nil {
		return nil, err
	}
	exp, err := strconv.ParseInt(tagValue(ev, "expiration"), 10, 64)
	if err != nil {
		return nil, reject("invalid: an agent status's expiration must be a unix time in seconds")
	}
	if d := exp - int64(ev.CreatedAt); d > kinds.AgentStatusMaxLifetime {
		return nil, reject("invalid: an agent status (kind %d) expires at most %d s (10 minutes) after its created_at; this one expires %d s after it",
			ev.Kind, kinds.AgentStatusMaxLifetime, d)
	}
	return nil, nil
}
