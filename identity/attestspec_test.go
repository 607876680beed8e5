package identity

import (
	"errors"
	"testing"
	"time"
)

func TestAttestSpecConditions(t *testing.T) {
	now := int64(1_700_000_000)
	at := func(v int64) *int64 { return &v }
	for _, tc := range []struct {
		name string
		spec AttestSpec
		want string // conditions, or "" for an error
	}{
		{"expiry from now", AttestSpec{Now: now, ValidFor: time.Hour, NotBefore: at(now)}, "created_at>1699999999&created_at<1700003600"},
		{"no expiry", AttestSpec{Now: now, NoExpiry: true}, ""},
		{"kind and expiry", AttestSpec{Now: now, ValidFor: time.Minute, Kinds: []int{9}}, "kind=9&created_at<1700000060"},
		{"missing expiry", AttestSpec{Now: now}, ""},
		{"both", AttestSpec{Now: now, ValidFor: time.Hour, NoExpiry: true}, ""},
		{"negative", AttestSpec{Now: now, ValidFor: -time.Hour}, ""},
		{"never holds", AttestSpec{Now: now, ValidFor: time.Hour, NotBefore: at(now + 7200)}, ""},
		{"zero not-before", AttestSpec{Now: now, ValidFor: time.Hour, NotBefore: at(0)}, ""},
	} {
		c, err := tc.spec.Conditions()
		switch {
		case tc.name == "no expiry":
			if err != nil || !c.IsEmpty() {
				t.Errorf("%s: %q %v", tc.name, c.String(), err)
			}
		case tc.want == "":
			if !errors.Is(err, ErrBadConditions) {
				t.Errorf("%s: %q %v, want ErrBadConditions", tc.name, c.String(), err)
			}
		case err != nil || c.String() != tc.want:
			t.Errorf("%s: %q %v, want %q", tc.name, c.String(), err, tc.want)
		}
	}
}
