package sqlite

import (
	"strconv"
	"strings"

	"github.com/ainb/hive/store"
)

// nearTokens is how far apart (tokens between) the terms of a query may be
// for a message to rank among the close matches.
const nearTokens = 4

// searchSchema is the FTS5 index of message text: one row per message, its
// rowid the event's sequence number, the tokens those of store.Tokenize
// (unicode61 without diacritic folding).
var searchSchema = []string{
	`CREATE VIRTUAL TABLE IF NOT EXISTS search USING fts5(text, tokenize = 'unicode61 remove_diacritics 0')`,
	`CREATE TABLE IF NOT EXISTS search_state (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`,
}

// Search matches with FTS5 and ranks by bm25, messages whose terms all lie
// close together first (the tier a NEAR query finds). FTS5 reads matches
// in rowid order, so the newest come first without a sort.
func (d *db) Search(q *store.SearchQuery) store.SearchSQL {
	s := store.SearchSQL{
		From:      "search CROSS JOIN events e ON e.seq = search.rowid",
		Match:     "search MATCH ?",
		MatchArgs: store.Args{matchExpr(q)},
		Seq:       "search.rowid",
		Newest:    "search.rowid DESC",
		Score:     "bm25(search)",
		Excerpt:   "snippet(search, 0, '[', ']', '…', 16)",
	}
	if len(q.Terms) > 1 {
		s.Close = "SELECT rowid FROM search WHERE search MATCH ? AND rowid >= ?"
		s.CloseArgs = store.Args{nearExpr(q)}
	}
	return s
}

// matchExpr is the FTS5 query: every term, none of the negated ones.
func matchExpr(q *store.SearchQuery) string {
	pos := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		pos[i] = phrase(t)
	}
	e := "(" + strings.Join(pos, " AND ") + ")"
	for _, t := range q.Not {
		e += " NOT " + phrase(t)
	}
	return e
}

func nearExpr(q *store.SearchQuery) string {
	pos := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		pos[i] = phrase(t)
	}
	return "NEAR(" + strings.Join(pos, " ") + ", " + strconv.Itoa(nearTokens) + ")"
}

// phrase quotes a term's tokens (letters and digits only) as an FTS5 phrase.
func phrase(t store.Term) string {
	p := `"` + strings.Join(t.Tokens, " ") + `"`
	if t.Prefix {
		p += "*"
	}
	return p
}

// textChunk is the most rows one IndexText statement writes.
const textChunk = 64

// IndexText replaces the messages' rows in the index, up to textChunk rows
// per statement: FTS5 writes a new segment for what it holds at every
// statement of the transaction that follows, so fewer statements mean fewer
// segments (store/searchpending.go). The row count is padded to a power of
// two, with NULL rows that the SELECT drops, so that few statement shapes
// exist for the statement cache.
func (d *db) IndexText(tx store.WriteTx, texts []store.IndexedText) error {
	for len(texts) > 0 {
		n := min(len(texts), textChunk)
		rows := 1
		for rows < n {
			rows *= 2
		}
		seqs := make([]any, rows)
		args := make([]any, 0, 2*rows)
		for i := 0; i < rows; i++ {
			if i < n {
				seqs[i] = texts[i].Seq
				args = append(args, texts[i].Seq, texts[i].Text)
			} else {
				seqs[i] = texts[n-1].Seq
				args = append(args, nil, nil)
			}
		}
		if _, err := tx.Exec(`DELETE FROM search WHERE rowid IN (`+placeholders(rows)+`)`, seqs...); err != nil {
			return err
		}
		q := `INSERT INTO search (rowid, text) SELECT column1, column2 FROM (VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?),", rows), ",") + `) WHERE column1 IS NOT NULL`
		if _, err := tx.Exec(q, args...); err != nil {
			return err
		}
		texts = texts[n:]
	}
	return nil
}

// UnindexText deletes the messages' rows from the index.
func (d *db) UnindexText(tx store.WriteTx, seqs []int64) error {
	for _, seq := range seqs {
		if _, err := tx.Exec(`DELETE FROM search WHERE rowid = ?`, seq); err != nil {
			return err
		}
	}
	return nil
}
