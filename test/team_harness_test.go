package test

import (
	"encoding/json"
	"testing"
)

// cliTeamSpec is a team of CLI profiles on one hub, as setUpCLITeam makes it.
type cliTeamSpec struct {
	hub, pin  string // the hub's websocket URL and its TLS pin ("" without TLS)
	admin     string // the profile over the hub's admin key file adminKey
	adminKey  string
	nameAdmin bool     // the admin profile is named after itself too
	members   []string // profiles with new keys, added as members, each named after itself (kind 0)
	creator   string   // the profile that creates the channels; every other member joins them
	channels  []string
}

// cliTeam is what setUpCLITeam made: each member's key file and npub.
type cliTeam struct {
	keys map[string]string // profile -> key file
	npub map[string]string // profile -> npub
}

// setUpCLITeam adds the profiles of s to c's HIVE_HOME, makes the members hub
// members, names them, and creates and joins the channels (the one set-up
// the browser and terminal tests share).
func setUpCLITeam(t testing.TB, c *cli, s cliTeamSpec) cliTeam {
	t.Helper()
	hub := []string{"--hub", s.hub}
	if s.pin != "" {
		hub = append(hub, "--pin", s.pin)
	}
	c.ok(append([]string{"profile", "add", s.admin, "--key", s.adminKey}, hub...)...)
	tm := cliTeam{keys: map[string]string{}, npub: map[string]string{}}
	for _, name := range s.members {
		var k struct{ Npub string }
		json.Unmarshal([]byte(c.ok(append([]string{"profile", "add", name, "--new-key", "--json"}, hub...)...)), &k)
		tm.keys[name], tm.npub[name] = profileOf(t, c, name).Key, k.Npub
		c.ok("member", "add", k.Npub, "--profile", s.admin)
	}
	named := s.members
	if s.nameAdmin {
		named = append([]string{s.admin}, named...)
	}
	for _, name := range named {
		c.ok("profile", "name", name, "--profile", name)
	}
	for _, ch := range s.channels {
		c.ok("channel", "create", ch, "--profile", s.creator)
		for _, name := range s.members {
			if name != s.creator {
				c.ok("channel", "join", ch, "--profile", name)
			}
		}
	}
	return tm
}
