package workflow

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ParseInputs reads a manual run's k=v arguments (hive workflow run
// --input) by the declared types: a boolean is true or false, a number a
// decimal. Then CheckInputs.
func ParseInputs(decl []Input, args []string) (map[string]any, error) {
	given := map[string]any{}
	for _, a := range args {
		k, v, ok := strings.Cut(a, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("--input %q: write NAME=VALUE", a)
		}
		in, found := findInput(decl, k)
		if !found {
			return nil, fmt.Errorf("no input %q: %s", k, inputNames(decl))
		}
		switch in.Type {
		case "boolean":
			b, err := strconv.ParseBool(v)
			if err != nil || (v != "true" && v != "false") {
				return nil, fmt.Errorf("input %s is a boolean: give %s=true or %s=false, not %q", k, k, k, v)
			}
			given[k] = b
		case "number":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return nil, fmt.Errorf("input %s is a number: %q is not one", k, v)
			}
			given[k] = f
		default:
			given[k] = v
		}
	}
	return CheckInputs(decl, given)
}

// CheckInputs checks a manual run's inputs against the declaration: every
// one declared, of its type, a choice among its options, the required ones
// given; the defaults fill the rest. The error names the input and what it
// allows.
func CheckInputs(decl []Input, given map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for k := range given {
		if _, ok := findInput(decl, k); !ok {
			return nil, fmt.Errorf("no input %q: %s", k, inputNames(decl))
		}
	}
	for _, in := range decl {
		v, ok := given[in.Name]
		if !ok {
			if in.Required {
				return nil, fmt.Errorf("input %s is required (%s)", in.Name, describeInput(in))
			}
			if in.Default != nil {
				out[in.Name] = in.Default
			}
			continue
		}
		switch in.Type {
		case "boolean":
			if _, ok := v.(bool); !ok {
				return nil, fmt.Errorf("input %s is a boolean, not %v", in.Name, v)
			}
		case "number":
			if _, ok := v.(float64); !ok {
				return nil, fmt.Errorf("input %s is a number, not %v", in.Name, v)
			}
		default:
			s, ok := v.(string)
			if !ok {
				return nil, fmt.Errorf("input %s is a %s, not %v", in.Name, in.Type, v)
			}
			if in.Type == "choice" && !slices.Contains(in.Options, s) {
				return nil, fmt.Errorf("input %s is one of %s, not %q", in.Name, strings.Join(in.Options, ", "), s)
			}
		}
		out[in.Name] = v
	}
	return out, nil
}

func findInput(decl []Input, name string) (Input, bool) {
	for _, in := range decl {
		if in.Name == name {
			return in, true
		}
	}
	return Input{}, false
}

func describeInput(in Input) string {
	if in.Type == "choice" {
		return "one of " + strings.Join(in.Options, ", ")
	}
	return "a " + in.Type
}

func inputNames(decl []Input) string {
	if len(decl) == 0 {
		return "the workflow takes no inputs"
	}
	var n []string
	for _, in := range decl {
		n = append(n, in.Name+" ("+describeInput(in)+")")
	}
	return "the inputs are " + strings.Join(n, ", ")
}
