package store

import (
	"strconv"

	"github.com/nbd-wtf/go-nostr"
)

// QuerySQL is the statement QueryRaw first runs for f read within scope
// (nil: everything), with its arguments, or "" when f can match nothing or
// is a search: for tests that check which index answers a filter.
func (c *Core) QuerySQL(f nostr.Filter, scope *Scope) (string, Args) {
	if f.Search != "" {
		return "", nil
	}
	q, args, at, empty := c.buildQuery(f, scope, c.opts.Now().Unix())
	if empty {
		return "", nil
	}
	return q + " ORDER BY " + at + " LIMIT " + strconv.Itoa(c.limit(f)+1), args
}

// WriteSQL are statements the write path runs on every save of their kind,
// by what they check, for the same tests: the stored-id check, a
// replaceable event's older versions, the deleted-id and deleted-address
// checks, and the expiry sweep. The placeholders are the backend's (the
// dialect in the deletion checks).
func (c *Core) WriteSQL() map[string]string {
	return map[string]string{
		"duplicate":       storedSQL,
		"replaceable":     replaceableSQL,
		"deleted id":      c.deletedSQL,
		"deleted address": c.addrDeletedSQL,
		"expired":         `SELECT seq FROM events WHERE ` + expiredSQL,
	}
}
