package client

import (
	"errors"
	"strings"
	"testing"
)

// TestResolveTarget: the one rule the CLI and the bridge share: what is
// given wins, the rest comes from the profile, whose pin goes with its own
// hubs only; a surface with its own key takes no key or attestation.
func TestResolveTarget(t *testing.T) {
	home := t.TempDir()
	profs := &Profiles{Current: "alice", Profiles: map[string]*Profile{
		"alice": {Hubs: []string{"wss://a.example:7447"}, Pin: "sha256/AAAA", Key: "/keys/alice.key", Attestation: `["auth","` + strings.Repeat("a", 64) + `","","` + strings.Repeat("b", 128) + `"]`},
	}}
	if err := profs.Save(home); err != nil {
		t.Fatal(err)
	}
	env := func(k string) (string, bool) {
		if k == HomeEnv {
			return home, true
		}
		return "", false
	}
	tg, err := ResolveTarget(TargetSpec{}, env)
	if err != nil || tg.Profile != "alice" || tg.Hubs[0] != "wss://a.example:7447" || tg.Pin != "sha256/AAAA" || tg.KeyFile != "/keys/alice.key" || tg.AuthTag == nil {
		t.Fatalf("current profile: %+v %v", tg, err)
	}
	if tg, _ := ResolveTarget(TargetSpec{Hub: "wss://other.example"}, env); tg.Pin != "" || tg.KeyFile != "/keys/alice.key" {
		t.Fatalf("another hub took the profile's pin: %+v", tg)
	}
	if tg, _ := ResolveTarget(TargetSpec{Hub: "wss://a.example:7447", Pin: "sha256/BBBB"}, env); tg.Pin != "sha256/BBBB" {
		t.Fatalf("the given pin lost: %+v", tg)
	}
	tg, err = ResolveTarget(TargetSpec{Profile: "alice", OwnKey: true}, env)
	if err != nil || tg.KeyFile != "" || tg.AuthTag != nil || tg.Pin != "sha256/AAAA" {
		t.Fatalf("own key (the bridge): %+v %v", tg, err)
	}
	if tg, err := ResolveTarget(TargetSpec{Hub: "ws://x", OwnKey: true}, func(string) (string, bool) { return "", false }); err != nil || tg.Hubs[0] != "ws://x" {
		t.Fatalf("a URL and own key need no profile: %+v %v", tg, err)
	}
	if _, err := ResolveTarget(TargetSpec{Profile: "nobody"}, env); !errors.Is(err, ErrNotFound) || err.Error() != `no profile "nobody" (see `+"`hive profile list`"+`)` {
		t.Fatalf("missing profile: %v", err)
	}
}
