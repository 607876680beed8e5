package identity

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParseConditionsValid(t *testing.T) {
	cases := []struct {
		in        string
		canonical string
		kinds     []int
		expiry    int64
		hasExpiry bool
		nb        int64
		hasNB     bool
	}{
		{in: "", canonical: ""},
		{in: "kind=0", canonical: "kind=0", kinds: []int{0}},
		{in: "kind=65535", canonical: "kind=65535", kinds: []int{65535}},
		{in: "created_at<0", canonical: "created_at<0", hasExpiry: true},
		{in: "created_at<4294967295", canonical: "created_at<4294967295", expiry: 4294967295, hasExpiry: true},
		{in: "kind=1&created_at<1713957000", canonical: "kind=1&created_at<1713957000", kinds: []int{1}, expiry: 1713957000, hasExpiry: true},
		{in: "created_at<20&created_at>10&kind=9", canonical: "kind=9&created_at>10&created_at<20",
			kinds: []int{9}, expiry: 20, hasExpiry: true, nb: 10, hasNB: true},
		{in: "created_at<20&created_at<15", canonical: "created_at<15", expiry: 15, hasExpiry: true},
		{in: "created_at>5&created_at>7", canonical: "created_at>7", nb: 7, hasNB: true},
		{in: "kind=7&kind=1&kind=7", canonical: "kind=1&kind=7", kinds: []int{1, 7}},
	}
	for _, tc := range cases {
		c, err := ParseConditions(tc.in)
		if err != nil {
			t.Fatalf("ParseConditions(%q): %v", tc.in, err)
		}
		if got := c.String(); got != tc.canonical {
			t.Errorf("ParseConditions(%q).String() = %q, want %q", tc.in, got, tc.canonical)
		}
		if !slices.Equal(c.Kinds(), tc.kinds) && !(len(c.Kinds()) == 0 && len(tc.kinds) == 0) {
			t.Errorf("%q: kinds %v, want %v", tc.in, c.Kinds(), tc.kinds)
		}
		if e, ok := c.Expiry(); ok != tc.hasExpiry || e != tc.expiry {
			t.Errorf("%q: Expiry() = %d,%v want %d,%v", tc.in, e, ok, tc.expiry, tc.hasExpiry)
		}
		if nb, ok := c.NotBefore(); ok != tc.hasNB || nb != tc.nb {
			t.Errorf("%q: NotBefore() = %d,%v want %d,%v", tc.in, nb, ok, tc.nb, tc.hasNB)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%q: Validate: %v", tc.in, err)
		}
	}
}

func TestParseConditionsInvalid(t *testing.T) {
	cases := map[string]string{
		"kind=01":                            "leading zero",
		"created_at<00":                      "leading zero",
		"kind=1&":                            "empty clause",
		"&kind=1":                            "empty clause",
		"kind=1&&kind=2":                     "empty clause",
		"&":                                  "empty clause",
		"kind=":                              "missing number",
		"kind=-1":                            "decimal digits",
		"kind=+1":                            "decimal digits",
		"kind=1 ":                            "decimal digits",
		" kind=1":                            "unknown clause",
		"kind= 1":                            "decimal digits",
		"kind=0x10":                          "decimal digits",
		"kind=65536":                         "out of range",
		"created_at<4294967296":              "out of range",
		"created_at>99999999999999999999999": "out of range",
		"KIND=1":                             "unknown clause",
		"kind==1":                            "decimal digits",
		"created_at=5":                       "unknown clause",
		"created_at<=5":                      "decimal digits",
		"expires=5":                          "unknown clause",
		"kind=1;created_at<5":                "decimal digits",
		"kind=١":                             "decimal digits",
		"kind=1\n":                           "decimal digits",
	}
	for in, want := range cases {
		_, err := ParseConditions(in)
		if err == nil {
			t.Errorf("ParseConditions(%q) succeeded, want error containing %q", in, want)
			continue
		}
		if !errors.Is(err, ErrBadConditions) {
			t.Errorf("ParseConditions(%q) error %v does not wrap ErrBadConditions", in, err)
		}
		var ce *ConditionsError
		if !errors.As(err, &ce) {
			t.Errorf("ParseConditions(%q) error is %T, want *ConditionsError", in, err)
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("ParseConditions(%q) error %q does not mention %q", in, err, want)
		}
	}
}

func TestConditionsAllows(t *testing.T) {
	c, err := ParseConditions("kind=9&created_at>100&created_at<200")
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		kind int
		at   int64
		want error
	}{
		{9, 150, nil},
		{9, 101, nil},
		{9, 199, nil},
		{9, 100, ErrNotYetValid}, // strict
		{9, 50, ErrNotYetValid},
		{9, 200, ErrExpired}, // strict
		{9, 500, ErrExpired},
		{7, 150, ErrWrongKind},
	}
	for _, tc := range cases {
		err := c.Check(tc.kind, tc.at)
		if tc.want == nil {
			if err != nil || !c.Allows(tc.kind, tc.at) {
				t.Errorf("Check(%d,%d) = %v, want allowed", tc.kind, tc.at, err)
			}
			continue
		}
		if !errors.Is(err, tc.want) || !errors.Is(err, ErrConditionsNotMet) || c.Allows(tc.kind, tc.at) {
			t.Errorf("Check(%d,%d) = %v, want %v", tc.kind, tc.at, err, tc.want)
		}
	}
	// AllowsTime ignores kind= clauses.
	if !c.AllowsTime(150) || c.AllowsTime(200) || c.AllowsTime(100) {
		t.Error("AllowsTime wrong")
	}
	// Empty conditions allow everything.
	var empty Conditions
	if !empty.Allows(12345, 0) || !empty.IsEmpty() || !empty.Satisfiable() || empty.String() != "" {
		t.Error("zero Conditions must allow everything and render as \"\"")
	}
}

func TestConditionsTwoKindsUnsatisfiable(t *testing.T) {
	c, err := ParseConditions("kind=1&kind=7")
	if err != nil {
		t.Fatal(err)
	}
	if c.Satisfiable() {
		t.Error("kind=1&kind=7 reported satisfiable")
	}
	for _, k := range []int{1, 7, 0} {
		if c.Allows(k, 10) {
			t.Errorf("kind=1&kind=7 allows kind %d", k)
		}
	}
	// Same kind twice is just that kind.
	c2, _ := ParseConditions("kind=1&kind=1")
	if !c2.Satisfiable() || !c2.Allows(1, 10) {
		t.Error("kind=1&kind=1 should allow kind 1")
	}
}

func TestConditionsSatisfiable(t *testing.T) {
	cases := map[string]bool{
		"":                            true,
		"kind=3":                      true,
		"created_at>10&created_at<12": true, // 11
		"created_at>10&created_at<11": false,
		"created_at>10&created_at<10": false,
		"created_at<0":                false,
	}
	for in, want := range cases {
		c, err := ParseConditions(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.Satisfiable(); got != want {
			t.Errorf("%q Satisfiable = %v, want %v", in, got, want)
		}
	}
}

func TestConditionsBuilders(t *testing.T) {
	c := Conditions{}.WithKind(9).WithNotBefore(1000).WithExpiry(2000)
	if got := c.String(); got != "kind=9&created_at>1000&created_at<2000" {
		t.Fatalf("String = %q", got)
	}
	// Builders do not mutate the receiver.
	base := Conditions{}.WithKind(1)
	_ = base.WithKind(2)
	if got := base.String(); got != "kind=1" {
		t.Fatalf("receiver mutated: %q", got)
	}
	// Tighter bound wins.
	c = c.WithExpiry(3000).WithNotBefore(500)
	if got := c.String(); got != "kind=9&created_at>1000&created_at<2000" {
		t.Fatalf("tighter bound lost: %q", got)
	}
	if err := (Conditions{}).WithKind(70000).Validate(); !errors.Is(err, ErrBadConditions) {
		t.Errorf("Validate kind 70000: %v", err)
	}
	if err := (Conditions{}).WithExpiry(-1).Validate(); !errors.Is(err, ErrBadConditions) {
		t.Errorf("Validate expiry -1: %v", err)
	}
	if err := (Conditions{}).WithNotBefore(1 << 33).Validate(); !errors.Is(err, ErrBadConditions) {
		t.Errorf("Validate not-before 2^33: %v", err)
	}
	p, err := ParseConditions(c.String())
	if err != nil || !p.Equal(c) {
		t.Fatalf("round trip: %v %v", p, err)
	}
}

func FuzzParseConditions(f *testing.F) {
	for _, s := range []string{
		"", "kind=1", "kind=0", "kind=01", "kind=1&", "&", "&&",
		"kind=1&created_at<1713957000",
		"created_at>1&created_at<4294967295",
		"created_at<4294967296", "kind=65536", "kind=1&kind=7",
		"created_at<5&created_at<3", "kind=-0", "kind=1 ", "created_at>",
		"kind=18446744073709551616", "created_at<9223372036854775808",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConditions(s)
		if err != nil {
			if !errors.Is(err, ErrBadConditions) {
				t.Fatalf("error %v does not wrap ErrBadConditions", err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("parsed %q but Validate fails: %v", s, err)
		}
		out := c.String()
		c2, err := ParseConditions(out)
		if err != nil {
			t.Fatalf("String() of %q = %q does not parse: %v", s, out, err)
		}
		if !c2.Equal(c) {
			t.Fatalf("round trip changed %q: %q -> %q", s, out, c2.String())
		}
		if c2.String() != out {
			t.Fatalf("String not stable: %q vs %q", out, c2.String())
		}
		// A canonical string parsed and rendered again is unchanged; the
		// input itself need not be canonical (order, duplicates).
		if s == out {
			return
		}
		if len(out) > len(s) {
			t.Fatalf("canonical form %q longer than input %q", out, s)
		}
	})
}
