package client

import "testing"

func TestChannelIDFor(t *testing.T) {
	for in, want := range map[string]string{"General Chat": "general-chat", "ops": "ops", "Ünïcode!": "ncode", "a.b_c-d": "a.b_c-d"} {
		if got := ChannelIDFor(in); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
		if err := CheckChannelID(want); err != nil {
			t.Errorf("%q: %v", want, err)
		}
	}
	for _, bad := range []string{"", "a b", "é", string(make([]byte, 65))} {
		if CheckChannelID(bad) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
