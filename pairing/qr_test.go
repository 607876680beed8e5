package pairing

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// newQR makes a fresh pairing URI for relay and its QR code as a PNG.
func newQR(t *testing.T, relay string) (*URI, []byte) {
	t.Helper()
	_, u, err := NewSource([]string{relay}, "sha256/n3Vh+Wc/0vZ1Kk9y2R8M2fS6j4fVxWlq4oKk8q3m1aA=", Options{})
	if err != nil {
		t.Fatal(err)
	}
	png, err := QRPNG(u.String(), 8)
	if err != nil {
		t.Fatal(err)
	}
	return u, png
}

func TestQRPNGRoundTrip(t *testing.T) {
	u, png := newQR(t, "wss://hub.example.org:7447/pair")
	got, err := DecodeQR(bytes.NewReader(png))
	if err != nil {
		t.Fatal(err)
	}
	if got != u.String() {
		t.Fatalf("decoded %q, want %q", got, u.String())
	}
	back, err := ParseURI(got)
	if err != nil || back.Secret != u.Secret || back.Pin != u.Pin {
		t.Fatalf("parse after decode: %+v %v", back, err)
	}
	term, err := QRTerminal(u.String())
	if err != nil || !strings.Contains(term, "█") {
		t.Fatalf("terminal QR: %v", err)
	}
	if _, err := DecodeQR(strings.NewReader("not an image")); !errors.Is(err, ErrNoQR) {
		t.Fatalf("garbage: %v", err)
	}
}

// Every generated code decodes: 60 fresh URIs (a single decoding pass
// missed about 2% of them).
func TestQRPNGDecodesEveryCode(t *testing.T) {
	for i := 0; i < 60; i++ {
		u, png := newQR(t, "wss://127.0.0.1:38161/pair")
		if got, err := DecodeQR(bytes.NewReader(png)); err != nil || got != u.String() {
			t.Fatalf("code %d (%s): %q %v", i, u, got, err)
		}
	}
}
