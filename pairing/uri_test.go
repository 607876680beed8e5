package pairing

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// goodPK and goodSecret are the vectors' (set with them).
var goodPK, goodSecret string

const goodRelay = "wss%3A%2F%2Frelay%2Eexample%2Ecom"

func goodURI() string {
	return Scheme + goodPK + "?secret=" + goodSecret + "&relay=" + goodRelay + "&v=1"
}

func TestURIEncodeMatchesV1Encoder(t *testing.T) {
	u := &URI{SourcePub: h32(t, goodPK), Secret: h32(t, goodSecret), Relays: []string{"wss://relay.example.com"}}
	if got := u.String(); got != goodURI() {
		t.Fatalf("encoded\n %s\nwant\n %s", got, goodURI())
	}
}

func TestURIRoundTrip(t *testing.T) {
	u := &URI{SourcePub: h32(t, goodPK), Secret: h32(t, goodSecret),
		Relays: []string{"wss://hub.example:7447/pair", "ws://127.0.0.1:1234/pair?x=1&y=2"},
		Pin:    "sha256/n3Vh+Wc/0vZ1Kk9y2R8M2fS6j4fVxWlq4oKk8q3m1aA="}
	got, err := ParseURI(u.String())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, u) {
		t.Fatalf("round trip: got %+v, want %+v", got, u)
	}
}

func TestParseURIAccepts(t *testing.T) {
	for name, s := range map[string]string{
		"v1 encoder":          goodURI(),
		"no version":          Scheme + goodPK + "?secret=" + goodSecret + "&relay=" + goodRelay,
		"unknown params":      goodURI() + "&name=laptop&x=%ZZ",
		"param without =":     goodURI() + "&flag",
		"unescaped relay":     Scheme + goodPK + "?secret=" + goodSecret + "&relay=ws://127.0.0.1:9/pair",
		"lowercase escapes":   Scheme + goodPK + "?secret=" + goodSecret + "&relay=wss%3a%2f%2frelay%2eexample%2ecom",
		"several relays":      goodURI() + "&relay=ws%3A%2F%2Fa%3A1",
		"params in any order": Scheme + goodPK + "?v=1&relay=" + goodRelay + "&secret=" + goodSecret,
	} {
		if _, err := ParseURI(s); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestParseURIRefuses(t *testing.T) {
	upper := strings.ToUpper(goodSecret)
	for name, c := range map[string]struct {
		uri  string
		want string
	}{
		"too long":         {goodURI() + "&pad=" + strings.Repeat("a", MaxURILength), "limit is 2048"},
		"wrong scheme":     {"nostrconnect://" + goodPK + "?secret=" + goodSecret + "&relay=" + goodRelay, "must start with"},
		"no query":         {Scheme + goodPK, "missing \"?\""},
		"uppercase pubkey": {Scheme + strings.ToUpper(goodPK) + "?secret=" + goodSecret + "&relay=" + goodRelay, "64 lowercase hex"},
		"short pubkey":     {Scheme + goodPK[:62] + "?secret=" + goodSecret + "&relay=" + goodRelay, "64 lowercase hex"},
		"off-curve pubkey": {Scheme + strings.Repeat("f", 64) + "?secret=" + goodSecret + "&relay=" + goodRelay, "not an x-coordinate"},
		"uppercase secret": {Scheme + goodPK + "?secret=" + upper + "&relay=" + goodRelay, "secret must be"},
		"zero secret":      {Scheme + goodPK + "?secret=" + strings.Repeat("0", 64) + "&relay=" + goodRelay, "all-zero"},
		"no secret":        {Scheme + goodPK + "?relay=" + goodRelay, "no secret"},
		"two secrets":      {goodURI() + "&secret=" + goodSecret, "given twice"},
		"no relay":         {Scheme + goodPK + "?secret=" + goodSecret + "&v=1", "no relay"},
		"http relay":       {Scheme + goodPK + "?secret=" + goodSecret + "&relay=https%3A%2F%2Fa", "ws:// or wss://"},
		"relay no host":    {Scheme + goodPK + "?secret=" + goodSecret + "&relay=wss%3A%2F%2F%2Fpath", "no host"},
		"bad escape":       {Scheme + goodPK + "?secret=" + goodSecret + "&relay=wss%3", "percent-encoding"},
		"version 2":        {Scheme + goodPK + "?secret=" + goodSecret + "&relay=" + goodRelay + "&v=2", "version 2"},
		"version text":     {goodURI() + "x", "not a version"},
		"bad pin":          {goodURI() + "&pin=md5%2Fabc", "pin must be"},
	} {
		_, err := ParseURI(c.uri)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, c.want)
			continue
		}
		if !errors.Is(err, ErrBadURI) && !errors.Is(err, ErrVersion) {
			t.Errorf("%s: %v wraps neither ErrBadURI nor ErrVersion", name, err)
		}
	}
}

// FuzzParseURI: the decoder never panics, and whatever it accepts encodes
// to a URI that decodes to the same value within the length cap's slack.
func FuzzParseURI(f *testing.F) {
	f.Add(goodURI())
	f.Add(goodURI() + "&pin=sha256%2FAAAA&relay=ws%3A%2F%2F127%2E0%2E0%2E1%3A1%2Fpair")
	f.Add(Scheme + goodPK + "?secret=" + goodSecret + "&relay=ws://[::1]:9/p&&=&v=01")
	f.Add(Scheme + "?")
	f.Fuzz(func(t *testing.T, s string) {
		u, err := ParseURI(s)
		if err != nil {
			return
		}
		if len(u.Relays) == 0 || u.Secret == ([32]byte{}) {
			t.Fatalf("accepted %q without relay or with a zero secret", s)
		}
		again, err := ParseURI(u.String())
		if err != nil {
			if len(u.String()) > MaxURILength {
				return // escaping can lengthen an accepted URI
			}
			t.Fatalf("re-encoding of %q does not parse: %v", s, err)
		}
		if !reflect.DeepEqual(u, again) {
			t.Fatalf("round trip of %q: %+v != %+v", s, u, again)
		}
	})
}
