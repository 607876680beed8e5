package store

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
)

// candidate is a match of a search's window, as it is ranked.
type candidate struct {
	seq, at int64
	id      string
	text    string // the message's current text
	score   float64
	far     bool // the terms do not lie close together
}

// Ranking, the same on every log: messages whose terms all lie within
// NearTokens tokens of each other come first, then bm25 (k1 1.2, b 0.75)
// over the tokens of each message's current text, then newest, then id.
// A term's weight (idf) comes from the number of messages holding it; the
// length normalisation uses the mean length of the window's matches.
// NearTokens is how many tokens may lie between the terms of a close match.
const NearTokens = 4

const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rank scores cands and sorts them best first.
func (c *Core) rank(ctx context.Context, q *SearchQuery, cands []candidate) error {
	idf, err := c.idfs(ctx, q)
	if err != nil {
		return err
	}
	scoreAll(q, cands, idf)
	return nil
}

// scoreAll scores cands with the terms' weights idf and sorts them.
func scoreAll(q *SearchQuery, cands []candidate, idf []float64) {
	toks := make([][]string, len(cands))
	total := 0
	for i := range cands {
		toks[i] = Tokenize(cands[i].text)
		total += len(toks[i])
	}
	avg := max(float64(total)/float64(len(cands)), 1)
	for i := range cands {
		tf, close := q.occurrences(toks[i])
		norm := bm25K1 * (1 - bm25B + bm25B*float64(len(toks[i]))/avg)
		for j, f := range tf {
			cands[i].score += idf[j] * f * (bm25K1 + 1) / (f + norm)
		}
		cands[i].far = len(q.Terms) > 1 && !close
	}
	slices.SortFunc(cands, func(a, b candidate) int {
		switch {
		case a.far != b.far:
			if a.far {
				return 1
			}
			return -1
		case a.score != b.score:
			return cmp.Compare(b.score, a.score)
		case a.at != b.at:
			return cmp.Compare(b.at, a.at)
		}
		return strings.Compare(a.id, b.id)
	})
}

// occurrences counts each term's occurrences in toks, and reports whether
// one occurrence of every term fits within NearTokens tokens of the others
// (tokens between the end of the first and the start of the last).
func (q *SearchQuery) occurrences(toks []string) (tf []float64, close bool) {
	type at struct{ start, end, term int }
	var found []at
	tf = make([]float64, len(q.Terms))
	for p := range toks {
		for j, t := range q.Terms {
			if t.at(toks, p) {
				tf[j]++
				found = append(found, at{p, p + len(t.Tokens) - 1, j})
			}
		}
	}
	if len(q.Terms) < 2 {
		return tf, true
	}
	// The shortest runs of occurrences holding every term, by a sliding window.
	have := make([]int, len(q.Terms))
	missing := len(q.Terms)
	left := 0
	for _, r := range found {
		if have[r.term]++; have[r.term] == 1 {
			missing--
		}
		for missing == 0 {
			l := found[left]
			if r.start-l.end-1 <= NearTokens {
				return tf, true
			}
			if have[l.term]--; have[l.term] == 0 {
				missing++
			}
			left++
		}
	}
	return tf, false
}

// at reports whether the term occurs in toks at position p.
func (t Term) at(toks []string, p int) bool {
	if p+len(t.Tokens) > len(toks) {
		return false
	}
	for i, w := range t.Tokens {
		switch tok := toks[p+i]; {
		case tok == w:
		case t.Prefix && i == len(t.Tokens)-1 && strings.HasPrefix(tok, w):
		default:
			return false
		}
	}
	return true
}

// idfs is each term's bm25 weight, ln(1 + (N - n + 0.5) / (n + 0.5)),
// with N the log's size (its highest sequence number) and n the messages
// holding the term: counted when fewer than termSample do, else estimated
// from how densely its newest termSample matches lie (a count reads the
// term's whole posting list, for a common word more than the rest of the
// search; the estimate reads termSample entries of it whatever the word).
func (c *Core) idfs(ctx context.Context, q *SearchQuery) ([]float64, error) {
	var top int64
	if err := c.db.ReadRow(ctx, `SELECT COALESCE(MAX(seq), 0) FROM events`).Scan(&top); err != nil {
		return nil, fmt.Errorf("error: search: %w", err)
	}
	out := make([]float64, len(q.Terms))
	for i, t := range q.Terms {
		var n, oldest int64
		query, args := c.db.TermSample(t, termSample)
		if err := c.db.ReadRow(ctx, query, args...).Scan(&n, &oldest); err != nil {
			return nil, fmt.Errorf("error: search: %w", err)
		}
		if n >= termSample && oldest > 0 && top > oldest {
			n = max(n, n*top/(top-oldest+1))
		}
		N := float64(max(top, n))
		out[i] = math.Log(1 + (N-float64(n)+0.5)/(float64(n)+0.5))
	}
	return out, nil
}

// termSample is how many of a term's newest matches its weight is judged by.
const termSample = 1000
