package sqlite

import (
	"strconv"
	"strings"

	"github.com/ainb/hive/store"
)

// searchTable is the FTS5 index of message text: one row per message, its
// rowid the event's sequence number, the tokens those of store.Tokenize
// (unicode61 without diacritic folding). It is contentless (content = ”):
// it keeps the tokens and their positions, not a copy of the text, which
// the log already holds (excerpts are made from it, store.Hit); with
// contentless_delete a row can still be replaced or deleted by its rowid.
const searchTable = `CREATE VIRTUAL TABLE IF NOT EXISTS search USING fts5(text, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 0')`

// searchSchema is the search index, the current text of edited messages
// (the one text the log does not hold as an event's content) and the state
// of the index's background build.
var searchSchema = []string{
	searchTable,
	`CREATE TABLE IF NOT EXISTS search_edits (seq INTEGER PRIMARY KEY, text TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS search_state (k TEXT PRIMARY KEY, v INTEGER NOT NULL)`,
}

// Search matches with FTS5, which reads matches in rowid order, so the
// newest come first without a sort; its NEAR finds the close ones. A
// match's text is its edit's, else the event's content.
func (d *db) Search(q *store.SearchQuery) store.SearchSQL {
	s := store.SearchSQL{
		From:      "search CROSS JOIN events e ON e.seq = search.rowid",
		Match:     "search MATCH ?",
		MatchArgs: store.Args{matchExpr(q)},
		Newest:    "search.rowid DESC",
		Text:      "COALESCE((SELECT x.text FROM search_edits x WHERE x.seq = e.seq), e.raw ->> '$.content')",
	}
	if len(q.Terms) > 1 {
		s.Near, s.NearArgs = "search MATCH ?", store.Args{nearExpr(q)}
	}
	return s
}

// nearExpr is matchExpr with the terms within store.NearTokens tokens.
func nearExpr(q *store.SearchQuery) string {
	pos := make([]string, len(q.Terms))
	for i, t := range q.Terms {
		pos[i] = phrase(t)
	}
	e := "NEAR(" + strings.Join(pos, " ") + ", " + strconv.Itoa(store.NearTokens) + ")"
	for _, t := range q.Not {
		e += " NOT " + phrase(t)
	}
	return e
}

// TermSample reads the newest n rows of the term's phrase, newest first
// as FTS5 reads them.
func (d *db) TermSample(t store.Term, n int) (string, store.Args) {
	return "SELECT COUNT(*), COALESCE(MIN(rowid), 0) FROM (SELECT rowid FROM search WHERE search MATCH ? ORDER BY rowid DESC LIMIT " +
		strconv.Itoa(n) + ")", store.Args{phrase(t)}
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

// IndexText sets the messages' rows in the index (a row already there is
// replaced), up to textChunk rows per statement: FTS5 writes a new segment
// for what it holds at every statement of the transaction that follows, so
// fewer statements mean fewer segments (store/searchpending.go). The row
// count is padded to a power of two, with NULL rows that the SELECT drops,
// so that few statement shapes exist for the statement cache.
func (d *db) IndexText(tx store.WriteTx, texts []store.IndexedText) error {
	if err := d.setEdits(tx, texts); err != nil {
		return err
	}
	for len(texts) > 0 {
		n := min(len(texts), textChunk)
		rows := 1
		for rows < n {
			rows *= 2
		}
		args := make([]any, 0, 2*rows)
		for i := 0; i < rows; i++ {
			if i < n {
				args = append(args, texts[i].Seq, texts[i].Text)
			} else {
				args = append(args, nil, nil)
			}
		}
		q := `INSERT OR REPLACE INTO search (rowid, text) SELECT column1, column2 FROM (VALUES ` +
			strings.TrimSuffix(strings.Repeat("(?, ?),", rows), ",") + `) WHERE column1 IS NOT NULL`
		if _, err := tx.Exec(q, args...); err != nil {
			return err
		}
		texts = texts[n:]
	}
	return nil
}

// setEdits keeps search_edits in step: an edited message's text is
// written, a text that is the message's own (when it may have been edited
// before) removes any.
func (d *db) setEdits(tx store.WriteTx, texts []store.IndexedText) error {
	var plain []int64
	for _, t := range texts {
		switch {
		case t.Edited:
			if _, err := tx.Exec(`INSERT OR REPLACE INTO search_edits (seq, text) VALUES (?, ?)`, t.Seq, t.Text); err != nil {
				return err
			}
		case !t.New:
			plain = append(plain, t.Seq)
		}
	}
	return d.dropEdits(tx, plain)
}

func (d *db) dropEdits(tx store.WriteTx, seqs []int64) error {
	for _, seq := range seqs {
		if _, err := tx.Exec(`DELETE FROM search_edits WHERE seq = ?`, seq); err != nil {
			return err
		}
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
	return d.dropEdits(tx, seqs)
}
