package test

import (
	"encoding/json"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// nip11Doc is what a client reads from the hub's NIP-11 document.
type nip11Doc struct {
	Name          string `json:"name"`
	PubKey        string `json:"pubkey"`
	Self          string `json:"self"`
	Software      string `json:"software"`
	Version       string `json:"version"`
	SupportedNIPs []int  `json:"supported_nips"`
	Limitation    struct {
		AuthRequired     bool `json:"auth_required"`
		RestrictedWrites bool `json:"restricted_writes"`
		MaxMessageLength int  `json:"max_message_length"`
		MaxContentLength int  `json:"max_content_length"`
		MaxSubscriptions int  `json:"max_subscriptions"`
		MaxFilters       int  `json:"max_filters"`
		MaxLimit         int  `json:"max_limit"`
		DefaultLimit     int  `json:"default_limit"`
		UnauthBurst      int  `json:"unauth_message_burst"`
	} `json:"limitation"`
}

func fetchNIP11(t testing.TB, wsURL string) nip11Doc {
	t.Helper()
	var doc nip11Doc
	decodeNIP11(t, wsURL, &doc)
	return doc
}

// decodeNIP11 asks the hub at wsURL for its NIP-11 document (over http, with
// the Accept header NIP-11 names) and decodes it into doc.
func decodeNIP11(t testing.TB, wsURL string, doc any) {
	t.Helper()
	req, _ := http.NewRequest("GET", httpURL(wsURL), nil)
	req.Header.Set("Accept", "application/nostr+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(doc); err != nil {
		t.Fatal(err)
	}
}

// specNIPs is the list spec/protocol.md gives for supported_nips.
func specNIPs(t testing.TB) []int {
	t.Helper()
	raw, err := os.ReadFile("../spec/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("`supported_nips`: ([0-9, ]+)").FindSubmatch(raw)
	if m == nil {
		t.Fatal("spec/protocol.md does not list `supported_nips`: ...")
	}
	var out []int
	for _, s := range strings.Split(string(m[1]), ",") {
		if s = strings.TrimSpace(s); s != "" {
			n, _ := strconv.Atoi(s)
			out = append(out, n)
		}
	}
	return out
}

// The NIP-11 document tells the truth: the NIPs spec/protocol.md lists,
// `self` the key that signs the channels' 39000-39002, `pubkey` the admin to
// contact, the software and its version, and the closed hub's limitation.
func TestNIP11TellsTheTruthBinary(t *testing.T) {
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	doc := fetchNIP11(t, p.URL)
	want := specNIPs(t)
	for _, n := range []int{1, 9, 11, 29, 40, 42, 45, 50, 70} {
		if !slices.Contains(want, n) {
			t.Errorf("spec/protocol.md's supported_nips %v lack NIP-%02d, which the hub implements", want, n)
		}
	}
	if !slices.Equal(doc.SupportedNIPs, want) {
		t.Errorf("NIP-11 supported_nips %v, spec/protocol.md says %v", doc.SupportedNIPs, want)
	}
	if doc.PubKey != admin.pk {
		t.Errorf("NIP-11 pubkey %q, want the admin %s", doc.PubKey, admin.pk)
	}
	if doc.Software != "hive" || doc.Version == "" {
		t.Errorf("NIP-11 software %q version %q", doc.Software, doc.Version)
	}
	l := doc.Limitation
	if !l.AuthRequired || !l.RestrictedWrites || l.MaxMessageLength == 0 || l.MaxContentLength == 0 || l.MaxSubscriptions == 0 {
		t.Errorf("NIP-11 limitation %+v", l)
	}
	// self is the key that signs the group metadata.
	m := p.as(t, admin)
	m.must(admin.sign(t, 9007, "", nostr.Tag{"h", "room"}, nostr.Tag{"name", "Room"}))
	evs, closed := m.req("meta", nostr.Filter{Kinds: []int{39000, 39001, 39002}, Tags: nostr.TagMap{"d": {"room"}}})
	if closed != "" || len(evs) != 3 {
		t.Fatalf("39000-39002 of room: %d events, %q", len(evs), closed)
	}
	for _, ev := range evs {
		if ev.PubKey != doc.Self {
			t.Errorf("kind %d signed by %s, NIP-11 self is %q", ev.Kind, ev.PubKey, doc.Self)
		}
	}
}

// A NIP-29 client subscribes before it answers the challenge: flotilla opens
// about 30 REQs and sends a 28934 at once. Each REQ is CLOSED auth-required,
// the event refused auth-required, and the connection stays open: the same
// connection then authenticates and reads.
func TestNIP29ClientOpeningBurstBeforeAuthBinary(t *testing.T) {
	admin := newKey(t)
	p := startProc(t, t.TempDir(), freeAddr(t), "--admin", admin.pk)
	c := dialRaw(t, p.URL)
	const reqs = 40
	for i := 0; i < reqs; i++ {
		c.send([]any{"REQ", "s" + strconv.Itoa(i), nostr.Filter{Kinds: []int{39000, 39001, 39002}}})
	}
	join := admin.sign(t, 28934, "", nostr.Tag{"-"}, nostr.Tag{"claim", "x"})
	c.send([]any{"EVENT", join})
	closed := map[string]string{}
	for len(closed) < reqs {
		m := c.next(5 * time.Second)
		switch str(m[0]) {
		case "AUTH":
			c.challenge = str(m[1])
		case "CLOSED":
			closed[str(m[1])] = str(m[2])
		case "OK":
			t.Fatalf("OK before every REQ was CLOSED: %s", m)
		}
	}
	for id, why := range closed {
		if !strings.HasPrefix(why, "auth-required: ") {
			t.Errorf("REQ %s before AUTH: CLOSED %q", id, why)
		}
	}
	ok := c.expect("OK")
	if str(ok[1]) != join.ID || string(ok[2]) != "false" || !strings.HasPrefix(str(ok[3]), "auth-required: ") {
		t.Errorf("28934 before AUTH: %s", ok)
	}
	if ok, msg := c.auth(admin, p.URL); !ok {
		t.Fatalf("AUTH after the burst: %s", msg)
	}
	if _, closed := c.req("after", nostr.Filter{Kinds: []int{39000}}); closed != "" {
		t.Fatalf("REQ after AUTH: %q", closed)
	}
}
