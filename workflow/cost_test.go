package workflow

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// worstCases are 64 KiB definitions built to cost the most to validate:
// many expressions, many steps, one step aliased over and over.
func worstCases() map[string][]byte {
	head := "name: big\nchannel: ops\non:\n  manual: {}\n"
	fill := func(prefix string, line func(i int) string) []byte {
		var b strings.Builder
		b.WriteString(prefix)
		for i := 0; b.Len()+len(line(i)) < MaxBytes; i++ {
			b.WriteString(line(i))
		}
		return []byte(b.String())
	}
	return map[string][]byte{
		"expressions": fill(head+"steps:\n", func(i int) string {
			return fmt.Sprintf("  - id: s%d\n    post: \"%s\"\n", i, strings.Repeat("${{trigger.text}} ", 60))
		}),
		"steps": fill(head+"steps:\n", func(i int) string {
			return fmt.Sprintf("  - {id: s%d, if: 'trigger.text == \"x\" && steps.s0.text != \"y\"', post: x}\n", i)
		}),
		"aliases": fill(head+"x: &s {id: a, if: 'trigger.text == \"a\"', post: '${{ trigger.text }}'}\nsteps:\n", func(int) string { return "  - *s\n" }),
	}
}

// Validating a definition is bounded (the hub validates every definition
// event in its write path): a 64 KiB definition built to be costly is
// refused, with its limits named, in well under a second.
func TestValidationCostIsBounded(t *testing.T) {
	for name, src := range worstCases() {
		start := time.Now()
		_, err := Parse(name, src)
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "at most") && !strings.Contains(err.Error(), "more than 500 expressions") {
			t.Errorf("%s: %v", name, err)
		}
		t.Logf("%s: %d bytes in %v", name, len(src), took)
		if took > 2*time.Second { // generous: a loaded CI machine; measured figures are in the log
			t.Errorf("%s took %v", name, took)
		}
	}
}

func BenchmarkParseWorstCase(b *testing.B) {
	for name, src := range worstCases() {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				Parse(name, src)
			}
		})
	}
}
