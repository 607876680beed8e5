package store

import (
	"strings"
	"unicode/utf8"
)

// Excerpt is text around its first match of q, at most about words words,
// each matching word marked [like this], "…" where text was cut. It marks
// the tokens of the query's terms wherever they occur (a prefix term's last
// token as a prefix), as a client does with a search result it was sent.
func (q *SearchQuery) Excerpt(text string, words int) string {
	type span struct{ start, end int }
	var toks []span
	start := -1
	for i, r := range text + " " {
		if i < len(text) && isTokenRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			toks = append(toks, span{start, i})
			start = -1
		}
	}
	first := -1
	marked := make([]bool, len(toks))
	for i, s := range toks {
		if q.marks(strings.ToLower(text[s.start:s.end])) {
			marked[i] = true
			if first < 0 {
				first = i
			}
		}
	}
	from, to := 0, len(toks)
	if len(toks) > words {
		from = max(0, first-words/3)
		to = min(len(toks), from+words)
	}
	var b strings.Builder
	if from > 0 {
		b.WriteString("…")
	}
	pos := 0
	if from > 0 {
		pos = toks[from].start
	}
	for i := from; i < to; i++ {
		s := toks[i]
		b.WriteString(text[pos:s.start])
		if marked[i] {
			b.WriteString("[" + text[s.start:s.end] + "]")
		} else {
			b.WriteString(text[s.start:s.end])
		}
		pos = s.end
	}
	if to < len(toks) {
		b.WriteString("…")
	} else {
		b.WriteString(text[pos:])
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// marks reports whether a lower-cased token is one of the terms' tokens.
func (q *SearchQuery) marks(tok string) bool {
	for _, t := range q.Terms {
		for j, w := range t.Tokens {
			if tok == w || (t.Prefix && j == len(t.Tokens)-1 && strings.HasPrefix(tok, w) && utf8.ValidString(tok)) {
				return true
			}
		}
	}
	return false
}
