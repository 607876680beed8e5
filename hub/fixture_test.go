package hub

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/store"
	"github.com/ainb/hive/store/sqlite"
	"github.com/nbd-wtf/go-nostr"
)

// The rule tests run every case on its own copy of one real hub log (a
// SQLite file) holding a small world, through the real store and projector.
//
// World: admin (the configured hub admin) added alice, bob, carol and mallory.
// alice owns the open stream "pub", the private "priv" (bob admin, carol
// member), the DM "dm" with bob, and the archived open "arch". alice's agent
// published a profile carrying her attestation. Messages: "m" by alice in
// pub, "pm" by alice in priv, "am" by the agent in pub.

var world struct {
	once    sync.Once
	err     error
	dir     string
	keys    map[string]identity.Keys
	hubKeys identity.Keys
	attest  nostr.Tag // alice's attestation of agent
	labels  map[string]*nostr.Event
}

// token is a key name ("@bob") or a label ("#m") inside a tag value.
var token = regexp.MustCompile(`[@#][a-z-]+`)

// signAs signs an event by a world key; in tag values "@name" becomes that
// key's pubkey and "#label" the id of a labelled event.
func signAs(labels map[string]*nostr.Event, who string, kind int, content string, tags ...nostr.Tag) *nostr.Event {
	out := make(nostr.Tags, len(tags))
	for i, tg := range tags {
		out[i] = slices.Clone(tg)
		for j := 1; j < len(tg); j++ {
			out[i][j] = token.ReplaceAllStringFunc(tg[j], func(tok string) string {
				if k, ok := world.keys[tok[1:]]; ok && tok[0] == '@' {
					return k.PublicHex
				}
				if ev := labels[tok[1:]]; ev != nil && tok[0] == '#' {
					return ev.ID
				}
				return tok
			})
		}
	}
	ev := &nostr.Event{Kind: kind, CreatedAt: nostr.Now(), Content: content, Tags: out}
	if err := ev.Sign(world.keys[who].SecretHex); err != nil {
		panic(err)
	}
	return ev
}

func openHub(path string) (*Hub, error) {
	return Open(Config{OpenStore: sqliteAt(path), Admin: world.keys["admin"].PublicHex, Keys: world.hubKeys, Log: slog.New(slog.DiscardHandler)})
}

// sqliteAt opens the SQLite log at path.
func sqliteAt(path string) store.Opener {
	return func(o store.Options) (store.Log, error) { return sqlite.Open(path, o) }
}

func buildWorld() error {
	world.keys = map[string]identity.Keys{}
	for _, n := range []string{"admin", "alice", "bob", "carol", "mallory", "agent", "stranger"} {
		k, err := identity.GenerateKeys()
		if err != nil {
			return err
		}
		world.keys[n] = k
	}
	var err error
	if world.hubKeys, err = identity.GenerateKeys(); err != nil {
		return err
	}
	now := time.Now().Unix()
	world.attest, err = identity.Attest(world.keys["alice"].SecretHex, world.keys["agent"].PublicHex,
		identity.Conditions{}.WithNotBefore(now-3600).WithExpiry(now+86400))
	if err != nil {
		return err
	}
	if world.dir, err = os.MkdirTemp("", "hive-rules-"); err != nil {
		return err
	}
	h, err := openHub(filepath.Join(world.dir, "hive.db"))
	if err != nil {
		return err
	}
	defer h.Close()
	world.labels = map[string]*nostr.Event{}
	steps := []struct {
		label string
		ev    *nostr.Event
	}{
		{"", signAs(world.labels, "admin", 8000, "", nostr.Tag{"p", "@alice"})},
		{"", signAs(world.labels, "admin", 8000, "", nostr.Tag{"p", "@bob"})},
		{"", signAs(world.labels, "admin", 8000, "", nostr.Tag{"p", "@carol"})},
		{"", signAs(world.labels, "admin", 8000, "", nostr.Tag{"p", "@mallory"})},
		{"create-pub", signAs(world.labels, "alice", 9007, "", nostr.Tag{"h", "pub"}, nostr.Tag{"name", "pub"})},
		{"", signAs(world.labels, "alice", 9007, "", nostr.Tag{"h", "priv"}, nostr.Tag{"name", "priv"}, nostr.Tag{"visibility", "private"})},
		{"", signAs(world.labels, "alice", 9000, "", nostr.Tag{"h", "priv"}, nostr.Tag{"p", "@bob", "admin"})},
		{"", signAs(world.labels, "alice", 9000, "", nostr.Tag{"h", "priv"}, nostr.Tag{"p", "@carol"})},
		{"", signAs(world.labels, "alice", 9007, "", nostr.Tag{"h", "dm"}, nostr.Tag{"type", "dm"}, nostr.Tag{"p", "@bob"})},
		{"", signAs(world.labels, "alice", 9007, "", nostr.Tag{"h", "arch"}, nostr.Tag{"name", "arch"})},
		{"", signAs(world.labels, "alice", 9008, "", nostr.Tag{"h", "arch"})},
		{"profile", signAs(world.labels, "agent", 0, `{"name":"bot"}`, world.attest)},
		{"m", signAs(world.labels, "alice", 9, "hello", nostr.Tag{"h", "pub"})},
		{"pm", signAs(world.labels, "alice", 9, "secret", nostr.Tag{"h", "priv"})},
		{"am", signAs(world.labels, "agent", 9, "beep", nostr.Tag{"h", "pub"})},
	}
	for _, s := range steps {
		if _, err := h.Store.Publish(context.Background(), s.ev); err != nil {
			return err
		}
		if s.label != "" {
			world.labels[s.label] = s.ev
		}
	}
	return nil
}

// worldHub opens a fresh copy of the world's log.
func worldHub(t *testing.T) *Hub {
	t.Helper()
	world.once.Do(func() { world.err = buildWorld() })
	if world.err != nil {
		t.Fatal(world.err)
	}
	path := filepath.Join(t.TempDir(), "hive.db")
	src, err := os.Open(filepath.Join(world.dir, "hive.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	dst.Close()
	h, err := openHub(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// publish stores ev and returns the refusal, "" when accepted.
func publish(h *Hub, ev *nostr.Event) string {
	if _, err := h.Store.Publish(context.Background(), ev); err != nil {
		return err.Error()
	}
	return ""
}

// checkViewMatchesTables fails unless the view the hub built change by change
// equals one loaded afresh from the projection tables.
func checkViewMatchesTables(t *testing.T, h *Hub) {
	t.Helper()
	fresh, err := loadView(h.Store.Reader(), h.admin)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.snapshotView(); !reflect.DeepEqual(got, fresh) {
		t.Errorf("incremental view differs from the tables:\n got %s\nwant %s", dumpView(got), dumpView(fresh))
	}
}

func dumpView(v *view) string {
	var b strings.Builder
	fmt.Fprintf(&b, "members=%v revocations=%v", v.members, v.revocations)
	for id, c := range v.channels {
		b.WriteString(" " + id + ":" + string(c.visibility) + "/" + string(c.typ))
		if c.deleted {
			b.WriteString("/archived")
		}
		for pk, r := range c.members {
			b.WriteString(" " + pk[:6] + "=" + string(r))
		}
	}
	for a, o := range v.agents {
		b.WriteString(" agent " + a[:6] + "->" + o[:6])
	}
	return b.String()
}
