package workflow

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// reader walks a definition's YAML nodes, collecting every problem.
type reader struct {
	lines []string
	errs  *Errors
	exprs int // expressions compiled so far (MaxExpressions)
}

// budget counts k more expressions at n; false (reported once) past
// MaxExpressions.
func (r *reader) budget(n *yaml.Node, k int) bool {
	r.exprs += k
	if r.exprs <= MaxExpressions {
		return true
	}
	if r.exprs-k <= MaxExpressions {
		r.fail(n, "more than %d expressions in one definition: split it into several workflows", MaxExpressions)
	}
	return false
}

func pos(n *yaml.Node) Pos { return Pos{Line: n.Line, Col: n.Column} }

func (r *reader) fail(n *yaml.Node, format string, args ...any) {
	r.errs.add(pos(n), format, args...)
}

// kindName is how a node is named in messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping (key: value)"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	}
	if n.Tag == "!!null" {
		return "empty"
	}
	return "a value (" + strconv.Quote(n.Value) + ")"
}

// resolve follows aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// mapping reads n as a mapping whose keys are among allowed: an unknown
// key is an error naming it and listing the allowed ones, and so is a key
// given twice. what names the mapping in messages ("a step").
func (r *reader) mapping(n *yaml.Node, what string, allowed ...string) (map[string]*yaml.Node, map[string]*yaml.Node, bool) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		r.fail(n, "%s is %s here: write keys (%s)", what, kindName(n), strings.Join(allowed, ", "))
		return nil, nil, false
	}
	vals, keys := map[string]*yaml.Node{}, map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			r.fail(k, "a key of %s is %s: keys are plain words (%s)", what, kindName(k), strings.Join(allowed, ", "))
			continue
		}
		if !contains(allowed, k.Value) {
			r.fail(k, "unknown key %q in %s: %s", k.Value, what, allowedKeys(what, allowed))
			continue
		}
		if first, dup := keys[k.Value]; dup {
			r.fail(k, "key %q is given twice in %s (first at %d:%d): keep one", k.Value, what, first.Line, first.Column)
			continue
		}
		keys[k.Value], vals[k.Value] = k, resolve(v)
	}
	return vals, keys, true
}

// allowedKeys lists the keys a mapping may have, for an unknown key's
// message; a step's are told apart from its actions.
func allowedKeys(what string, allowed []string) string {
	if what == "a step" {
		return "a step has " + strings.Join(stepKeys, ", ") + " and exactly one action: " + strings.Join(actions, ", ")
	}
	if len(allowed) == 0 {
		return "it takes no keys (write {} or leave it empty)"
	}
	return "the keys here are " + strings.Join(allowed, ", ")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// str reads a scalar as text; what names it in messages.
func (r *reader) str(n *yaml.Node, what string) (string, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag == "!!null" {
		r.fail(n, "%s is %s: write a text", what, kindName(n))
		return "", false
	}
	return n.Value, true
}

// word reads a scalar that must be one of choices.
func (r *reader) word(n *yaml.Node, what string, choices ...string) (string, bool) {
	s, ok := r.str(n, what)
	if ok && !contains(choices, s) {
		r.fail(n, "%s %q is not one of %s", what, s, strings.Join(choices, ", "))
		return "", false
	}
	return s, ok
}

// pattern reads a scalar that must match re (rule describes it).
func (r *reader) pattern(n *yaml.Node, what string, re *regexp.Regexp, rule string) (string, bool) {
	s, ok := r.str(n, what)
	if ok && !re.MatchString(s) {
		r.fail(n, "%s %q is not valid: %s", what, s, rule)
		return "", false
	}
	return s, ok
}

func (r *reader) boolean(n *yaml.Node, what string) (bool, bool) {
	if n.Kind != yaml.ScalarNode || n.Tag != "!!bool" {
		r.fail(n, "%s is %s: write true or false", what, kindName(n))
		return false, false
	}
	return n.Value == "true", true
}

func (r *reader) integer(n *yaml.Node, what string, lo, hi int) (int, bool) {
	v, err := strconv.Atoi(n.Value)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!int" || err != nil {
		r.fail(n, "%s is %s: write a whole number from %d to %d", what, kindName(n), lo, hi)
		return 0, false
	}
	if v < lo || v > hi {
		r.fail(n, "%s is %d: it is %d to %d", what, v, lo, hi)
		return 0, false
	}
	return v, true
}

// list reads a list, or a single item as a list of one.
func list(n *yaml.Node) []*yaml.Node {
	if n.Kind == yaml.SequenceNode {
		out := make([]*yaml.Node, len(n.Content))
		for i, c := range n.Content {
			out[i] = resolve(c)
		}
		return out
	}
	return []*yaml.Node{n}
}

// Duration bounds (spec/workflows.md, "Limits").
const (
	MinDuration = time.Second
	MaxDuration = 7 * 24 * time.Hour
)

var durationRE = regexp.MustCompile(`^(?:\d+(?:d|h|m|s))+$`)

// duration reads a duration such as 30s, 10m, 4h, 7d or 1h30m, from lo to
// hi.
func (r *reader) duration(n *yaml.Node, what string, lo, hi time.Duration) (time.Duration, bool) {
	s, ok := r.str(n, what)
	if !ok {
		return 0, false
	}
	if !durationRE.MatchString(s) {
		r.fail(n, "%s %q is not a duration: write a number and a unit (s, m, h, d), e.g. 30s, 10m, 4h, 7d or 1h30m", what, s)
		return 0, false
	}
	var d time.Duration
	for _, m := range regexp.MustCompile(`(\d+)([dhms])`).FindAllStringSubmatch(s, -1) {
		v, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil || v > 1e7 {
			d = hi + 1
			break
		}
		d += time.Duration(v) * map[string]time.Duration{"d": 24 * time.Hour, "h": time.Hour, "m": time.Minute, "s": time.Second}[m[2]]
	}
	if d < lo || d > hi {
		r.fail(n, "%s %s is out of bounds: it is %s to %s", what, s, human(lo), human(hi))
		return 0, false
	}
	return d, true
}

// human writes a bound the way definitions do (1s, 7d).
func human(d time.Duration) string {
	switch {
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	case d%time.Minute == 0:
		return fmt.Sprintf("%dm", d/time.Minute)
	}
	return fmt.Sprintf("%ds", d/time.Second)
}
