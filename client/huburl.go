package client

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// CheckHubURL reports, as ErrInvalid, a hub URL that is not ws:// or
// wss://HOST[:PORT][/PATH], naming the fix.
func CheckHubURL(s string) error {
	if !strings.Contains(s, "://") {
		return wrap(ErrInvalid, fmt.Errorf("hub URL %q has no ws:// or wss:// scheme: use wss://%s (a hub serving TLS, with its --pin) or ws://%s", s, s, s))
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return wrap(ErrInvalid, fmt.Errorf("hub URL %q: want ws:// or wss://HOST:PORT", s))
	}
	return nil
}

// schemeMismatch explains a failed dial that met the other scheme: ws://
// at a hub that serves TLS, or wss:// at one that does not. Else nil.
func schemeMismatch(hubURL string, resp *http.Response, err error) error {
	u, perr := url.Parse(hubURL)
	if perr != nil {
		return nil
	}
	var rh tls.RecordHeaderError
	switch {
	case u.Scheme == "ws" && resp != nil && resp.StatusCode == http.StatusBadRequest && speaksTLS(resp):
		u.Scheme = "wss"
		return wrap(ErrInvalid, fmt.Errorf("the hub at %s serves TLS: use %s, with its pin (--pin sha256/..., shown by `hive status --data DIR` on the hub machine)", hubURL, u))
	case u.Scheme == "wss" && errors.As(err, &rh):
		u.Scheme = "ws"
		return wrap(ErrInvalid, fmt.Errorf("the hub at %s does not serve TLS: use %s (or start the hub with --tls self-signed)", hubURL, u))
	}
	return nil
}

// speaksTLS reports whether resp is Go's answer to plain HTTP on a TLS port.
func speaksTLS(resp *http.Response) bool {
	if resp.Body == nil {
		return false
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	return strings.Contains(string(b), "HTTP request to an HTTPS server")
}
