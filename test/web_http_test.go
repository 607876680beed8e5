package test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/tlspin"
)

// webGet fetches url from a TLS hub with pin, sending header (pairs).
func webGet(t *testing.T, pin, url string, header ...string) (*http.Response, string) {
	t.Helper()
	conf, err := tlspin.ClientConfig(pin)
	if err != nil {
		t.Fatal(err)
	}
	c := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{TLSClientConfig: conf}}
	defer c.CloseIdleConnections()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(body)
}

// wantSecurityHeaders checks the headers spec/web.md puts on every response.
func wantSecurityHeaders(t *testing.T, h *webHub, what string, hdr http.Header) {
	t.Helper()
	csp := hdr.Get("Content-Security-Policy")
	host := strings.TrimPrefix(strings.TrimSuffix(h.URL, "/"), "https://")
	for _, d := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'",
		"connect-src 'self' wss://" + host + ";", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"} {
		if !strings.Contains(csp, d) {
			t.Errorf("%s: Content-Security-Policy %q lacks %q", what, csp, d)
		}
	}
	if strings.Contains(csp, "unsafe-") {
		t.Errorf("%s: Content-Security-Policy %q allows unsafe sources", what, csp)
	}
	for k, v := range map[string]string{"X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"} {
		if got := hdr.Get(k); got != v {
			t.Errorf("%s: %s is %q, want %q", what, k, got, v)
		}
	}
}

const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

// The real hub over TLS: a browser's GET of / gets the web chat, its assets
// are served with their types, NIP-11 still answers its Accept header, and
// every response (404s, /pair, /metrics included) has the security headers.
func TestWebHeadersOnEveryPage(t *testing.T) {
	h := startWebHub(t)
	cases := []struct {
		path, accept string
		status       int
		ctype, body  string
	}{
		{"", browserAccept, 200, "text/html; charset=utf-8", `<script type="module" src="app.js">`},
		{"index.html", browserAccept, 200, "text/html; charset=utf-8", `<link rel="stylesheet" href="app.css">`},
		{"app.js", "*/*", 200, "text/javascript; charset=utf-8", `"connection-state"`},
		{"app.css", "text/css", 200, "text/css; charset=utf-8", "{"},
		{"", "application/nostr+json", 200, "application/nostr+json", `"software":"hive"`},
		{"pair", browserAccept, 400, "", ""},
		{"metrics", "*/*", 404, "", "404 page not found"},
		{"nope.js", "*/*", 404, "", "404 page not found"},
	}
	for _, c := range cases {
		resp, body := webGet(t, h.Pin, h.URL+c.path, "Accept", c.accept)
		what := "GET /" + c.path + " (" + c.accept + ")"
		if resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d: %s", what, resp.StatusCode, c.status, body)
		}
		if c.ctype != "" && resp.Header.Get("Content-Type") != c.ctype {
			t.Errorf("%s: Content-Type %q, want %q", what, resp.Header.Get("Content-Type"), c.ctype)
		}
		if !strings.Contains(body, c.body) {
			t.Errorf("%s: body lacks %q:\n%.300s", what, c.body, body)
		}
		wantSecurityHeaders(t, h, what, resp.Header)
	}
	// gzip on the wire (Go's client asks for it and unpacks it itself)
	resp, _ := webGet(t, h.Pin, h.URL+"app.js", "Accept-Encoding", "gzip")
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Errorf("app.js with Accept-Encoding gzip: Content-Encoding %q", resp.Header.Get("Content-Encoding"))
	}
}

// --web=false: a plain GET gets the relay's line of text again, NIP-11 is
// still served, the app's files are gone, the headers stay.
func TestWebOff(t *testing.T) {
	h := startWebHub(t, "--web=false")
	resp, body := webGet(t, h.Pin, h.URL, "Accept", browserAccept)
	if resp.StatusCode != 200 || body != "hive hub: connect with a Nostr client over websocket\n" {
		t.Errorf("GET / with --web=false: %d %q", resp.StatusCode, body)
	}
	wantSecurityHeaders(t, h, "GET / --web=false", resp.Header)
	if resp, body := webGet(t, h.Pin, h.URL+"app.js"); resp.StatusCode != 200 || strings.Contains(body, "connection-state") {
		t.Errorf("GET /app.js with --web=false: %d %.100q (want the relay's line, not the app)", resp.StatusCode, body)
	}
	resp, body = webGet(t, h.Pin, h.URL, "Accept", "application/nostr+json")
	var doc struct {
		Software string `json:"software"`
		NIPs     []int  `json:"supported_nips"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil || doc.Software != "hive" || len(doc.NIPs) == 0 {
		t.Errorf("NIP-11 with --web=false: %v %q", err, body)
	}
	wantSecurityHeaders(t, h, "NIP-11 --web=false", resp.Header)
}

// --metrics main serves Prometheus text at /metrics on the hub's own listener.
func TestWebMetricsOnMain(t *testing.T) {
	h := startWebHub(t, "--metrics", "main")
	resp, body := webGet(t, h.Pin, h.URL+"metrics")
	if resp.StatusCode != 200 || !strings.Contains(body, "hive_connections ") {
		t.Fatalf("GET /metrics with --metrics main: %d %.300s", resp.StatusCode, body)
	}
	wantSecurityHeaders(t, h, "GET /metrics", resp.Header)
}
