package runner

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// allow_hosts: an exact host (any port, or its port), a pattern, and the
// entries refused with their reason.
func TestAllowList(t *testing.T) {
	l, err := parseAllowList([]string{"ci.example.com", "10.0.0.5:8443", "[::1]", "*.hooks.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		host, port string
		ok, exact  bool
	}{
		{"ci.example.com", "443", true, true},
		{"CI.Example.com.", "8080", true, true},
		{"10.0.0.5", "8443", true, true},
		{"10.0.0.5", "443", false, false},
		{"::1", "80", true, true},
		{"a.hooks.example.org", "443", true, false},
		{"hooks.example.org", "443", false, false},
		{"evil.example.com", "443", false, false},
	} {
		if ok, exact := l.admits(c.host, c.port); ok != c.ok || exact != c.exact {
			t.Errorf("%s:%s: ok %v exact %v, want %v %v", c.host, c.port, ok, exact, c.ok, c.exact)
		}
	}
	for in, want := range map[string]string{
		"https://ci.example.com": `http.allow_hosts: "https://ci.example.com" is not a host or host:port (e.g. ci.example.com, ci.example.com:8443, 10.0.0.5, *.example.com)`,
		"ci.example.com:99999":   `http.allow_hosts: "ci.example.com:99999" has port "99999": a port is 1-65535`,
		"ci.*.com":               `http.allow_hosts: "ci.*.com" has a * inside: only a leading *. (any name under a domain) or * alone (any host)`,
	} {
		if _, err := parseAllowList([]string{in}); err == nil || err.Error() != want {
			t.Errorf("%s: %v", in, err)
		}
	}
}

// A host a pattern admits is checked at the address the connection is
// made to: a name that resolves to loopback is refused, whatever the name
// said; the same name listed exactly connects.
func TestDialChecksTheAddress(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("hi")) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pattern, _ := parseAllowList([]string{"*"})
	_, err := pattern.dialer()(ctx, "tcp", "localhost:"+port)
	if err == nil || !strings.Contains(err.Error(), "localhost resolves to ") || !strings.Contains(err.Error(), ", a loopback address: only a host listed") {
		t.Fatalf("pattern: %v", err)
	}
	exact, _ := parseAllowList([]string{"localhost"})
	c, err := exact.dialer()(ctx, "tcp", "127.0.0.1:"+port)
	if err == nil {
		c.Close()
		t.Fatal("127.0.0.1 is not localhost by name: it is not listed exactly, so its loopback address is refused")
	}
	exact, _ = parseAllowList([]string{"127.0.0.1"})
	if c, err = exact.dialer()(ctx, "tcp", "127.0.0.1:"+port); err != nil {
		t.Fatalf("exact: %v", err)
	}
	c.Close()
}

// The call's own cap: a server that does not answer within the timeout
// fails the call with that reason (the cap is shortened here; it is 10 s).
func TestHTTPTimeoutCap(t *testing.T) {
	hang := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { <-hang }))
	defer srv.Close()
	defer close(hang)
	old := httpTimeout
	httpTimeout = 300 * time.Millisecond
	defer func() { httpTimeout = old }()
	l, _ := parseAllowList([]string{"127.0.0.1"})
	r := &Runner{allow: l, redactor: newRedactor(nil)}
	r.http = r.httpClient()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", srv.URL, nil)
	_, _, err := r.call(req, "GET "+srv.URL)
	if err == nil || err.Error() != "GET "+srv.URL+": no answer within 300ms" {
		t.Fatalf("%v", err)
	}
	if HTTPTimeout != 10*time.Second {
		t.Fatalf("the cap is %v", HTTPTimeout)
	}
}

// Redaction covers a secret as it is and as JSON, a URL and base64 spell
// it; values under 4 bytes stay.
func TestRedactForms(t *testing.T) {
	x := newRedactor(map[string]string{"A": `p&ss"word/1`, "B": "abc"})
	in := `raw p&ss"word/1 json p\u0026ss\"word/1 query p%26ss%22word%2F1 b64 cCZzcyJ3b3JkLzE= abc`
	if got, want := x.redact(in), "raw [redacted] json [redacted] query [redacted] b64 [redacted] abc"; got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}
