package store

import (
	"slices"
	"testing"
)

// TestOccurrences: each term's count in a message's tokens, and whether one
// occurrence of every term lies within NearTokens tokens of the others.
func TestOccurrences(t *testing.T) {
	for _, c := range []struct {
		query, text string
		tf          []float64
		close       bool
	}{
		{"canary rollout", "the canary rollout is ready", []float64{1, 1}, true},
		{"canary rollout", "canary one two three four rollout", []float64{1, 1}, true},
		{"canary rollout", "canary one two three four five rollout", []float64{1, 1}, false},
		{"canary rollout", "rollout one two three four five canary x canary rollout", []float64{2, 2}, true},
		{`"rollback plan" deploy`, "deploy a b c d rollback plan", []float64{1, 1}, true},
		{`"rollback plan" deploy`, "rollback plan a b c d e deploy; plan rollback", []float64{1, 1}, false},
		{"roll* canary", "Rolling the canary, rolled back", []float64{2, 1}, true},
		{"canary", "no match here", []float64{0}, true},
		{"leba leba", "leba", []float64{1, 1}, true},
	} {
		q, err := ParseSearch(c.query)
		if err != nil {
			t.Fatal(err)
		}
		tf, close := q.occurrences(Tokenize(c.text))
		if !slices.Equal(tf, c.tf) || close != c.close {
			t.Errorf("%q in %q: counts %v, close %v; want %v, %v", c.query, c.text, tf, close, c.tf, c.close)
		}
	}
}

// TestRankOrder: close terms first, then bm25 (a term twice in a short
// message above once in a long one), then newest.
func TestRankOrder(t *testing.T) {
	q, err := ParseSearch("canary rollout")
	if err != nil {
		t.Fatal(err)
	}
	cands := []candidate{
		{seq: 1, at: 10, id: "far", text: "canary a b c d e f g h rollout"},
		{seq: 2, at: 11, id: "long", text: "canary rollout " + "and many more words in a long message about other things entirely"},
		{seq: 3, at: 12, id: "short", text: "canary rollout canary rollout"},
		{seq: 4, at: 13, id: "same-as-long-newer", text: "canary rollout " + "and many more words in a long message about other things entirely"},
	}
	idf := []float64{1, 1}
	scoreAll(q, cands, idf)
	var got []string
	for _, k := range cands {
		got = append(got, k.id)
	}
	want := []string{"short", "same-as-long-newer", "long", "far"}
	if !slices.Equal(got, want) {
		t.Errorf("ranked %v, want %v", got, want)
	}
}

// TestTokenize: runs of letters and digits, lower-cased, in any script.
func TestTokenize(t *testing.T) {
	got := Tokenize("Ship it: v2.0, ÉTÉ déjà-vu 東京 x")
	want := []string{"ship", "it", "v2", "0", "été", "déjà", "vu", "東京", "x"}
	if !slices.Equal(got, want) {
		t.Errorf("Tokenize = %q, want %q", got, want)
	}
	if got := Tokenize(" ,; "); len(got) != 0 {
		t.Errorf("Tokenize of punctuation = %q, want none", got)
	}
}
