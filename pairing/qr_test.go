package pairing

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestQRPNGRoundTrip(t *testing.T) {
	_, u, err := NewSource([]string{"wss://hub.example.org:7447/pair"}, "sha256/n3Vh+Wc/0vZ1Kk9y2R8M2fS6j4fVxWlq4oKk8q3m1aA=", Options{})
	if err != nil {
		t.Fatal(err)
	}
	png, err := QRPNG(u.String(), 512)
	if err != nil {
		t.Fatal(err)
	}
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
