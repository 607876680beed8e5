package kinds

import (
	"strings"
	"testing"
)

func TestParseAddressStrict(t *testing.T) {
	pk := strings.Repeat("ab", 32)
	good := map[string]Address{
		"30450:" + pk + ":" + pk: {30450, pk, pk},
		"0:" + pk + ":":          {0, pk, ""},
		"30023:" + pk + ":a:b":   {30023, pk, "a:b"},
		"65535:" + pk + ":x":     {65535, pk, "x"},
	}
	for in, want := range good {
		got, err := ParseAddress(in)
		if err != nil || got != want {
			t.Errorf("ParseAddress(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if got.String() != in {
			t.Errorf("%q does not spell back as itself: %q", in, got.String())
		}
	}
	for _, in := range []string{"", "30450", "30450:" + pk, ":" + pk + ":", "+30450:" + pk + ":", "-1:" + pk + ":",
		"030450:" + pk + ":", "00:" + pk + ":", " 0:" + pk + ":", "0 :" + pk + ":", "3e4:" + pk + ":", "0x10:" + pk + ":",
		"65536:" + pk + ":", "99999999999999999999:" + pk + ":", "0:" + strings.ToUpper(pk) + ":", "0:abc:", "0::"} {
		if a, err := ParseAddress(in); err == nil {
			t.Errorf("ParseAddress(%q) = %+v, want an error", in, a)
		}
	}
}
