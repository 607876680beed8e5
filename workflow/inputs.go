package workflow

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

var inputTypes = []string{"string", "boolean", "number", "choice"}

// input reads one declared input of a manual trigger.
func (r *reader) input(name string, n *yaml.Node) (Input, bool) {
	in := Input{Name: name}
	m, _, ok := r.mapping(n, "input "+name, inputKeys...)
	if !ok {
		return in, false
	}
	if m["type"] == nil {
		r.fail(n, "input %s has no type: add type: (%s)", name, strings.Join(inputTypes, ", "))
		return in, false
	}
	if in.Type, ok = r.word(m["type"], "the type of input "+name, inputTypes...); !ok {
		return in, false
	}
	if v := m["required"]; v != nil {
		in.Required, _ = r.boolean(v, "required")
	}
	if v := m["description"]; v != nil {
		in.Description, _ = r.str(v, "description")
	}
	if v := m["options"]; v != nil {
		if in.Type != "choice" {
			r.fail(v, "options are for a choice input; input %s is a %s: make it type: choice, or drop options", name, in.Type)
		} else {
			for _, o := range list(v) {
				if s, ok := r.str(o, "an option"); ok {
					in.Options = append(in.Options, s)
				}
			}
		}
	}
	if in.Type == "choice" && len(in.Options) == 0 && m["options"] == nil {
		r.fail(m["type"], "input %s is a choice with no options: add options: [a, b]", name)
	}
	if v := m["default"]; v != nil {
		if in.Required {
			r.fail(v, "input %s is required and has a default: a default means it is never missing; drop one of them", name)
		}
		in.Default = r.inputValue(v, in)
	}
	return in, true
}

// inputValue reads a default of the input's type.
func (r *reader) inputValue(n *yaml.Node, in Input) any {
	switch in.Type {
	case "boolean":
		if b, ok := r.boolean(n, "the default of input "+in.Name); ok {
			return b
		}
	case "number":
		f, err := strconv.ParseFloat(n.Value, 64)
		if n.Kind != yaml.ScalarNode || (n.Tag != "!!int" && n.Tag != "!!float") || err != nil {
			r.fail(n, "the default of input %s is %s: it is a number", in.Name, kindName(n))
			return nil
		}
		return f
	default:
		s, ok := r.str(n, "the default of input "+in.Name)
		if !ok {
			return nil
		}
		if in.Type == "choice" && len(in.Options) > 0 && !contains(in.Options, s) {
			r.fail(n, "the default %q of input %s is not one of its options (%s)", s, in.Name, strings.Join(in.Options, ", "))
			return nil
		}
		return s
	}
	return nil
}
