package front

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// named answers with its name, so a test sees where a request was routed.
type named string

func (n named) ServeHTTP(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, string(n)) }

var app = fstest.MapFS{
	"index.html": {Data: []byte("<!doctype html><title>hive</title>")},
	"app.js":     {Data: []byte(strings.Repeat("console.log('hive');", 200))},
}

func newHandler(t *testing.T, cfg Config) *Handler {
	t.Helper()
	if cfg.Relay == nil {
		cfg.Relay = named("relay")
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func get(h http.Handler, target string, header ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// Each request goes where the package comment says, with the security
// headers on every one of them.
func TestRouting(t *testing.T) {
	h := newHandler(t, Config{Pair: named("pair"), App: app, Metrics: named("metrics")})
	cases := []struct {
		target string
		header []string
		want   string
	}{
		{"/", []string{"Upgrade", "websocket"}, "relay"},
		{"/", []string{"Accept", "application/nostr+json"}, "relay"},
		{"/anything", []string{"Accept", "application/nostr+json, */*"}, "relay"},
		{"/pair", []string{"Upgrade", "websocket"}, "pair"},
		{"/metrics", nil, "metrics"},
		{"/", []string{"Accept", "text/html"}, "<!doctype html><title>hive</title>"},
		{"/index.html", nil, "<!doctype html><title>hive</title>"},
	}
	for _, c := range cases {
		rec := get(h, c.target, c.header...)
		if got := rec.Body.String(); got != c.want {
			t.Errorf("GET %s %v: got %q, want %q", c.target, c.header, got, c.want)
		}
		checkSecurityHeaders(t, c.target, rec.Header())
	}
	if rec := get(h, "/nope.js"); rec.Code != http.StatusNotFound {
		t.Errorf("GET /nope.js: %d, want 404", rec.Code)
	}
}

// Without the app, a plain GET reaches the relay (its line of text); without
// a metrics handler or a pairing endpoint, their paths are 404.
func TestPartsOff(t *testing.T) {
	h := newHandler(t, Config{})
	if got := get(h, "/", "Accept", "text/html").Body.String(); got != "relay" {
		t.Errorf("GET / without the app went to %q, want the relay", got)
	}
	for _, p := range []string{"/metrics", "/pair"} {
		rec := get(h, p)
		if rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, rec.Code)
		}
		checkSecurityHeaders(t, p, rec.Header())
	}
	if _, err := New(Config{}); err == nil || err.Error() != "front: no relay handler" {
		t.Errorf("New without a relay: %v", err)
	}
	if _, err := New(Config{Relay: named("relay"), App: fstest.MapFS{"app.js": {}}}); err == nil || !strings.Contains(err.Error(), "no index.html") {
		t.Errorf("New with an app without index.html: %v", err)
	}
}

func checkSecurityHeaders(t *testing.T, what string, h http.Header) {
	t.Helper()
	csp := h.Get("Content-Security-Policy")
	for _, d := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "base-uri 'none'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("%s: CSP %q lacks %q", what, csp, d)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Errorf("%s: CSP %q allows inline or eval'd script", what, csp)
	}
	for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
		if got := h.Get(k); got != v {
			t.Errorf("%s: %s = %q, want %q", what, k, got, v)
		}
	}
}

// connect-src names the page's own websocket origin; a Host header that
// tries to smuggle in a directive or a source is not written into the policy.
func TestConnectSrc(t *testing.T) {
	h := newHandler(t, Config{App: app, TLS: true})
	csp := get(h, "/").Header().Get("Content-Security-Policy")
	if !strings.Contains(csp, "connect-src 'self' wss://example.com;") {
		t.Errorf("TLS: CSP %q, want connect-src 'self' wss://example.com", csp)
	}
	plain := newHandler(t, Config{App: app})
	for host, want := range map[string]string{
		"127.0.0.1:7447":             "connect-src 'self' wss://127.0.0.1:7447 ws://127.0.0.1:7447;",
		"[::1]:7447":                 "connect-src 'self' wss://[::1]:7447 ws://[::1]:7447;",
		"evil; script-src *":         "connect-src 'self';",
		"a.example wss://b.example":  "connect-src 'self';",
		"a.example:1/x":              "connect-src 'self';",
		"a.example:7447'unsafe-eval": "connect-src 'self';",
	} {
		req := httptest.NewRequest(http.MethodGet, "/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		plain.ServeHTTP(rec, req)
		if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, want) {
			t.Errorf("Host %q: CSP %q, want %q", host, csp, want)
		}
	}
}

// The app's files go gzipped to a browser that takes gzip, by ETag again as
// 304, and only for GET and HEAD.
func TestAssets(t *testing.T) {
	h := newHandler(t, Config{App: app})
	rec := get(h, "/app.js", "Accept-Encoding", "gzip, deflate, br")
	if rec.Header().Get("Content-Encoding") != "gzip" || rec.Header().Get("Content-Type") != "text/javascript; charset=utf-8" {
		t.Fatalf("app.js headers: %v", rec.Header())
	}
	zr, err := gzip.NewReader(bytes.NewReader(rec.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(zr)
	if !bytes.Equal(body, app["app.js"].Data) {
		t.Fatalf("gunzipped app.js differs from the file")
	}
	if rec.Body.Len() >= len(body) {
		t.Errorf("gzip %d bytes, plain %d", rec.Body.Len(), len(body))
	}
	if plain := get(h, "/app.js", "Accept-Encoding", "gzip;q=0"); plain.Header().Get("Content-Encoding") != "" || !bytes.Equal(plain.Body.Bytes(), body) {
		t.Errorf("gzip;q=0 got Content-Encoding %q", plain.Header().Get("Content-Encoding"))
	}
	etag := rec.Header().Get("ETag")
	if again := get(h, "/app.js", "If-None-Match", etag); again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("If-None-Match %s: %d with %d bytes, want 304", etag, again.Code, again.Body.Len())
	}
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader("x"))
	post := httptest.NewRecorder()
	h.ServeHTTP(post, req)
	if post.Code != http.StatusMethodNotAllowed || post.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: %d, Allow %q", post.Code, post.Header().Get("Allow"))
	}
}
