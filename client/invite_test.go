package client

import (
	"encoding/json"
	"os"
	"testing"
)

// The shared invite fixtures (spec/fixtures/invites/links.json), as
// web/test/invite.test.js runs them: what a pasted invite means, and the
// link hive invite prints.
func TestInviteFixtures(t *testing.T) {
	b, err := os.ReadFile("../spec/fixtures/invites/links.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx struct {
		Links []struct{ Name, In, Hub, Claim, Error string }
		Made  []struct{ Name, Hub, Claim, Link string }
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	for _, c := range fx.Links {
		hub, claim, err := ParseInvite(c.In)
		switch {
		case c.Error != "" && (err == nil || err.Error() != c.Error):
			t.Errorf("%s: error %v, want %q", c.Name, err, c.Error)
		case c.Error == "" && (err != nil || hub != c.Hub || claim != c.Claim):
			t.Errorf("%s: %q %q %v, want %q %q", c.Name, hub, claim, err, c.Hub, c.Claim)
		}
	}
	for _, c := range fx.Made {
		if got := InviteLink(c.Hub, c.Claim); got != c.Link {
			t.Errorf("%s: link %q, want %q", c.Name, got, c.Link)
		}
	}
}
