package test

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// nip86Req is one NIP-86 call as a client builds it; the fields a test
// changes to make a bad one.
type nip86Req struct {
	body        string
	u, method   string // the authorization's u and method tags
	payload     string // "" = the body's sha256; "-" = no payload tag
	at          time.Time
	contentType string
	auth        string // the Authorization header; "" = built from the fields above
	badSig      bool   // sign, then break the signature
}

// nip86Answer is the hub's answer: status and the JSON-RPC result or error.
type nip86Answer struct {
	status int
	Result json.RawMessage `json:"result"`
	Error  string          `json:"error"`
	header http.Header
}

func httpURL(wsURL string) string { return "http" + strings.TrimPrefix(wsURL, "ws") }

// newNIP86 is a call of method with params by k to the hub at wsURL, as
// nostr-tools and welshman build one.
func newNIP86(wsURL, method string, params ...string) nip86Req {
	if params == nil {
		params = []string{}
	}
	b, _ := json.Marshal(map[string]any{"method": method, "params": params})
	return nip86Req{body: string(b), u: httpURL(wsURL), method: "POST", at: time.Now(), contentType: "application/nostr+json+rpc"}
}

// token is the NIP-98 Authorization header value of r signed by k.
func (r nip86Req) token(t testing.TB, k key) string {
	t.Helper()
	tags := nostr.Tags{{"u", r.u}, {"method", r.method}}
	switch r.payload {
	case "":
		sum := sha256.Sum256([]byte(r.body))
		tags = append(tags, nostr.Tag{"payload", hex.EncodeToString(sum[:])})
	case "-":
	default:
		tags = append(tags, nostr.Tag{"payload", r.payload})
	}
	ev := &nostr.Event{Kind: 27235, CreatedAt: nostr.Timestamp(r.at.Unix()), Tags: tags}
	if err := ev.Sign(k.sk); err != nil {
		t.Fatal(err)
	}
	if r.badSig {
		ev.Sig = strings.Repeat("0", 128)
	}
	raw, _ := json.Marshal(ev)
	return "Nostr " + base64.StdEncoding.EncodeToString(raw)
}

// send POSTs r, signed by k, to the hub's HTTP URL.
func (r nip86Req) send(t testing.TB, wsURL string, k key) nip86Answer {
	t.Helper()
	auth := r.auth
	if auth == "" {
		auth = r.token(t, k)
	}
	return postNIP86(t, httpURL(wsURL), r.contentType, auth, r.body)
}

func postNIP86(t testing.TB, url, contentType, auth, body string) nip86Answer {
	t.Helper()
	req, _ := http.NewRequest("POST", url, bytes.NewBufferString(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if auth != "-" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	a := nip86Answer{status: resp.StatusCode, header: resp.Header}
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		t.Fatalf("answer is not JSON: %v", err)
	}
	return a
}

// ok calls r as k and fails the test unless the hub answers a result.
func (r nip86Req) ok(t testing.TB, wsURL string, k key) json.RawMessage {
	t.Helper()
	a := r.send(t, wsURL, k)
	if a.status != 200 || a.Error != "" {
		t.Fatalf("%s refused (%d): %s", r.body, a.status, a.Error)
	}
	return a.Result
}

// Every refusal of the NIP-86 endpoint is a JSON-RPC error with its reason
// sentence, against the real binary: bad content type, no or malformed
// authorization, wrong kind, method, payload, stale or future created_at,
// wrong u, a non-admin (and a non-admin's device), a replay, a method hive
// does not do, and a rule's own refusal.
func TestNIP86RefusalsBinary(t *testing.T) {
	admin, bob := newKey(t), newKey(t)
	addr := freeAddr(t)
	p := startProc(t, t.TempDir(), addr, "--admin", admin.pk, "--public-url", "ws://"+addr+"/", "--public-url", "wss://hub.example.org")
	url := p.URL
	base := newNIP86(url, "supportedmethods")

	for _, c := range []struct {
		name   string
		r      func() nip86Req
		signer key
		status int
		want   string
	}{
		{"content type", func() nip86Req { r := base; r.contentType = "application/json"; return r }, admin, 415,
			"invalid: a NIP-86 call has Content-Type application/nostr+json+rpc"},
		{"no authorization", func() nip86Req { r := base; r.auth = "-"; return r }, admin, 401,
			"auth-required: no Authorization header: sign the request with NIP-98 (Authorization: Nostr <base64 event>)"},
		{"other scheme", func() nip86Req { r := base; r.auth = "Bearer abc"; return r }, admin, 401,
			`auth-required: the Authorization header must be "Nostr <base64 event>" (NIP-98)`},
		{"not base64", func() nip86Req { r := base; r.auth = "Nostr !!!"; return r }, admin, 401,
			"auth-required: the Authorization header's token is not base64"},
		{"wrong method tag", func() nip86Req { r := base; r.method = "GET"; return r }, admin, 401,
			`invalid: NIP-98: the authorization's method is "GET"; this request is POST`},
		{"wrong payload", func() nip86Req { r := base; r.payload = strings.Repeat("ab", 32); return r }, admin, 401,
			"invalid: NIP-98: the authorization's payload is not the sha256 of this request's body"},
		{"no payload", func() nip86Req { r := base; r.payload = "-"; return r }, admin, 401,
			"invalid: NIP-98: the authorization has no payload tag: it must hold the body's sha256"},
		{"stale", func() nip86Req { r := base; r.at = time.Now().Add(-2 * time.Minute); return r }, admin, 401,
			"invalid: NIP-98: the authorization is stale: its created_at is more than 1m0s before the hub's clock (sign a fresh one)"},
		{"future", func() nip86Req { r := base; r.at = time.Now().Add(3 * time.Minute); return r }, admin, 401,
			"invalid: NIP-98: the authorization's created_at is more than 1m0s ahead of the hub's clock (check your clock)"},
		{"wrong u", func() nip86Req { r := base; r.u = "http://evil.example/"; return r }, admin, 401,
			`invalid: NIP-98: the authorization's u "http://evil.example/" is not this hub's URL (http://` + addr + `, https://hub.example.org)`},
		{"ws u", func() nip86Req { r := base; r.u = "ws://" + addr; return r }, admin, 401,
			`invalid: NIP-98: the authorization's u "ws://` + addr + `" is not this hub's URL (http://` + addr + `, https://hub.example.org)`},
		{"bad signature", func() nip86Req { r := base; r.badSig = true; return r }, admin, 401,
			"invalid: NIP-98: the authorization's signature does not verify"},
		{"non-admin, bad signature", func() nip86Req { r := base; r.badSig = true; return r }, bob, 403,
			"restricted: " + npubOf(bob.pk) + " is not a hub admin; NIP-86 calls are for hub admins and their paired devices"},
		{"non-admin", func() nip86Req { return base }, bob, 403,
			"restricted: " + npubOf(bob.pk) + " is not a hub admin; NIP-86 calls are for hub admins and their paired devices"},
		{"no such method", func() nip86Req { return newNIP86(url, "banpubkey", bob.pk, "spam") }, admin, 400,
			`invalid: method "banpubkey": hive does not do it (supportedmethods lists what it does)`},
		{"bad pubkey", func() nip86Req { return newNIP86(url, "allowpubkey", "bob") }, admin, 400,
			`invalid: allowpubkey: "bob" is not a pubkey (want 64 hex or npub1...)`},
		{"not a member", func() nip86Req { return newNIP86(url, "disallowpubkey", bob.pk) }, admin, 400,
			"invalid: " + bob.pk + " is not a hub member"},
		{"the configured admin", func() nip86Req { return newNIP86(url, "disallowpubkey", admin.pk) }, admin, 400,
			"invalid: the hub's configured admin cannot be removed"},
		{"bad icon", func() nip86Req { return newNIP86(url, "changerelayicon", "javascript:alert(1)") }, admin, 400,
			"invalid: the hub's icon must be an http(s) URL of at most 1,024 bytes"},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := c.r().send(t, url, c.signer)
			if a.status != c.status || a.Error != c.want || string(a.Result) != "null" {
				t.Fatalf("got %d %q (result %s), want %d %q", a.status, a.Error, a.Result, c.status, c.want)
			}
			if a.header.Get("Access-Control-Allow-Origin") != "*" {
				t.Fatalf("refusal without CORS: %v", a.header)
			}
		})
	}

	t.Run("u with other spellings", func(t *testing.T) {
		for _, u := range []string{"http://" + addr, "http://" + addr + "/", "https://hub.example.org/", "HTTPS://HUB.example.org:443"} {
			r := newNIP86(url, "supportedmethods")
			r.u = u
			r.ok(t, url, admin)
		}
	})

	// A call that changes the hub is answered once per authorization; a
	// read again: nostr-tools' and NDK's authorizations carry only u, method
	// and payload, so two clients' (or one client's two) identical reads in
	// one second are one event, as flotilla's are.
	t.Run("replay", func(t *testing.T) {
		r := newNIP86(url, "allowpubkey", newKey(t).pk)
		r.auth = r.token(t, admin)
		r.ok(t, url, admin)
		a := r.send(t, url, admin)
		if a.status != 401 || a.Error != "restricted: this NIP-98 authorization was already used; sign a new one" {
			t.Fatalf("replay: %d %q", a.status, a.Error)
		}
		for _, m := range []string{"listallowedpubkeys", "supportedmethods"} {
			read := newNIP86(url, m)
			read.auth = read.token(t, admin)
			first, second := read.ok(t, url, admin), read.ok(t, url, admin)
			if !bytes.Equal(first, second) {
				t.Errorf("%s twice with one authorization: %s, then %s", m, first, second)
			}
		}
		// flotilla calls listbannedpubkeys twice at once: each is told why
		unknown := newNIP86(url, "listbannedpubkeys")
		unknown.auth = unknown.token(t, admin)
		for range 2 {
			if a := unknown.send(t, url, admin); a.status != 400 || a.Error != `invalid: method "listbannedpubkeys": hive does not do it (supportedmethods lists what it does)` {
				t.Errorf("listbannedpubkeys with one authorization: %d %q", a.status, a.Error)
			}
		}
	})

	t.Run("preflight", func(t *testing.T) {
		req, _ := http.NewRequest("OPTIONS", httpURL(url), nil)
		req.Header.Set("Origin", "https://app.flotilla.social")
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,content-type")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		h := resp.Header
		if resp.StatusCode != 204 || h.Get("Access-Control-Allow-Origin") != "*" ||
			h.Get("Access-Control-Allow-Methods") != "GET, POST, OPTIONS" ||
			h.Get("Access-Control-Allow-Headers") != "Authorization, Content-Type, Accept" {
			t.Fatalf("preflight: %d %v", resp.StatusCode, h)
		}
	})
}

// An admin administers the hub with NIP-86, against the real binary: the
// methods it lists, a member added and removed as 8000/8001 the hub signs
// with the call inside (the log the truth: the member can AUTH, then
// cannot, and the events survive a restart), the hub's name, description and
// icon in NIP-11 before and after a restart, and a paired device of the
// admin acting as the admin.
func TestNIP86AdministersTheHubBinary(t *testing.T) {
	admin, bob, dev := newKey(t), newKey(t), newKey(t)
	data, addr := t.TempDir(), freeAddr(t)
	p := startProc(t, data, addr, "--admin", admin.pk)
	url := p.URL

	var methods []string
	json.Unmarshal(newNIP86(url, "supportedmethods").ok(t, url, admin), &methods)
	want := []string{"allowpubkey", "changerelaydescription", "changerelayicon", "changerelayname", "disallowpubkey", "listallowedpubkeys", "supportedmethods", "unallowpubkey"}
	if !slices.Equal(methods, want) {
		t.Fatalf("supportedmethods = %v, want %v", methods, want)
	}

	notAdmitted(t, dialRaw(t, url), bob, url) // a guest before being allowed (NIP-43)
	if got := string(newNIP86(url, "allowpubkey", npubOf(bob.pk), "teammate").ok(t, url, admin)); got != "true" {
		t.Fatalf("allowpubkey result %s", got)
	}
	b := dialRaw(t, url)
	if ok, why := b.auth(bob, url); !ok || why != "" {
		t.Fatalf("bob after allowpubkey: %v %q, want a member's OK true", ok, why)
	}
	var rows []struct{ Pubkey, Reason string }
	json.Unmarshal(newNIP86(url, "listallowedpubkeys").ok(t, url, admin), &rows)
	got := map[string]string{}
	for _, r := range rows {
		got[r.Pubkey] = r.Reason
	}
	if len(got) != 2 || got[admin.pk] != "hub admin" || got[bob.pk] != "hub member" {
		t.Fatalf("listallowedpubkeys = %v", rows)
	}

	// The 8000 is in the log, signed by the hub, the call inside.
	a := dialRaw(t, url)
	if ok, why := a.auth(admin, url); !ok {
		t.Fatal(why)
	}
	adds, _ := a.req("adds", nostr.Filter{Kinds: []int{8000}, Tags: nostr.TagMap{"p": {bob.pk}}})
	doc := fetchNIP11(t, url)
	if len(adds) != 1 || adds[0].PubKey != doc.Self || adds[0].Tags.Find("nip98") == nil || !strings.Contains(adds[0].Tags.Find("nip86")[1], `"allowpubkey"`) {
		t.Fatalf("8000 for bob: %v", adds)
	}

	// A paired device of the admin acts as the admin.
	tag := deviceTag(t, admin, dev, time.Hour)
	d := dialRaw(t, url)
	if ok, why := d.authWith(dev, url, 0, tag); !ok {
		t.Fatal(why)
	}
	if ok, why := d.publish(dev.sign(t, 0, `{"name":"phone"}`, tag, nostr.Tag{"device"})); !ok {
		t.Fatal(why)
	}
	newNIP86(url, "changerelayname", "Team hub").ok(t, url, dev)
	newNIP86(url, "changerelaydescription", "Where the agents work").ok(t, url, admin)
	newNIP86(url, "changerelayicon", "https://example.org/icon.png").ok(t, url, admin)

	// bob is removed: his connection closes, he cannot AUTH again.
	closed := closedAt(b)
	if got := string(newNIP86(url, "disallowpubkey", bob.pk).ok(t, url, dev)); got != "true" {
		t.Fatalf("disallowpubkey result %s", got)
	}
	<-closed
	notAdmitted(t, dialRaw(t, url), bob, url) // a guest again after disallowpubkey
	a2 := newNIP86(url, "allowpubkey", bob.pk).send(t, url, bob)
	if a2.status != 403 {
		t.Fatalf("removed bob administers: %d %s", a2.status, a2.Error)
	}

	check := func(when string) {
		doc := fetchNIP11Full(t, url)
		if doc["name"] != "Team hub" || doc["description"] != "Where the agents work" || doc["icon"] != "https://example.org/icon.png" {
			t.Fatalf("%s: NIP-11 name/description/icon = %v / %v / %v", when, doc["name"], doc["description"], doc["icon"])
		}
	}
	check("live")
	p.kill9()
	p = startProc(t, data, addr, "--admin", admin.pk)
	check("after a restart")
	json.Unmarshal(newNIP86(url, "listallowedpubkeys").ok(t, url, admin), &rows)
	if len(rows) != 1 || rows[0].Pubkey != admin.pk {
		t.Fatalf("after a restart, listallowedpubkeys = %v", rows)
	}
	// replay --verify rebuilds the same state from the log alone.
	out, err := exec.Command(binary(t), "admin", "replay", "--verify", "--data", data, "--admin", admin.pk, "--json").CombinedOutput()
	if err != nil || !strings.Contains(string(out), `"ok":true`) {
		t.Fatalf("replay --verify: %v\n%s", err, out)
	}
}

func fetchNIP11Full(t testing.TB, wsURL string) map[string]any {
	t.Helper()
	var doc map[string]any
	decodeNIP11(t, wsURL, &doc)
	return doc
}
