// Package nip98 reads and checks NIP-98 HTTP authorizations: a kind 27235
// event, base64 in an `Authorization: Nostr ...` header, naming the URL
// (`u`), the HTTP method (`method`) and the body's sha256 (`payload`) of the
// one request it authorizes. Every check says what is wrong in a sentence a
// client can show (spec/protocol.md, "Administration (NIP-86)").
package nip98

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// Kind is NIP-98's HTTP authorization kind.
const Kind = 27235

// MaxHeaderBytes bounds the Authorization header read: an event with the
// three tags it needs fits in far less.
const MaxHeaderBytes = 8 << 10

// Window is how far an authorization's created_at may be from the hub's
// clock, either way.
const Window = 60 * time.Second

// Parse decodes an `Authorization: Nostr <base64 event>` header value. It
// checks the form only; Check judges the event.
func Parse(header string) (*nostr.Event, error) {
	if header == "" {
		return nil, errors.New("no Authorization header: sign the request with NIP-98 (Authorization: Nostr <base64 event>)")
	}
	if len(header) > MaxHeaderBytes {
		return nil, fmt.Errorf("the Authorization header is over %d bytes", MaxHeaderBytes)
	}
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Nostr") {
		return nil, errors.New(`the Authorization header must be "Nostr <base64 event>" (NIP-98)`)
	}
	token = strings.TrimSpace(token)
	raw, err := base64.StdEncoding.DecodeString(token)
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(token); err != nil {
			return nil, errors.New("the Authorization header's token is not base64")
		}
	}
	var ev nostr.Event
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, errors.New("the Authorization header's token is not a JSON event")
	}
	return &ev, nil
}

// Want is the request an authorization must name.
type Want struct {
	URLs   []string // the URLs the request may be addressed to (ws/wss taken as http/https)
	Method string   // HTTP method, e.g. POST
	Body   []byte   // the request body, whose sha256 the payload tag must hold
	Now    time.Time
}

// Check judges ev as the authorization of the request w describes, all
// but its signature (CheckSignature, the one costly check, comes after the
// caller has looked up the signer): kind, id, method, payload, created_at
// within Window of w.Now, u one of w.URLs (trailing slash ignored).
func Check(ev *nostr.Event, w Want) error {
	if err := checkForm(ev, w.Method, w.Body); err != nil {
		return err
	}
	if d := w.Now.Sub(ev.CreatedAt.Time()); d > Window {
		return fmt.Errorf("the authorization is stale: its created_at is more than %s before the hub's clock (sign a fresh one)", Window)
	} else if d < -Window {
		return fmt.Errorf("the authorization's created_at is more than %s ahead of the hub's clock (check your clock)", Window)
	}
	u := tag(ev, "u")
	want, ok := NormalizeURL(u)
	if ok && !strings.HasPrefix(strings.ToLower(strings.TrimSpace(u)), "http") {
		ok = false // the request's own URL: http(s), never the websocket's
	}
	if ok {
		ok = false
		for _, p := range w.URLs {
			if n, good := NormalizeURL(p); good && n == want {
				ok = true
			}
		}
	}
	if !ok {
		return fmt.Errorf("the authorization's u %q is not this hub's URL (%s)", truncate(u, 100), strings.Join(httpURLs(w.URLs), ", "))
	}
	return nil
}

// Verify checks what stays true of an authorization after its request: its
// kind, id and signature, its method and that its payload is body's sha256.
// The hub checks it again when it replays the events it wrote on one.
func Verify(ev *nostr.Event, method string, body []byte) error {
	if err := checkForm(ev, method, body); err != nil {
		return err
	}
	return CheckSignature(ev)
}

// CheckSignature verifies the authorization's signature.
func CheckSignature(ev *nostr.Event) error {
	if ok, err := ev.CheckSignature(); err != nil || !ok {
		return errors.New("the authorization's signature does not verify")
	}
	return nil
}

// checkForm checks kind, pubkey, id, method and payload.
func checkForm(ev *nostr.Event, method string, body []byte) error {
	if ev.Kind != Kind {
		return fmt.Errorf("the authorization is kind %d; NIP-98 wants kind %d", ev.Kind, Kind)
	}
	if !nostr.IsValid32ByteHex(ev.PubKey) {
		return errors.New("the authorization's pubkey is not 64 hex characters")
	}
	if ev.GetID() != ev.ID {
		return errors.New("the authorization's id is not the hash of the event")
	}
	if m := tag(ev, "method"); !strings.EqualFold(m, method) {
		return fmt.Errorf("the authorization's method is %q; this request is %s", truncate(m, 20), method)
	}
	sum := sha256.Sum256(body)
	p := tag(ev, "payload")
	if p == "" {
		return errors.New("the authorization has no payload tag: it must hold the body's sha256")
	}
	if !strings.EqualFold(p, hex.EncodeToString(sum[:])) {
		return errors.New("the authorization's payload is not the sha256 of this request's body")
	}
	return nil
}

// NormalizeURL reduces an http(s) or ws(s) URL to http(s)://host[:port]/path,
// ws read as http and wss as https, scheme and host lower-cased, the default
// port and a trailing slash dropped.
func NormalizeURL(raw string) (string, bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	switch scheme {
	case "ws":
		scheme = "http"
	case "wss":
		scheme = "https"
	case "http", "https":
	default:
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host + strings.TrimRight(u.EscapedPath(), "/"), true
}

// httpURLs are urls as an authorization's u names them (ws→http, wss→https).
func httpURLs(urls []string) []string {
	out := make([]string, 0, len(urls))
	for _, u := range urls {
		if n, ok := NormalizeURL(u); ok {
			out = append(out, n)
		}
	}
	return out
}

func tag(ev *nostr.Event, name string) string {
	for _, t := range ev.Tags {
		if len(t) >= 2 && t[0] == name {
			return t[1]
		}
	}
	return ""
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
