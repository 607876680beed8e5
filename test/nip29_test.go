package test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// readKeyFile loads a plain key file (the hub's DATA/admin.key).
func readKeyFile(t testing.TB, path string) key {
	t.Helper()
	k, err := identity.LoadKeyFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return key{k.SecretHex, k.PublicHex}
}

// flags are the one-element tags of ev (NIP-29's flags).
func flags(ev *nostr.Event) []string {
	var out []string
	for _, t := range ev.Tags {
		if len(t) == 1 {
			out = append(out, t[0])
		}
	}
	return out
}

// newest is the newest event of kind in evs, or nil.
func newest(evs []*nostr.Event, kind int) *nostr.Event {
	var out *nostr.Event
	for _, ev := range evs {
		if ev.Kind == kind && (out == nil || ev.CreatedAt > out.CreatedAt) {
			out = ev
		}
	}
	return out
}

// A NIP-29 client (flotilla's flow, as welshman writes its events) against
// the real binary: a room created with only h, then named and made private
// with NIP-29's flags in a 9002 that also carries the last 39000's tags; a
// flag hive cannot honour refused with its reason; a deleted room leaves no
// metadata newer than its 9008, while hive's own CLI lists it as archived.
func TestNIP29ClientFlowsBinary(t *testing.T) {
	data := t.TempDir()
	p := startProc(t, data, freeAddr(t))
	self := fetchNIP11(t, p.URL).Self
	adminKey := readKeyFile(t, data+"/admin.key")
	bob := newKey(t)
	admin := p.as(t, adminKey)
	admin.must(adminKey.sign(t, 8000, "", nostr.Tag{"-"}, nostr.Tag{"p", bob.pk}))

	// create with only h: an open channel named by its id
	admin.must(adminKey.sign(t, 9007, "", nostr.Tag{"h", "pizza"}))
	evs, closed := admin.req("m", nostr.Filter{Kinds: []int{39000}, Tags: nostr.TagMap{"d": {"pizza"}}})
	if closed != "" || len(evs) != 1 || evs[0].Tags.Find("name")[1] != "pizza" || len(flags(evs[0])) != 0 || evs[0].PubKey != self {
		t.Fatalf("39000 after a 9007 with only h: %v %q", evs, closed)
	}
	// flotilla's edit: name, about, the flags, and the old 39000's other tags
	edit := []nostr.Tag{{"h", "pizza"}, {"name", "Pizza Lovers"}, {"about", "pizza"}, {"closed"}, {"private"}}
	for _, tg := range evs[0].Tags {
		if tg[0] != "name" && tg[0] != "about" {
			edit = append(edit, tg)
		}
	}
	admin.must(adminKey.sign(t, 9002, "", edit...))
	evs, _ = admin.req("m2", nostr.Filter{Kinds: []int{39000}, Tags: nostr.TagMap{"d": {"pizza"}}})
	if len(evs) != 1 || evs[0].Tags.Find("name")[1] != "Pizza Lovers" {
		t.Fatalf("39000 after the 9002: %v", evs)
	}
	if got := flags(evs[0]); !slices.Equal(got, []string{"private", "closed", "hidden", "restricted"}) {
		t.Errorf("flags of a private channel's 39000: %v", got)
	}
	// bob, a hub member but not the room's, can neither read it nor see it
	b := p.as(t, bob)
	if _, closed := b.req("r", nostr.Filter{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"pizza"}}}); !strings.HasPrefix(closed, "restricted: ") {
		t.Errorf("bob reading the private room: %q", closed)
	}
	if evs, _ := b.req("l", nostr.Filter{Kinds: []int{39000}}); slices.ContainsFunc(evs, func(e *nostr.Event) bool { return e.Tags.GetD() == "pizza" }) {
		t.Errorf("bob sees the private room's 39000")
	}
	b.refused(bob.sign(t, 9021, "", nostr.Tag{"h", "pizza"}), "restricted: channel pizza is private")

	// a flag hive cannot honour: refused with the reason, the channel unchanged
	admin.must(adminKey.sign(t, 9007, "", nostr.Tag{"h", "lobby"}))
	ok, msg := admin.publish(adminKey.sign(t, 9002, "", nostr.Tag{"h", "lobby"}, nostr.Tag{"restricted"}))
	if want := "invalid: hive cannot make an open channel restricted: every hub member reads, writes and may join an open channel; send [\"private\"]"; ok || !strings.HasPrefix(msg, want) {
		t.Errorf("restricted on an open channel: %v %q, want %q...", ok, msg, want)
	}
	b.must(bob.sign(t, 9, "still open", nostr.Tag{"h", "lobby"}, nostr.Tag{"-"}))

	// 19004 and 13534 name the admin and bob, signed by self
	lists, _ := b.req("hub", nostr.Filter{Kinds: []int{13534, 19004}})
	want := []string{adminKey.pk, bob.pk}
	slices.Sort(want)
	for kind, tag := range map[int]string{13534: "member", 19004: "p"} {
		ev := newest(lists, kind)
		if ev == nil || ev.PubKey != self {
			t.Fatalf("kind %d: %v (self %s)", kind, ev, self)
		}
		var got []string
		for _, tg := range ev.Tags {
			if tg[0] == tag {
				got = append(got, tg[1])
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("kind %d names %v, want the admin and bob %v", kind, got, want)
		}
	}

	// 9008: no metadata newer than it; hive's CLI still lists it, archived
	meta, _ := admin.req("lm", nostr.Filter{Kinds: []int{39000}, Tags: nostr.TagMap{"d": {"lobby"}}})
	del := adminKey.sign(t, 9008, "", nostr.Tag{"h", "lobby"})
	del.CreatedAt = meta[0].CreatedAt + 1
	del.Sign(adminKey.sk)
	admin.must(del)
	after, _ := admin.req("la", nostr.Filter{Kinds: []int{39000, 39001, 39002, 39003}, Tags: nostr.TagMap{"d": {"lobby"}}})
	for _, ev := range after {
		if ev.CreatedAt >= del.CreatedAt {
			t.Errorf("kind %d of lobby dated %d, not older than its 9008 (%d)", ev.Kind, ev.CreatedAt, del.CreatedAt)
		}
	}
	c := newCLI(t)
	var ch struct {
		Archived bool `json:"archived"`
	}
	out := c.ok("channel", "info", "lobby", "--hub", p.URL, "--key", data+"/admin.key", "--json")
	if err := json.Unmarshal([]byte(out), &ch); err != nil || !ch.Archived {
		t.Errorf("hive channel info lobby after its 9008: %v %s", err, out)
	}
}
