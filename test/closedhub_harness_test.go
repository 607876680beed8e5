package test

import (
	"github.com/ainb/hive/client"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/ainb/hive/hub"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/pairing"
	"github.com/ainb/hive/relay"
	"github.com/ainb/hive/store"
	"github.com/nbd-wtf/go-nostr"
)

type closedHub struct {
	URL   string
	Path  string
	DSN   string // the PostgreSQL log's, when the hub runs on one (else Path)
	Admin key
	Hub   *hub.Hub
	stop  func()
	// reopen starts the hub again on the same address and log (restart).
	reopen func(t testing.TB) *closedHub
}

// startClosedHub runs the real closed hub (hub.Open, as hive serve does) on 127.0.0.1.
// Each limits function adjusts the relay's limits (as a hub operator's
// configuration would).
func startClosedHub(t testing.TB, limits ...func(*relay.Config)) *closedHub {
	t.Helper()
	return startClosedHubAt(t, filepath.Join(t.TempDir(), "hive.db"), newKey(t), limits...)
}

func startClosedHubAt(t testing.TB, path string, admin key, limits ...func(*relay.Config)) *closedHub {
	t.Helper()
	openStore, dsn := hubStore(t, path)
	return startClosedHubOn(t, path, openStore, dsn, admin, limits...)
}

// startClosedHubOn runs the closed hub over the log openStore opens (nil:
// the SQLite file at path; dsn names a PostgreSQL log).
func startClosedHubOn(t testing.TB, path string, openStore store.Opener, dsn string, admin key, limits ...func(*relay.Config)) *closedHub {
	t.Helper()
	hk, err := identity.GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	return serveClosedHub(t, "127.0.0.1:0", hk, path, openStore, dsn, admin, limits...)
}

// serveClosedHub opens the hub (its key hk) over its log and serves it on addr.
func serveClosedHub(t testing.TB, addr string, hk identity.Keys, path string, openStore store.Opener, dsn string, admin key, limits ...func(*relay.Config)) *closedHub {
	t.Helper()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	url := "ws://" + ln.Addr().String()
	rc := relay.Config{PublicURLs: []string{url}}
	for _, f := range limits {
		f(&rc)
	}
	if openStore == nil {
		openStore = sqliteAt(path)
	}
	h, err := hub.Open(hub.Config{OpenStore: openStore, Admin: admin.pk, Keys: hk, Relay: rc, Log: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h.Relay}
	go srv.Serve(ln)
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			srv.Close()
			h.Close()
		}
	}
	t.Cleanup(stop)
	reopen := func(t testing.TB) *closedHub {
		stop()
		return serveClosedHub(t, ln.Addr().String(), hk, path, openStore, dsn, admin, limits...)
	}
	return &closedHub{URL: url, Path: path, DSN: dsn, Admin: admin, Hub: h, stop: stop, reopen: reopen}
}

// as connects and authenticates as k, failing the test if AUTH is refused.
func (h *closedHub) as(t testing.TB, k key, extra ...nostr.Tag) *raw {
	t.Helper()
	r := dialRaw(t, h.URL)
	if ok, msg := r.authWith(k, h.URL, 0, extra...); !ok || msg != "" { // a message with OK true: a NIP-43 guest
		t.Fatalf("AUTH as %s not admitted: %v %s", k.pk[:8], ok, msg)
	}
	return r
}

// authWith answers the challenge with created_at shifted by skew and extra tags.
func (r *raw) authWith(k key, url string, skew time.Duration, extra ...nostr.Tag) (bool, string) {
	r.t.Helper()
	ch := r.waitChallenge()
	ev := client.AuthEvent(url, ch, nil)
	ev.Tags = append(ev.Tags, extra...)
	ev.CreatedAt = nostr.Timestamp(time.Now().Add(skew).Unix())
	ev.Sign(k.sk)
	r.send([]any{"AUTH", ev})
	ok := r.expect("OK")
	return string(ok[2]) == "true", str(ok[3])
}

// must publishes and fails the test unless the hub accepts.
func (r *raw) must(ev *nostr.Event) *nostr.Event {
	r.t.Helper()
	if ok, msg := r.publish(ev); !ok {
		r.t.Fatalf("kind %d refused: %s", ev.Kind, msg)
	}
	return ev
}

// refused publishes and checks the hub refuses with the reason want pins
// (reasonIs).
func (r *raw) refused(ev *nostr.Event, want string) {
	r.t.Helper()
	ok, msg := r.publish(ev)
	if ok || !reasonIs(r.t, msg, want) {
		r.t.Fatalf("kind %d: got ok=%v %q, want the refusal %q", ev.Kind, ok, msg, want)
	}
}

func (h *closedHub) addMember(t testing.TB, admin *raw, k key) {
	t.Helper()
	admin.must(h.Admin.sign(t, 8000, "", nostr.Tag{"p", k.pk}))
}

func createChannel(t testing.TB, r *raw, owner key, id, visibility string, extra ...nostr.Tag) {
	t.Helper()
	tags := append([]nostr.Tag{{"h", id}, {"name", id}, {"visibility", visibility}}, extra...)
	r.must(owner.sign(t, 9007, "", tags...))
}

// attest makes an owner's NIP-OA tag for agent, valid from a minute ago for d.
func attest(t testing.TB, owner, agent key, d time.Duration) nostr.Tag {
	t.Helper()
	now := time.Now().Unix()
	conds := identity.Conditions{}.WithNotBefore(now - 60).WithExpiry(now + int64(d.Seconds()))
	tag, err := identity.Attest(owner.sk, agent.pk, conds)
	if err != nil {
		t.Fatal(err)
	}
	return tag
}

// deviceTag is the attestation `hive pair` gives a device it enrols
// (pairing.NewBundle: the device clause, valid from now for d).
func deviceTag(t testing.TB, owner, dev key, d time.Duration) nostr.Tag {
	t.Helper()
	ok, err := identity.KeysFromSecretHex(owner.sk)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pairing.NewBundle(ok, dev.pk, nil, "", d, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return b.Auth
}

// team is a hub with two members, alice and bob, and alice's attested agent,
// each connected and authenticated.
type team struct {
	alice, bob, agent key
	admin, a, b, ag   *raw
	tag               nostr.Tag
}

func startTeam(t testing.TB, limits ...func(*relay.Config)) (*closedHub, team) {
	t.Helper()
	h := startClosedHub(t, limits...)
	tm := team{alice: newKey(t), bob: newKey(t), agent: newKey(t)}
	tm.admin = h.as(t, h.Admin)
	h.addMember(t, tm.admin, tm.alice)
	h.addMember(t, tm.admin, tm.bob)
	tm.a, tm.b = h.as(t, tm.alice), h.as(t, tm.bob)
	tm.tag = attest(t, tm.alice, tm.agent, time.Hour)
	tm.ag = h.as(t, tm.agent, tm.tag)
	return h, tm
}

// closedAt reports when the hub closes r's connection; r must not be read elsewhere.
func closedAt(r *raw) <-chan time.Time {
	closed := make(chan time.Time, 1)
	go func() {
		for {
			if _, _, err := r.ws.ReadMessage(); err != nil {
				closed <- time.Now()
				return
			}
		}
	}()
	return closed
}
