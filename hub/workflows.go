package hub

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ainb/hive/kinds"
	"github.com/ainb/hive/workflow"
	"github.com/nbd-wtf/go-nostr"
)

// workflowRules: a workflow definition (30460) is published by an owner or
// admin of its channel (a paired device acts as its owner), names its
// runner, and holds a definition that validates, named as its d tag and
// living in its h channel (spec/workflows.md).
func workflowRules(rs ruleSet) {
	rs.add((*tx).workflowDefinition, kinds.WorkflowDef)
	rs.add((*tx).workflowHook, kinds.WorkflowHook)
	rs.add((*tx).runnerSigned, kinds.RunClaim, kinds.RunRecord, kinds.WorkflowStatus)
}

// runnerSigned: a run's claims and records and a workflow's status (40460,
// 40461, 30463) are signed by the workflow's runner only, the key its
// definition's p names, in the definition's channel (spec/workflows.md).
func (t *tx) runnerSigned(ev *nostr.Event) (*change, error) {
	addr := tagValue(ev, "a")
	if ev.Kind == kinds.WorkflowStatus && tagValue(ev, "d") != addr {
		return nil, reject("invalid: a workflow status's d and a tags both name its workflow's address (30460:<author>:<name>)")
	}
	def, err := t.definitionAt(addr)
	if err != nil {
		return nil, err
	}
	if def == nil {
		return nil, reject("invalid: kind %d names no stored workflow definition in its a tag (%q)", ev.Kind, addr)
	}
	if ch := tagValue(def, "h"); ch != tagValue(ev, "h") {
		return nil, reject("invalid: kind %d is of channel %s, and its workflow lives in channel %s", ev.Kind, tagValue(ev, "h"), ch)
	}
	if runner := tagValue(def, "p"); ev.PubKey != runner {
		return nil, reject("restricted: only the workflow's runner (%s, the p of its definition) signs kind %d for %s", runner, ev.Kind, addr)
	}
	return nil, nil
}

func (t *tx) workflowDefinition(ev *nostr.Event) (*change, error) {
	c, actor, err := t.member(ev)
	if err != nil {
		return nil, err
	}
	if !actor.atLeast(roleAdmin) {
		return nil, reject("restricted: only a channel owner or admin may publish a workflow in channel %s", c.id)
	}
	if !nostr.IsValid32ByteHex(tagValue(ev, "p")) {
		return nil, reject("invalid: the p tag names the workflow's runner: a 64-character hex pubkey")
	}
	d, err := workflow.Parse("definition", []byte(ev.Content))
	var errs *workflow.Errors
	if errors.As(err, &errs) {
		first, more := errs.List[0], ""
		if n := len(errs.List) - 1; n > 0 {
			more = fmt.Sprintf(" (and %d more)", n)
		}
		return nil, reject("invalid: the definition does not validate: %d:%d: %s%s; check it with `hive workflow validate FILE`", first.Line, first.Col, first.Message, more)
	}
	if name := tagValue(ev, "d"); d.Name != name {
		return nil, reject("invalid: the definition is named %q and its d tag is %q: they must be the same", d.Name, name)
	}
	if d.Channel != c.id && !strings.EqualFold(d.Channel, c.name) {
		return nil, reject("invalid: the definition's channel is %q, and its h tag names channel %s (%s)", d.Channel, c.id, c.name)
	}
	return nil, nil
}
