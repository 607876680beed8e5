package workflow

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// Every byte of a scalar's value maps to the character it came from, in
// each YAML style: the check is that the character at the mapped position
// is the value's character (escapes map to their backslash).
func TestScalarMap(t *testing.T) {
	src := strings.Join([]string{
		`plain: trigger.text == "x"`,
		`double: "a \"q\" ${{ x }} \u00e9 z"`,
		`single: 'it''s ${{ y }}'`,
		`folded_plain: one`,
		`  two three`,
		`literal: |`,
		`  line one`,
		``,
		`  line ${{ z }}`,
		`strip: |-`,
		`  kept`,
		`folded: >`,
		`  a b`,
		`  c`,
		`multi: "first`,
		`  second ${{ w }}"`,
		`unicode: "é ${{ v }}"`,
		`é: "${{ u }}"`,
	}, "\n") + "\n"
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(src, "\n")
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, v := m.Content[i].Value, m.Content[i+1]
		ps := scalarMap(lines, v)
		if ps == nil {
			t.Errorf("%s: no map for %q", key, v.Value)
			continue
		}
		for j := 0; j < len(v.Value); j++ {
			c := v.Value[j]
			if c == '\n' || c == ' ' || c >= 0x80 {
				continue // breaks and folds map to where they were; checked below for ASCII text
			}
			p := ps[j]
			line := []rune(lines[p.Line-1])
			got := byte(0)
			if p.Col-1 < len(line) {
				got = byte(line[p.Col-1])
			}
			if got != c && got != '\\' {
				t.Errorf("%s: value byte %d %q maps to %d:%d %q", key, j, c, p.Line, p.Col, got)
			}
		}
	}
	// the expression inside the multi-line quoted scalar is on its second line
	v := m.Content[len(m.Content)-5]
	ps := scalarMap(lines, v)
	off := strings.Index(v.Value, "w")
	if p := ps[off]; p.Line != 16 || p.Col != 14 {
		t.Errorf("multi: w at %+v, want 16:14", p)
	}
	// after a two-byte character, columns count characters
	v = m.Content[len(m.Content)-3]
	ps = scalarMap(lines, v)
	if p := ps[strings.Index(v.Value, "v")]; p.Line != 17 || p.Col != 17 {
		t.Errorf("unicode: v at %+v, want 17:17", p)
	}
	// yaml's own columns count characters too
	v = m.Content[len(m.Content)-1]
	ps = scalarMap(lines, v)
	if p := ps[strings.Index(v.Value, "u")]; p.Line != 18 || p.Col != 9 {
		t.Errorf("key é: u at %+v, want 18:9", p)
	}
}
