package relay

import "testing"

func TestAddrKey(t *testing.T) {
	for in, want := range map[string]string{
		"127.0.0.2:4000":             "127.0.0.2",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff::1]:80":  "2001:db8:1:2::/64",
		"[::ffff:10.0.0.1]:80":       "::ffff:10.0.0.1",
		"not an address":             "not an address",
	} {
		if got := AddrKey(in); got != want {
			t.Errorf("AddrKey(%q) = %q, want %q", in, got, want)
		}
	}
}
