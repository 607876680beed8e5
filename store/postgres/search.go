package postgres

import (
	"strconv"
	"strings"

	"github.com/ainb/hive/store"
)

// searchSchema is the message index: each message's current text and its
// tsvector under the 'simple' configuration (no stemming, no stop words, so
// any language), built from store.Tokenize's tokens so both logs index the
// same words; a GIN index answers the match.
var searchSchema = []string{
	`CREATE TABLE IF NOT EXISTS search (
		seq  BIGINT PRIMARY KEY,
		text TEXT NOT NULL,
		tsv  tsvector NOT NULL
	)`,
	`CREATE INDEX IF NOT EXISTS search_tsv ON search USING GIN (tsv)`,
	`CREATE TABLE IF NOT EXISTS search_state (k TEXT PRIMARY KEY, v BIGINT NOT NULL)`,
}

// Search matches the tsvector through the GIN index; a match's text is
// the index's copy of its current text.
func (d *db) Search(q *store.SearchQuery) store.SearchSQL {
	return store.SearchSQL{
		From:      "search s JOIN events e ON e.seq = s.seq",
		Match:     "s.tsv @@ to_tsquery('simple', ?)",
		MatchArgs: store.Args{tsquery(q)},
		Newest:    "s.seq DESC",
		Text:      "s.text",
	}
}

// TermSample reads the newest n rows whose tsvector holds the term.
func (d *db) TermSample(t store.Term, n int) (string, store.Args) {
	return "SELECT COUNT(*), COALESCE(MIN(seq), 0) FROM (SELECT seq FROM search WHERE tsv @@ to_tsquery('simple', ?) ORDER BY seq DESC LIMIT " +
		strconv.Itoa(n) + ") x", store.Args{lexemes(t)}
}

// tsquery renders the query in to_tsquery's syntax: phrases with <->, a
// prefix with :*, every term with &, negated ones with !.
func tsquery(q *store.SearchQuery) string {
	var parts []string
	for _, t := range q.Terms {
		parts = append(parts, lexemes(t))
	}
	for _, t := range q.Not {
		parts = append(parts, "!"+lexemes(t))
	}
	return strings.Join(parts, " & ")
}

func lexemes(t store.Term) string {
	ls := make([]string, len(t.Tokens))
	for i, tok := range t.Tokens {
		ls[i] = "'" + tok + "'" // letters and digits only
	}
	if t.Prefix {
		ls[len(ls)-1] += ":*"
	}
	return "(" + strings.Join(ls, " <-> ") + ")"
}

// IndexText sets each message's text and tsvector, all in one statement,
// held to go with the transaction's next round trip (nothing waits for its
// answer: a failure aborts the transaction, and the commit reports it).
func (d *db) IndexText(tx store.WriteTx, texts []store.IndexedText) error {
	seqs, text, toks := make([]int64, len(texts)), make([]string, len(texts)), make([]string, len(texts))
	for i, t := range texts {
		seqs[i] = t.Seq
		text[i] = strings.ReplaceAll(t.Text, "\x00", "") // text cannot hold a NUL; JSON content can
		toks[i] = strings.Join(store.Tokenize(text[i]), " ")
	}
	const q = `INSERT INTO search (seq, text, tsv)
		SELECT x.seq, x.text, to_tsvector('simple', x.toks) FROM unnest(?::bigint[], ?::text[], ?::text[]) AS x(seq, text, toks)
		ON CONFLICT (seq) DO UPDATE SET text = EXCLUDED.text, tsv = EXCLUDED.tsv`
	if t, ok := tx.(*Tx); ok {
		t.hold(q, seqs, text, toks)
		return nil
	}
	_, err := tx.Exec(q, seqs, text, toks)
	return err
}

// UnindexText deletes the messages' rows.
func (d *db) UnindexText(tx store.WriteTx, seqs []int64) error {
	_, err := tx.Exec(`DELETE FROM search WHERE seq = ANY(?)`, seqs)
	return err
}
