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
