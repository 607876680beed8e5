package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The schemes a delivery is signed in.
const (
	SchemeStandard = "standard" // Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature
	SchemeGitHub   = "github"   // X-Hub-Signature-256, X-GitHub-Delivery, X-GitHub-Event
)

// Tolerance is how far a Standard Webhooks timestamp may be from the hub's
// clock, either way: older is a replay, newer a clock the hub does not
// trust.
const Tolerance = 5 * time.Minute

// MaxDeliveryID bounds a delivery id, as the sender gives it.
const MaxDeliveryID = 200

// Verified is what a verified request says of itself.
type Verified struct {
	Scheme   string
	Delivery string // the sender's delivery id
	Event    string // GitHub's X-GitHub-Event, or a Standard Webhooks body's "type"
}

// ErrUnsigned is a request that carries neither scheme's signature header.
var ErrUnsigned = errors.New("neither a webhook-signature nor an X-Hub-Signature-256 header")

// Verify checks a request's signature over its raw body with secret:
// Standard Webhooks when it has a webhook-signature header, else GitHub's
// X-Hub-Signature-256. The error says why not (for the hub's log: the
// sender only ever hears "not accepted").
func Verify(secret string, h http.Header, body []byte, now time.Time) (Verified, error) {
	if h.Get("webhook-signature") != "" {
		return verifyStandard(secret, h, body, now)
	}
	if h.Get("X-Hub-Signature-256") != "" {
		return verifyGitHub(secret, h, body)
	}
	return Verified{}, ErrUnsigned
}

func verifyStandard(secret string, h http.Header, body []byte, now time.Time) (Verified, error) {
	key, err := standardKey(secret)
	if err != nil {
		return Verified{}, err
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	if id == "" || ts == "" {
		return Verified{}, errors.New("a Standard Webhooks request needs webhook-id and webhook-timestamp")
	}
	if err := checkID(id); err != nil {
		return Verified{}, err
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return Verified{}, fmt.Errorf("webhook-timestamp %q is not unix seconds", ts)
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return Verified{}, fmt.Errorf("webhook-timestamp %s is %s from the hub's clock (the tolerance is %s)", ts, d.Round(time.Second), Tolerance)
	}
	want := standardMAC(key, id, ts, body)
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		v, b64, ok := strings.Cut(sig, ",")
		if !ok || v != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return Verified{Scheme: SchemeStandard, Delivery: id}, nil
		}
	}
	return Verified{}, errors.New("no v1 signature in webhook-signature matches")
}

// standardMAC is HMAC-SHA256 of "id.timestamp.body" under key.
func standardMAC(key []byte, id, ts string, body []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	return m.Sum(nil)
}

func verifyGitHub(secret string, h http.Header, body []byte) (Verified, error) {
	hexSig, ok := strings.CutPrefix(h.Get("X-Hub-Signature-256"), "sha256=")
	got, err := hex.DecodeString(hexSig)
	if !ok || err != nil {
		return Verified{}, errors.New("X-Hub-Signature-256 is not sha256=<hex>")
	}
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return Verified{}, errors.New("X-Hub-Signature-256 does not match")
	}
	v := Verified{Scheme: SchemeGitHub, Delivery: h.Get("X-GitHub-Delivery"), Event: h.Get("X-GitHub-Event")}
	if v.Delivery == "" {
		// no delivery id: the body itself names the delivery
		sum := sha256.Sum256(body)
		v.Delivery = "sha256:" + hex.EncodeToString(sum[:])
	}
	return v, checkID(v.Delivery)
}

// checkID refuses a delivery id too long or with characters outside
// printable ASCII.
func checkID(id string) error {
	if len(id) > MaxDeliveryID {
		return fmt.Errorf("the delivery id is %d bytes (at most %d)", len(id), MaxDeliveryID)
	}
	for _, c := range id {
		if c <= ' ' || c > '~' {
			return fmt.Errorf("the delivery id %q has a character outside printable ASCII", id)
		}
	}
	return nil
}

// SignStandard signs body for secret in the Standard Webhooks scheme: the
// three headers a sender sets.
func SignStandard(secret, id string, at time.Time, body []byte) (http.Header, error) {
	key, err := standardKey(secret)
	if err != nil {
		return nil, err
	}
	ts := strconv.FormatInt(at.Unix(), 10)
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", ts)
	h.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(standardMAC(key, id, ts, body)))
	return h, nil
}

// SignGitHub is GitHub's X-Hub-Signature-256 value of body for secret.
func SignGitHub(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}
