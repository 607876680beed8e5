package store

import "testing"

func TestExcerptMarksTheMatches(t *testing.T) {
	q, err := ParseSearch(`canary roll* -"old text"`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		text  string
		words int
		want  string
	}{
		{"The Canary rollout, then rolling restarts.", 20, "The [Canary] [rollout], then [rolling] restarts."},
		{"The Canary rollout, then rolling restarts.", 5, "The [Canary] [rollout], then [rolling]…"},
		{"one two three four five six seven eight canary nine ten eleven twelve", 5, "…eight [canary] nine ten eleven…"},
		{"old text only", 5, "old text only"},
	} {
		if got := q.Excerpt(c.text, c.words); got != c.want {
			t.Errorf("Excerpt(%q, %d) = %q, want %q", c.text, c.words, got, c.want)
		}
	}
}
