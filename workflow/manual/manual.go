// Package manual is a manual run as every surface starts one (hive
// workflow run, /run in hive chat): the workflow found by name among the
// member's channels, its inputs checked against the definition before
// anything is published, then the run request, whose run id anyone can
// compute (spec/workflows.md, "Triggers at run time").
package manual

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/workflow"
	"github.com/nbd-wtf/go-nostr"
)

// Errors a surface tells apart (the CLI's exit codes): the inputs are
// wrong or the workflow takes no manual runs (bad input), or its
// definition does not validate (a conflict).
var (
	ErrBadInput = errors.New("bad input")
	ErrInvalid  = errors.New("the definition does not validate")
)

// Run is a manual run about to be requested: the workflow, its definition,
// and the inputs, checked, with the defaults filled in.
type Run struct {
	Workflow   client.Workflow
	Definition *workflow.Definition
	Inputs     map[string]any
}

// Find resolves the workflow named name among the workflows of the
// member's channels (only channel's, when it is not ""), as hive workflow
// run does.
func Find(ctx context.Context, c *client.Client, name, channel string) (client.Workflow, *workflow.Definition, error) {
	list, err := c.Workflows(ctx, channel)
	if err != nil {
		return client.Workflow{}, nil, err
	}
	w, err := client.ResolveWorkflow(list, name)
	if err != nil {
		return w, nil, err
	}
	d, err := workflow.Parse(w.Name, []byte(w.Source))
	if err != nil {
		return w, nil, fmt.Errorf("%w: workflow %s does not validate: %v", ErrInvalid, w.Name, err)
	}
	return w, d, nil
}

// Check makes a Run of w from args (NAME=VALUE each): the workflow must
// have a manual trigger, and the inputs must be its inputs, of their
// types, within their options, the required ones given
// (workflow.ParseInputs). Errors wrap ErrBadInput and name the input and
// what it allows.
func Check(w client.Workflow, d *workflow.Definition, args []string) (Run, error) {
	if d.On.Manual == nil {
		return Run{}, fmt.Errorf("%w: workflow %s has no manual trigger: add `manual: {}` under on: to run it by hand", ErrBadInput, w.Name)
	}
	in, err := workflow.ParseInputs(d.On.Manual.Inputs, args)
	if err != nil {
		return Run{}, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	return Run{Workflow: w, Definition: d, Inputs: in}, nil
}

// Start publishes the run request and returns the run's id.
func (r Run) Start(ctx context.Context, c *client.Client) (string, nostr.Event, error) {
	req, err := c.Publish(ctx, client.RunRequest(r.Workflow.Channel, r.Workflow.Address(), r.Inputs))
	if err != nil {
		return "", req, err
	}
	return client.RunIDOf(r.Workflow, req), req, nil
}

// Message is err as a surface shows it: without the ErrBadInput prefix.
func Message(err error) string {
	return strings.TrimPrefix(strings.TrimPrefix(err.Error(), ErrBadInput.Error()+": "), ErrInvalid.Error()+": ")
}
