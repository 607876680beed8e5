package front

import (
	"net/http"
	"regexp"
	"strings"
)

// hostRe is a host[:port] safe to write into a CSP source: a DNS name, an
// IPv4 address or a bracketed IPv6 address. Anything else (a Host header
// that tries to add directives) falls back to 'self'.
var hostRe = regexp.MustCompile(`^([A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?$`)

// contentSecurityPolicy is the policy of every response: scripts, styles and
// images from the hub only, no inline script or style, no plugins, no
// framing, no forms posting elsewhere, websockets to the hub only.
func contentSecurityPolicy(req *http.Request, tls bool) string {
	connect := "'self'"
	if hostRe.MatchString(req.Host) {
		host := strings.ToLower(req.Host)
		connect += " wss://" + host
		if !tls {
			// plain ws, or a TLS proxy in front (whose page then uses wss)
			connect += " ws://" + host
		}
	}
	return strings.Join([]string{
		"default-src 'none'",
		"script-src 'self'",
		"style-src 'self'",
		"img-src 'self' data: blob:",
		"font-src 'self'",
		"manifest-src 'self'",
		"connect-src " + connect,
		"base-uri 'none'",
		"form-action 'none'",
		"frame-ancestors 'none'",
	}, "; ")
}

// setSecurityHeaders sets the headers every response of the hub carries.
func setSecurityHeaders(h http.Header, req *http.Request, tls bool) {
	h.Set("Content-Security-Policy", contentSecurityPolicy(req, tls))
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(self), microphone=(), geolocation=(), payment=(), usb=()")
}
