package store

import (
	"context"
	"database/sql"

	"github.com/nbd-wtf/go-nostr"
)

// Backend is what an SQL event log leaves to its database; Core writes the
// rules (saving, replacement, deletion, expiry, queries, read scopes) once
// over it, with ? placeholders. The SQLite log (store/sqlite) and the
// PostgreSQL log (store/postgres) implement it.
type Backend interface {
	Dialect
	// Begin starts a write transaction on the writer's connection (the
	// PostgreSQL log takes its cluster-wide write lock in it).
	Begin() (CommitTx, error)
	// Read runs a read-only query on the reader pool. A backend may run it
	// without cancellation; the caller checks ctx between rows.
	Read(ctx context.Context, q string, args ...any) (*sql.Rows, error)
	// ReadRow runs a read-only query of one row, cancelled with ctx.
	ReadRow(ctx context.Context, q string, args ...any) *sql.Row
	// Close closes the database, once the writer has stopped.
	Close()
}

// CommitTx is a write transaction Core commits or rolls back.
type CommitTx interface {
	WriteTx
	// Commit commits the transaction, which stored the events of sequence
	// numbers seqs (the PostgreSQL log announces them to other instances)
	// and, if stateChanged, may have changed the projector's tables (the
	// PostgreSQL log tells the other instances' writers to drop what they
	// cached of them).
	Commit(seqs []int64, stateChanged bool) error
	Rollback() error
}

// Dialect is the SQL that differs between backends.
type Dialect interface {
	// TagJoin is the FROM clause that reads events e through the tag index
	// t, with the tag index driving.
	TagJoin() string
	// In renders "col is one of vals" (not: "none of vals"), vals non-empty.
	In(a *Args, col string, vals []string, not bool) string
	// InInts renders "col is one of ks", ks non-empty.
	InInts(a *Args, col string, ks []int) string
	// Lookup renders a query finding rows by an indexed column's values
	// (vals non-empty): sel renders the query given the condition on col,
	// adding its own arguments after the condition's. It may call sel once
	// per value (the rows of a repeated value then come again).
	Lookup(a *Args, col string, vals []string, sel func(cond string) string) string
	// HasTag renders "event e has a tag name with one of vals".
	HasTag(a *Args, name string, vals []string) string
	// Storable reports whether a text value can be stored at all; a filter
	// value that cannot matches nothing.
	Storable(v string) bool
	// Refuse returns a Rejection for an event this database cannot hold, or nil.
	Refuse(ev *nostr.Event) error
	// Insert stores an event row and its tag rows and returns its sequence
	// number, or ErrDuplicate (nothing written) if its id is stored (a
	// Fresh row's is not).
	Insert(tx WriteTx, row Row) (seq int64, err error)
	// DeleteSeqs deletes events by sequence number, with their tag rows (and
	// their searchable text).
	DeleteSeqs(tx WriteTx, seqs []int64) error
	// Search renders a full-text search of the message index for q.
	Search(q *SearchQuery) SearchSQL
	// TermSample is a query of one row: how many of the newest n indexed
	// messages holding term t there are (n at most), and the lowest
	// sequence number among them (0 for none).
	TermSample(t Term, n int) (query string, args Args)
	// IndexText sets the searchable text of each message, by sequence number.
	IndexText(tx WriteTx, texts []IndexedText) error
	// UnindexText takes messages out of the search index.
	UnindexText(tx WriteTx, seqs []int64) error
}

// SearchSQL is a full-text search as a backend renders it, each part with
// its own arguments so Core can place them in its queries. From joins the
// index to the events row e and Match is the condition (both in every
// search query); Newest orders matches newest first, as the index reads
// them; Text is a match's current text (its newest edit's); Near, if the
// index can tell, is a Match for the matches whose terms all lie within
// NearTokens of each other (Core's close tier). Core ranks the matches
// itself (searchrank.go) and makes the excerpts from Text.
type SearchSQL struct {
	From, Match, Newest, Text, Near string
	FromArgs, MatchArgs, NearArgs   Args
}

// Row is an event as the events table and the tag index hold it.
type Row struct {
	Event      *nostr.Event
	Raw        string
	D          *string // NULL for regular events
	Expiration *int64
	Channel    *string
	Tags       [][2]string // IndexedTags
	// Fresh: the log holds no event of this id (the writer knows it under
	// its lock), so the insert needs no duplicate check of its own.
	Fresh bool
}

// Args collects the arguments of SQL written with ? placeholders.
type Args []any

// Add appends v and returns its placeholder.
func (a *Args) Add(v any) string {
	*a = append(*a, v)
	return "?"
}
