package pairing

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
)

func TestBundleRoundTrip(t *testing.T) {
	owner, _ := identity.GenerateKeys()
	dev, _ := identity.GenerateKeys()
	now := time.Unix(1_800_000_000, 0)
	b, err := NewBundle(owner, dev.PublicHex, []string{"wss://hub.example/"}, "sha256/abc=", DefaultDeviceExpiry, now)
	if err != nil {
		t.Fatal(err)
	}
	s, _ := b.Encode()
	got, a, err := ParseBundle(s, dev.PublicHex, now)
	if err != nil {
		t.Fatal(err)
	}
	if exp, _ := a.Conditions.Expiry(); exp != now.Add(90*24*time.Hour).Unix() || got.Pin != "sha256/abc=" || got.Owner != owner.PublicHex {
		t.Fatalf("bundle %+v expiry %d", got, exp)
	}
	other, _ := identity.GenerateKeys()
	for name, c := range map[string]struct {
		payload, dev string
		at           time.Time
		want         string
	}{
		"another device":   {s, other.PublicHex, now, "not this device"},
		"expired":          {s, dev.PublicHex, now.Add(91 * 24 * time.Hour), "not valid now"},
		"not hive":         {strings.Replace(s, `"app":"hive"`, `"app":"com.example"`, 1), dev.PublicHex, now, "app"},
		"owner swapped":    {strings.Replace(s, `"owner":"`+owner.PublicHex, `"owner":"`+other.PublicHex, 1), dev.PublicHex, now, "names owner"},
		"not json":         {"nsec1xyz", dev.PublicHex, now, "invalid"},
		"http hub":         {strings.Replace(s, "wss://hub.example/", "https://hub.example/", 1), dev.PublicHex, now, "ws:// or wss://"},
		"forged signature": {strings.Replace(s, b.Auth[3][:8], "00000000", 1), dev.PublicHex, now, "signature"},
	} {
		_, _, err := ParseBundle(c.payload, c.dev, c.at)
		if !errors.Is(err, ErrBundle) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
	if _, err := NewBundle(owner, "", nil, "", time.Hour, now); err == nil || !strings.Contains(err.Error(), "--transfer-key") {
		t.Fatalf("no device key: %v", err)
	}
}
