package webhook

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"unicode/utf8"
)

// MaxBody bounds a delivery's body: a larger one is answered 413.
const MaxBody = 64 << 10

// maxHeaders bounds the header text a delivery keeps.
const maxHeaders = 8 << 10

// Content is a delivery event's content: what the sender sent, verified.
type Content struct {
	Event   string            `json:"event,omitempty"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	// BodyBase64 holds a body that is not UTF-8 text, instead of Body.
	BodyBase64 string `json:"body_base64,omitempty"`
}

// dropped are the request headers a delivery never keeps: credentials,
// and the hop-by-hop ones.
var dropped = map[string]bool{"authorization": true, "proxy-authorization": true, "cookie": true,
	"connection": true, "keep-alive": true, "te": true, "trailer": true, "transfer-encoding": true, "upgrade": true}

// NewContent is the content of a verified delivery: its headers (names
// lower-case, repeated values joined by ", ", in name order, at most
// 8 KiB, credentials left out) and its body.
func NewContent(v Verified, h http.Header, body []byte) Content {
	c := Content{Event: v.Event, Headers: map[string]string{}}
	if c.Event == "" && v.Scheme == SchemeStandard {
		var typed struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(body, &typed) == nil {
			c.Event = typed.Type
		}
	}
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	size := 0
	for _, k := range names {
		n := strings.ToLower(k)
		if dropped[n] {
			continue
		}
		v := strings.Join(h[k], ", ")
		if size += len(n) + len(v); size > maxHeaders {
			break
		}
		c.Headers[n] = v
	}
	if utf8.Valid(body) {
		c.Body = string(body)
	} else {
		c.BodyBase64 = base64.StdEncoding.EncodeToString(body)
	}
	return c
}

// ParseContent reads a delivery event's content.
func ParseContent(s string) (Content, error) {
	var c Content
	err := json.Unmarshal([]byte(s), &c)
	if c.Headers == nil {
		c.Headers = map[string]string{}
	}
	return c, err
}

// Value is the body as a workflow's expressions see it (webhook.body):
// the JSON it holds; for a form (GitHub's application/x-www-form-urlencoded
// deliveries) the JSON of its payload field; else the text itself.
func (c Content) Value() any {
	text := c.Body
	if c.BodyBase64 != "" {
		b, _ := base64.StdEncoding.DecodeString(c.BodyBase64)
		text = string(b)
	}
	if strings.HasPrefix(c.Headers["content-type"], "application/x-www-form-urlencoded") {
		if form, err := url.ParseQuery(text); err == nil && form.Has("payload") {
			text = form.Get("payload")
		}
	}
	var v any
	if json.Unmarshal([]byte(text), &v) == nil {
		return v
	}
	return text
}
