package webhook

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// GitHub's own example (docs, "Validating webhook deliveries"): the
// secret "It's a Secret to Everybody" and the body "Hello, World!".
func TestGitHubSignatureMatchesGitHubsExample(t *testing.T) {
	if got, want := SignGitHub("It's a Secret to Everybody", []byte("Hello, World!")), "sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17"; got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
}

// A Standard Webhooks signature verifies with its secret, within the
// tolerance, for exactly the body signed; any change is refused with why.
func TestStandardSignatureRoundTrip(t *testing.T) {
	secret, err := NewSecret()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"type":"build.done"}`)
	h, err := SignStandard(secret, "msg_1", now, body)
	if err != nil {
		t.Fatal(err)
	}
	v, err := Verify(secret, h, body, now.Add(Tolerance))
	if err != nil || v.Scheme != SchemeStandard || v.Delivery != "msg_1" {
		t.Fatalf("verify: %+v %v", v, err)
	}
	if c := NewContent(v, h, body); c.Event != "build.done" || c.Headers["webhook-id"] != "msg_1" || c.Body != string(body) {
		t.Fatalf("content: %+v", c)
	}
	other, _ := NewSecret()
	for what, tc := range map[string]struct {
		secret string
		body   string
		at     time.Time
		want   string
	}{
		"other secret": {other, string(body), now, "no v1 signature in webhook-signature matches"},
		"other body":   {secret, `{"type":"x"}`, now, "no v1 signature in webhook-signature matches"},
		"too old":      {secret, string(body), now.Add(Tolerance + time.Second), "webhook-timestamp 1800000000 is 5m1s from the hub's clock (the tolerance is 5m0s)"},
		"too new":      {secret, string(body), now.Add(-Tolerance - time.Second), "webhook-timestamp 1800000000 is -5m1s from the hub's clock (the tolerance is 5m0s)"},
	} {
		if _, err := Verify(tc.secret, h, []byte(tc.body), tc.at); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", what, err, tc.want)
		}
	}
	// several signatures (a key rotation at the sender): any one matching
	h.Set("webhook-signature", "v1,AAAA "+h.Get("webhook-signature"))
	if _, err := Verify(secret, h, body, now); err != nil {
		t.Fatalf("with two signatures: %v", err)
	}
	if _, err := Verify(secret, http.Header{}, body, now); err != ErrUnsigned {
		t.Fatalf("unsigned: %v", err)
	}
}

// webhook.body is the JSON, a form's payload JSON, or the text.
func TestContentValue(t *testing.T) {
	v := Verified{Scheme: SchemeGitHub, Delivery: "d", Event: "push"}
	form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}
	if m, ok := NewContent(v, form, []byte(`payload=%7B%22ref%22%3A%22main%22%7D`)).Value().(map[string]any); !ok || m["ref"] != "main" {
		t.Fatalf("form payload: %v", m)
	}
	if s := NewContent(v, http.Header{}, []byte("plain text")).Value(); s != "plain text" {
		t.Fatalf("text: %v", s)
	}
	bin := NewContent(v, http.Header{"Authorization": {"Bearer x"}}, []byte{0xff, 0xfe})
	if bin.Body != "" || bin.BodyBase64 != "//4=" || bin.Headers["authorization"] != "" {
		t.Fatalf("binary body, credentials: %+v", bin)
	}
	if u, err := URL("wss://hub.example:7447/x?y", "ab"); err != nil || u != "https://hub.example:7447/hook/ab" {
		t.Fatalf("URL: %s %v", u, err)
	}
	if err := CheckSecret("whsec_" + strings.Repeat("A", 8)); err == nil {
		t.Fatal("a 6-byte secret passed")
	}
}
