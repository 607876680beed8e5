package store

import "fmt"

// IndexedText is one message's searchable text, for Backend.IndexText:
// an Edited text is an edit's, not the message's own content; a New one
// replaces no edited text indexed before.
type IndexedText struct {
	Seq         int64
	Text        string
	Edited, New bool
}

// A batch's new messages reach the search index together, just before the
// commit, in one call. SQLite's FTS5 writes what it holds in memory as a new
// index segment whenever a later statement of the transaction opens a
// statement savepoint (every tag or event insert does), so indexing each
// message as it is stored wrote one segment per message, and merging them
// cost more than the rest of the write. Anything else that reads or changes
// the index in the batch (an edit, a deletion, an Exec) first sends what is
// queued, so the index is always what the events applied so far say.

// queueText queues a new message's text for the batch's IndexText call.
func (c *Core) queueText(seq int64, text string) {
	c.texts = append(c.texts, IndexedText{Seq: seq, Text: text, New: true})
}

// flushTexts indexes the queued texts.
func (c *Core) flushTexts(tx WriteTx) error {
	if len(c.texts) == 0 {
		return nil
	}
	err := c.db.IndexText(tx, c.texts)
	clear(c.texts)
	c.texts = c.texts[:0]
	if err != nil {
		return fmt.Errorf("search index: %w", err)
	}
	return nil
}
