package test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/ainb/hive/client/chat"
)

// addNamedMember adds a CLI profile with a new key as a hub member in room,
// named name (kind 0), and returns its hex key.
func (w *webTeam) addNamedMember(t *testing.T, profile, name string) string {
	t.Helper()
	var k struct{ Npub string }
	json.Unmarshal([]byte(w.cli.ok("profile", "add", profile, "--new-key", "--hub", w.h.WS, "--pin", w.h.Pin, "--json")), &k)
	w.cli.ok("member", "add", k.Npub, "--profile", "owner")
	w.cli.ok("channel", "join", "room", "--profile", profile)
	w.cli.ok("profile", "name", name, "--profile", profile)
	return keyOf(t, profileOf(t, w.cli, profile).Key).PublicHex
}

// Issue 30, item 4: names that impersonate. mallory names herself
// "MalXSS\u202eecila" (it would read MalXSSalice), and eve "own\u200ber",
// which looks like the hub owner's name. The CLI and the page show
// MalXSSecila, never the override; owner and eve each with their short
// npub (real binary, real page in chromium).
func TestNamesCannotImpersonate(t *testing.T) {
	w := startWebTeam(t)
	w.addNamedMember(t, "mallory", "MalXSS\u202eecila")
	eve := w.addNamedMember(t, "eve", "own\u200ber")
	ids := map[string]string{
		"owner":   w.send(t, "owner", "room", "from the owner"),
		"mallory": w.send(t, "mallory", "room", "from mallory"),
		"eve":     w.send(t, "eve", "room", "from eve"),
	}
	want := map[string]string{
		"owner":   "owner (" + chat.ShortNpub(w.owner) + ")",
		"mallory": "MalXSSecila",
		"eve":     "owner (" + chat.ShortNpub(eve) + ")",
	}

	// the CLI: hive read as bob, text and JSON
	out := w.cli.ok("read", "room", "--no-mark", "--profile", "bob", "--json")
	byID := map[string]rowJSON{}
	for _, r := range rows(t, out) {
		byID[r.ID] = r
	}
	for who, id := range ids {
		if got := byID[id].Name; got != want[who] {
			t.Errorf("hive read --json shows %s's message by %q, want %q", who, got, want[who])
		}
	}
	text := w.cli.ok("read", "room", "--no-mark", "--profile", "bob")
	for who, id := range ids {
		if !strings.Contains(text, id[:8]+" "+want[who]+": from ") {
			t.Errorf("hive read shows %s's row without %q:\n%s", who, want[who], text)
		}
	}
	if strings.ContainsAny(text+out, "\u202e\u200b") || strings.Contains(text, "MalXSSalice") {
		t.Fatalf("hive read still holds the hiding characters:\n%s", text)
	}

	// the page, as bob
	w.importKey(t, profileOf(t, w.cli, "bob").Key)
	w.openChannel(t, "room")
	for who, id := range ids {
		w.b.waitVisible(messageSel(id))
		got := evalAs[string](w.b, fmt.Sprintf(`document.querySelector(%q)?.querySelector('.author')?.textContent ?? ''`, messageSel(id)))
		if got != want[who] {
			t.Errorf("the page shows %s's message by %q, want %q", who, got, want[who])
		}
	}
	w.b.screenshot("names-lookalike")
}
