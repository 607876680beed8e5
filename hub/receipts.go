package hub

import (
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// receiptRules: an agent's receipt (40010) names a message of its channel;
// an agent status (10451) is signed by an agent.
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

func (t *tx) agentStatus(ev *nostr.Event) (*change, error) {
	return nil, t.signedByAgent(ev, "an agent status")
}
