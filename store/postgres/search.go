package postgres

import (
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

// Search matches the tsvector and ranks by ts_rank_cd, ts_rank's cover
// density variant: terms close together rank above terms far apart.
func (d *db) Search(q *store.SearchQuery) store.SearchSQL {
	tq := tsquery(q)
	return store.SearchSQL{
		From:      "search s JOIN events e ON e.seq = s.seq",
		Match:     "s.tsv @@ to_tsquery('simple', ?)",
		MatchArgs: store.Args{tq},
		Seq:       "s.seq",
		Newest:    "s.seq DESC",
		Score:     "-ts_rank_cd(s.tsv, to_tsquery('simple', ?))",
		ScoreArgs: store.Args{tq},
		Excerpt:   "ts_headline('simple', s.text, to_tsquery('simple', ?), 'StartSel=[, StopSel=], MaxWords=24, MinWords=8, MaxFragments=1, FragmentDelimiter=…')",
		ExcArgs:   store.Args{tq},
	}
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

// IndexText sets each message's text and tsvector.
func (d *db) IndexText(tx store.WriteTx, texts []store.IndexedText) error {
	for _, t := range texts {
		text := strings.ReplaceAll(t.Text, "\x00", "") // text cannot hold a NUL; JSON content can
		if _, err := tx.Exec(`INSERT INTO search (seq, text, tsv) VALUES (?, ?, to_tsvector('simple', ?))
		ON CONFLICT (seq) DO UPDATE SET text = EXCLUDED.text, tsv = EXCLUDED.tsv`,
			t.Seq, text, strings.Join(store.Tokenize(text), " ")); err != nil {
			return err
		}
	}
	return nil
}

// UnindexText deletes the messages' rows.
func (d *db) UnindexText(tx store.WriteTx, seqs []int64) error {
	_, err := tx.Exec(`DELETE FROM search WHERE seq = ANY(?)`, seqs)
	return err
}
