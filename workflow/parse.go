package workflow

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strings"

	"github.com/ainb/hive/workflow/expression"
	"go.yaml.in/yaml/v3"
)

// Limits of one definition (spec/workflows.md, "Limits").
const (
	MaxBytes       = 64 << 10
	MaxSteps       = 50
	MaxTriggers    = 10
	MaxExpressions = 500 // in one definition: bounds what validating one costs
	MaxErrors      = 100 // reported; the rest are counted
)

var (
	nameRE  = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,63}$`)
	identRE = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
)

// Parse reads and validates a definition. file names it in errors. On any
// problem it returns every problem found (an *Errors), and the definition
// as far as it could be read (nil for invalid YAML).
func Parse(file string, src []byte) (*Definition, error) {
	errs := &Errors{File: file}
	if len(src) > MaxBytes {
		errs.add(Pos{Line: 1, Col: 1}, "the definition is %d bytes: at most %d", len(src), MaxBytes)
		return nil, errs
	}
	src = bytes.TrimPrefix(src, []byte("\xef\xbb\xbf"))
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(src))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			errs.add(Pos{Line: 1, Col: 1}, "the file is empty: a workflow has a name, a channel, on: (its triggers) and steps:")
			return nil, errs
		}
		errs.List = append(errs.List, syntaxError(src, err))
		return nil, errs
	}
	var more yaml.Node
	if err := dec.Decode(&more); err == nil {
		errs.add(pos(&more), "a second YAML document (after ---): a file holds one workflow")
	} else if !errors.Is(err, io.EOF) {
		errs.List = append(errs.List, syntaxError(src, err))
		return nil, errs
	}
	r := &reader{lines: strings.Split(string(src), "\n"), errs: errs}
	for i, l := range r.lines {
		r.lines[i] = strings.TrimSuffix(l, "\r")
	}
	d := r.definition(doc.Content[0])
	if len(errs.List) > 0 {
		errs.sorted()
		return d, errs
	}
	return d, nil
}

func (r *reader) definition(n *yaml.Node) *Definition {
	m, keys, ok := r.mapping(n, "a workflow", topKeys...)
	if !ok {
		return nil
	}
	d := &Definition{Concurrency: "queue"}
	for _, k := range []string{"name", "channel", "on", "steps"} {
		if m[k] == nil {
			r.fail(n, "the workflow has no %s: %s", k, map[string]string{
				"name":    "add name: (lower-case letters, digits and -, e.g. name: deploy-approval)",
				"channel": "add channel: (the channel it lives in, e.g. channel: ops)",
				"on":      "add on: with one or more triggers (message, reaction, schedule, webhook, manual)",
				"steps":   "add steps: with one or more steps",
			}[k])
		}
	}
	if v := m["name"]; v != nil {
		d.Name, _ = r.pattern(v, "the name", nameRE, "lower-case letters, digits and -, at most 64, e.g. deploy-approval")
	}
	if v := m["channel"]; v != nil {
		if s, ok := r.str(v, "the channel"); ok {
			if strings.TrimSpace(s) == "" || len(s) > 64 || strings.ContainsAny(s, " \t\n") {
				r.fail(v, "the channel %q is not a channel's name: write the channel's id or name as `hive channel list` shows it", s)
			}
			d.Channel = s
		}
	}
	if v := m["description"]; v != nil {
		d.Description, _ = r.str(v, "the description")
	}
	if v := m["concurrency"]; v != nil {
		d.Concurrency, _ = r.word(v, "concurrency", "single", "queue", "parallel")
	}
	if v := m["on"]; v != nil {
		d.On = r.triggers(keys["on"], v)
	}
	if v := m["steps"]; v != nil {
		d.Steps = r.steps(v, d.On)
	}
	r.approversAreNotAgents(d)
	return d
}

// scopeFor is what a step's expressions may name.
func scopeFor(manual *ManualTrigger, before []string, secrets bool) expression.Scope {
	s := expression.Scope{Steps: before, Secrets: secrets}
	if manual != nil {
		for _, in := range manual.Inputs {
			s.Inputs = append(s.Inputs, expression.Input{Name: in.Name, Type: in.Type})
		}
	}
	return s.Prepared()
}
