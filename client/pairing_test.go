package client

import "testing"

func TestPairingURL(t *testing.T) {
	for hub, want := range map[string]string{
		"wss://devbox:7447":              "wss://devbox:7447/pair",
		"wss://devbox:7447/":             "wss://devbox:7447/pair",
		"wss://proxy.example/hive?x=1#f": "wss://proxy.example/hive/pair",
		"ws://127.0.0.1:7447":            "ws://127.0.0.1:7447/pair",
	} {
		got, err := PairingURL(hub)
		if err != nil || got != want {
			t.Errorf("PairingURL(%q) = %q, %v; want %q", hub, got, err, want)
		}
		if back := HubOfPairingURL(got); back != want[:len(want)-len(PairPath)] {
			t.Errorf("HubOfPairingURL(%q) = %q", got, back)
		}
	}
	for _, bad := range []string{"https://devbox", "devbox:7447", "wss://"} {
		if _, err := PairingURL(bad); err == nil {
			t.Errorf("PairingURL(%q) accepted", bad)
		}
	}
}
