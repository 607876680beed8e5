package test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/relay"
	"github.com/nbd-wtf/go-nostr"
)

// A go-nostr client publishes, queries and subscribes against the real hub.
func TestGoNostrPublishQuerySubscribe(t *testing.T) {
	h := startOpenHub(t, relay.Config{})
	alice, bob := newKey(t), newKey(t)
	pub := connect(t, h.URL)
	sub := connect(t, h.URL)
	ctx := ctxT(t)

	live, err := sub.Subscribe(ctx, nostr.Filters{{Kinds: []int{9}, Tags: nostr.TagMap{"h": {"general"}}}})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-live.EndOfStoredEvents:
	case <-ctx.Done():
		t.Fatal("no EOSE")
	}

	var sent []*nostr.Event
	for i := 0; i < 5; i++ {
		ev := alice.sign(t, 9, fmt.Sprintf("hello %d", i), nostr.Tag{"h", "general"}, nostr.Tag{"p", bob.pk})
		if err := pub.Publish(ctx, *ev); err != nil {
			t.Fatalf("publish: %v", err)
		}
		sent = append(sent, ev)
	}
	other := alice.sign(t, 9, "elsewhere", nostr.Tag{"h", "random"})
	if err := pub.Publish(ctx, *other); err != nil {
		t.Fatal(err)
	}
	for i := range sent {
		select {
		case ev := <-live.Events:
			if ev.Tags.Find("h")[1] != "general" {
				t.Fatalf("live sub got an event of another channel: %s", ev)
			}
		case <-time.After(3 * time.Second):
			t.Fatalf("live event %d not delivered", i)
		}
	}
	select {
	case ev := <-live.Events:
		t.Fatalf("unexpected live event %s", ev)
	case <-time.After(200 * time.Millisecond):
	}

	got, err := pub.QuerySync(ctx, nostr.Filter{Tags: nostr.TagMap{"p": {bob.pk}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("query #p returned %d events, want 5", len(got))
	}
	n, _, err := pub.Count(ctx, nostr.Filters{{Authors: []string{alice.pk}}}, nil)
	if err != nil || n != 6 {
		t.Fatalf("COUNT = %d, %v; want 6", n, err)
	}
}

func TestEphemeralDeliveredNotStored(t *testing.T) {
	h := startOpenHub(t, relay.Config{})
	k := newKey(t)
	sub := dialRaw(t, h.URL)
	if _, closed := sub.req("live", nostr.Filter{Kinds: []int{20001}}); closed != "" {
		t.Fatal(closed)
	}
	pub := dialRaw(t, h.URL)
	ev := k.sign(t, 20001, "online")
	if ok, msg := pub.publish(ev); !ok {
		t.Fatal(msg)
	}
	m := sub.expect("EVENT")
	if !strings.Contains(string(m[2]), ev.ID) {
		t.Fatal("wrong live event")
	}
	if evs, _ := pub.req("stored", nostr.Filter{Kinds: []int{20001}}); len(evs) != 0 {
		t.Fatalf("ephemeral event was stored: %d", len(evs))
	}
}

// Bad input gets a clear, prefixed answer and the connection stays usable.
func TestMalformedInputKeepsConnection(t *testing.T) {
	h := startOpenHub(t, relay.Config{MaxFilters: 3})
	k := newKey(t)
	c := dialRaw(t, h.URL)
	notices := []string{
		`not json`,
		`{"an":"object"}`,
		`[]`,
		`[1,2]`,
		`["WHAT"]`,
		`["EVENT"]`,
		`["EVENT",{"id":1}]`,
		`["CLOSE"]`,
	}
	for _, n := range notices {
		c.send(n)
		m := c.expect("NOTICE")
		if !hasPrefix(str(m[1]), "invalid: ") {
			t.Errorf("%s: NOTICE %q lacks the invalid: prefix", n, str(m[1]))
		}
	}
	closed := map[string]string{
		`["REQ","a",{"search":"\"open"}]`: "invalid: search: a quoted phrase is not closed",
		`["REQ","b",{"#foo":["x"]}]`:      "invalid: ",
		`["REQ","c",{"limit":999999}]`:    "invalid: ",
		`["REQ","d",{"ids":["zz"]}]`:      "invalid: ",
		`["REQ","e",{"kinds":["1"]}]`:     "invalid: ",
		`["REQ","f",{},{},{},{}]`:         "invalid: ",
		`["REQ","g",{"colour":"red"}]`:    "invalid: ",
		`["COUNT","h",{"limit":-1}]`:      "invalid: ",
	}
	for msg, prefix := range closed {
		c.send(msg)
		m := c.expect("CLOSED")
		if !hasPrefix(str(m[2]), prefix) {
			t.Errorf("%s: CLOSED %q, want prefix %q", msg, str(m[2]), prefix)
		}
	}
	// bad events get OK false with invalid:
	good := k.sign(t, 1, "fine")
	bad := *good
	bad.Content = "tampered"
	if ok, msg := c.publish(&bad); ok || !hasPrefix(msg, "invalid: ") {
		t.Fatalf("tampered event: %v %q", ok, msg)
	}
	badSig := *good
	badSig.Sig = strings.Repeat("0", 128)
	if ok, msg := c.publish(&badSig); ok || !hasPrefix(msg, "invalid: ") {
		t.Fatalf("bad sig: %v %q", ok, msg)
	}
	future := &nostr.Event{Kind: 1, CreatedAt: nostr.Now() + 3600, Tags: nostr.Tags{}}
	future.Sign(k.sk)
	if ok, msg := c.publish(future); ok || !hasPrefix(msg, "invalid: ") {
		t.Fatalf("future event: %v %q", ok, msg)
	}
	// and the connection still works
	if ok, msg := c.publish(good); !ok {
		t.Fatalf("good event after bad input: %q", msg)
	}
	if ok, msg := c.publish(good); !ok || !hasPrefix(msg, "duplicate:") {
		t.Fatalf("duplicate: %v %q", ok, msg)
	}
	evs, closedMsg := c.req("after", nostr.Filter{IDs: []string{good.ID}})
	if closedMsg != "" || len(evs) != 1 {
		t.Fatalf("query after bad input: %d events, %q", len(evs), closedMsg)
	}
}

func TestSubscriptionCap(t *testing.T) {
	h := startOpenHub(t, relay.Config{MaxSubscriptions: 2})
	c := dialRaw(t, h.URL)
	c.req("a", nostr.Filter{Kinds: []int{1}})
	c.req("b", nostr.Filter{Kinds: []int{1}})
	if _, msg := c.req("c", nostr.Filter{Kinds: []int{1}}); !hasPrefix(msg, "rate-limited: ") {
		t.Fatalf("third subscription: %q", msg)
	}
	c.send([]any{"CLOSE", "a"})
	if _, msg := c.req("c", nostr.Filter{Kinds: []int{1}}); msg != "" {
		t.Fatalf("after CLOSE: %q", msg)
	}
}

func TestNIP11AdvertisesLimits(t *testing.T) {
	h := startOpenHub(t, relay.Config{MaxFilters: 7})
	doc := fetchNIP11(t, h.URL)
	if doc.Limitation.MaxLimit == 0 || doc.Limitation.DefaultLimit == 0 || doc.Limitation.MaxFilters != 7 || doc.Limitation.MaxMessageLength == 0 {
		t.Fatalf("limitation incomplete: %+v", doc.Limitation)
	}
	for _, want := range []int{1, 9, 11, 40, 42, 45} {
		found := false
		for _, n := range doc.SupportedNIPs {
			found = found || n == want
		}
		if !found {
			t.Errorf("NIP-%02d not advertised", want)
		}
	}
}

// A reader that never reads is dropped once its outbound queue passes the cap,
// and the other clients keep working.
func TestSlowConsumerDropped(t *testing.T) {
	h := startOpenHub(t, relay.Config{MaxOutboundBytes: 64 << 10})
	k := newKey(t)
	slow := dialRaw(t, h.URL)
	slow.send([]any{"REQ", "all", nostr.Filter{Kinds: []int{1}}})
	fast := dialRaw(t, h.URL)
	big := strings.Repeat("x", 8000)
	deadline := time.Now().Add(10 * time.Second)
	for i := 0; h.Relay.Connections() == 2 && time.Now().Before(deadline); i++ {
		if ok, msg := fast.publish(k.sign(t, 1, fmt.Sprint(i, big))); !ok {
			t.Fatal(msg)
		}
	}
	if n := h.Relay.Connections(); n != 1 {
		t.Fatalf("slow consumer still connected (%d connections)", n)
	}
	if ok, msg := fast.publish(k.sign(t, 1, "still here")); !ok {
		t.Fatal(msg)
	}
}

// A connection that never authenticates is closed after AuthTimeout.
func TestUnauthenticatedConnectionTimesOut(t *testing.T) {
	h := startOpenHub(t, relay.Config{RequireAuth: true, AuthTimeout: 200 * time.Millisecond})
	idle := dialRaw(t, h.URL)
	authed := dialRaw(t, h.URL)
	if ok, msg := authed.auth(newKey(t), h.URL); !ok {
		t.Fatal(msg)
	}
	go func() { // keep answering pings
		for {
			if _, _, err := authed.ws.ReadMessage(); err != nil {
				return
			}
		}
	}()
	idle.ws.SetReadDeadline(time.Now().Add(3 * time.Second))
	for {
		if _, _, err := idle.ws.ReadMessage(); err != nil {
			if !strings.Contains(err.Error(), "auth-required") {
				t.Fatalf("closed with %v, want an auth-required reason", err)
			}
			break
		}
	}
	for i := 0; h.Relay.Connections() != 1 && i < 100; i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if h.Relay.Connections() != 1 {
		t.Fatalf("%d connections open, want only the authenticated one", h.Relay.Connections())
	}
}

func TestFilterValueCap(t *testing.T) {
	h := startOpenHub(t, relay.Config{MaxFilterValues: 10})
	c := dialRaw(t, h.URL)
	authors := make([]string, 11)
	for i := range authors {
		authors[i] = newKey(t).pk
	}
	if _, msg := c.req("big", nostr.Filter{Authors: authors}); !hasPrefix(msg, "invalid: ") || !strings.Contains(msg, "max_filter_values") {
		t.Fatalf("11 values with a cap of 10: %q", msg)
	}
	if _, msg := c.req("ok", nostr.Filter{Authors: authors[:10]}); msg != "" {
		t.Fatalf("10 values: %q", msg)
	}
}

// Frames of every length encoding (7-bit, 16-bit, 64-bit) reach the client intact.
func TestFrameSizesRoundTrip(t *testing.T) {
	h := startOpenHub(t, relay.Config{})
	k := newKey(t)
	c := dialRaw(t, h.URL)
	var sent []*nostr.Event
	for _, n := range []int{1, 125, 126, 65535 - 300, 70000, 120000} {
		ev := k.sign(t, 1, strings.Repeat("z", n))
		if ok, msg := c.publish(ev); !ok {
			t.Fatal(msg)
		}
		sent = append(sent, ev)
	}
	evs, closed := c.req("all", nostr.Filter{Authors: []string{k.pk}})
	if closed != "" || len(evs) != len(sent) {
		t.Fatalf("got %d events, %q", len(evs), closed)
	}
	for _, ev := range evs {
		if !ev.CheckID() {
			t.Fatalf("event of %d bytes came back damaged", len(ev.Content))
		}
	}
}
