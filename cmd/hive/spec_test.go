package main

import (
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/spec"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// specSections splits spec/cli.md into its "### " sections, by heading.
func specSections(t *testing.T) (map[string]string, string) {
	t.Helper()
	doc := spec.Text(t, "cli.md")
	out := map[string]string{}
	heading := regexp.MustCompile(`(?m)^#{2,3} (.*)$`)
	locs := heading.FindAllStringSubmatchIndex(doc, -1)
	for i, l := range locs {
		if !strings.HasPrefix(doc[l[0]:], "### ") {
			continue
		}
		end := len(doc)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		out[doc[l[2]:l[3]]] = doc[l[1]:end]
	}
	return out, doc
}

// leaves returns the runnable commands of the tree by path ("hive channel create").
func leaves(c *cobra.Command) map[string]*cobra.Command {
	out := map[string]*cobra.Command{}
	for _, sub := range c.Commands() {
		if sub.Hidden || sub.Name() == "help" {
			continue
		}
		if sub.HasSubCommands() {
			for k, v := range leaves(sub) {
				out[k] = v
			}
			if sub.Runnable() { // a command of its own too (hive workflow hook NAME)
				out[sub.CommandPath()] = sub
			}
		} else {
			out[sub.CommandPath()] = sub
		}
	}
	return out
}

// Every command has a section, every section a command, and every flag of a
// command is named in its section.
func TestSpecNamesEveryCommandAndFlag(t *testing.T) {
	sections, _ := specSections(t)
	cmds := leaves(newRootCmd())
	for path, cmd := range cmds {
		body, ok := sections[path]
		if !ok {
			t.Errorf("spec/cli.md has no section \"### %s\"", path)
			continue
		}
		cmd.LocalNonPersistentFlags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden || f.Name == "help" || f.Name == "timeout" { // --timeout: in the conventions
				return
			}
			if !strings.Contains(body, "--"+f.Name) {
				t.Errorf("spec/cli.md section %q does not name --%s", path, f.Name)
			}
		})
	}
	for h := range sections {
		if strings.HasPrefix(h, "hive ") {
			if _, ok := cmds[h]; !ok {
				t.Errorf("spec/cli.md documents %q, which is not a command", h)
			}
		}
	}
	// the global flags are in the conventions
	_, doc := specSections(t)
	newRootCmd().PersistentFlags().VisitAll(func(f *pflag.Flag) {
		if !strings.Contains(doc, "`--"+f.Name) {
			t.Errorf("spec/cli.md does not name the global flag --%s", f.Name)
		}
	})
}

// The exit code table is the mapper's.
func TestSpecExitCodes(t *testing.T) {
	_, doc := specSections(t)
	row := regexp.MustCompile("(?m)^\\| ([0-9]) \\| `([a-z_]+)` \\|")
	found := map[int]string{}
	for _, m := range row.FindAllStringSubmatch(doc, -1) {
		n, _ := strconv.Atoi(m[1])
		found[n] = m[2]
	}
	codes := []int{exitUsage, exitUnavailable, exitRefused, exitNotFound, exitConflict, exitTimeout}
	for _, code := range codes {
		if found[code] != className(code) {
			t.Errorf("exit %d: spec says %q, code says %q", code, found[code], className(code))
		}
	}
	if len(found) != len(codes) {
		t.Errorf("spec lists codes %v", found)
	}
}

// jsonKeys are the JSON field names of a struct type, following embedded structs.
func jsonKeys(t reflect.Type) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous {
			out = append(out, jsonKeys(f.Type)...)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// The JSON keys the spec lists for the typed outputs are the code's.
func TestSpecJSONShapes(t *testing.T) {
	sections, _ := specSections(t)
	quoted := regexp.MustCompile(`"([a-z_]+)"`)
	for _, tc := range []struct {
		section string
		v       any
		drop    []string // keys this command leaves out
	}{
		{"Row", rowOut{}, nil},
		{"hive channel info", client.Channel{}, []string{"unread", "mentions"}},
		{"hive channel list", client.Channel{}, []string{"members"}},
		{"hive agent list", client.AgentStatus{}, nil},
		{"hive profile add", profileView{}, nil},
		{"hive key new", keyOutput{}, nil},
		{"hive agent attest", attestOutput{}, nil},
		{"hive agent verify", verifyOutput{}, nil},
	} {
		var spec []string
		for _, m := range quoted.FindAllStringSubmatch(sections[tc.section], -1) {
			if !slices.Contains(spec, m[1]) && m[1] != "agents" {
				spec = append(spec, m[1])
			}
		}
		sort.Strings(spec)
		want := slices.DeleteFunc(jsonKeys(reflect.TypeOf(tc.v)), func(k string) bool { return slices.Contains(tc.drop, k) })
		if !slices.Equal(spec, want) {
			t.Errorf("%s: spec lists %v, code prints %v", tc.section, spec, want)
		}
	}
}
