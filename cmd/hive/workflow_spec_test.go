package main

import (
	"reflect"
	"regexp"
	"slices"
	"sort"
	"testing"

	"github.com/ainb/hive/workflow"
)

// The JSON keys spec/cli.md lists for the workflow commands are the code's.
func TestSpecWorkflowJSON(t *testing.T) {
	sections, _ := specSections(t)
	quoted := regexp.MustCompile(`"([a-z_]+)"`)
	for _, tc := range []struct {
		section string
		types   []any
		minus   any // keys the section names by reference ("list's fields")
	}{
		{"hive workflow validate", []any{validateOutput{}, workflow.Error{}}, nil},
		{"hive workflow next", []any{nextSlot{}}, nil},
		{"hive workflow apply", []any{applyOutput{}}, nil},
		{"hive workflow list", []any{workflowItem{}}, nil},
		{"hive workflow show", []any{showOutput{}, showStep{}}, workflowItem{}},
	} {
		var spec, want []string
		for _, m := range quoted.FindAllStringSubmatch(sections[tc.section], -1) {
			if !slices.Contains(spec, m[1]) {
				spec = append(spec, m[1])
			}
		}
		for _, v := range tc.types {
			want = append(want, jsonKeys(reflect.TypeOf(v))...)
		}
		if tc.minus != nil {
			want = slices.DeleteFunc(want, func(k string) bool { return slices.Contains(jsonKeys(reflect.TypeOf(tc.minus)), k) })
		}
		sort.Strings(spec)
		sort.Strings(want)
		if !slices.Equal(spec, want) {
			t.Errorf("%s: spec lists %v, code prints %v", tc.section, spec, want)
		}
	}
}
