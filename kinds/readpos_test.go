package kinds

import (
	"encoding/json"
	"os"
	"testing"
)

// The read-position cases Go and JS share (spec/fixtures/readstate).
func TestReadPositionFixtures(t *testing.T) {
	var fx struct {
		Parse []struct {
			Content  string
			Position *ReadPosition
		}
		Merge []struct{ A, B, Merged ReadPosition }
		Above []struct {
			From, To ReadPosition
			Above    bool
		}
	}
	b, err := os.ReadFile("../spec/fixtures/readstate/positions.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	for _, c := range fx.Parse {
		got, err := ParseReadPosition(c.Content)
		switch {
		case c.Position == nil && err == nil:
			t.Errorf("%.80q reads as %v, want refused", c.Content, got)
		case c.Position != nil && err != nil:
			t.Errorf("%.80q: %v", c.Content, err)
		case c.Position != nil && !got.Equal(*c.Position):
			t.Errorf("%.80q reads as %v, want %v", c.Content, got, *c.Position)
		case c.Position != nil && got.String() != c.Position.String():
			t.Errorf("%.80q writes back as %q", c.Content, got.String())
		}
	}
	for _, c := range fx.Merge {
		if got := c.A.Merge(c.B); !got.Equal(c.Merged) {
			t.Errorf("%v merged with %v is %v, want %v", c.A, c.B, got, c.Merged)
		}
		if got := c.B.Merge(c.A); !got.Equal(c.Merged) {
			t.Errorf("%v merged with %v is %v, want %v", c.B, c.A, got, c.Merged)
		}
	}
	for _, c := range fx.Above {
		if got := c.To.Above(c.From); got != c.Above {
			t.Errorf("%v above %v: %v, want %v", c.To, c.From, got, c.Above)
		}
	}
}
