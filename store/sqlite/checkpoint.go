package sqlite

import (
	"database/sql"
	"fmt"
	"os"
	"sync/atomic"
	"time"
)

// The WAL's checkpoints. Every commit appends the pages it changed to the
// WAL; a checkpoint copies them into the database file, and once every frame
// is copied the next write transaction starts the log over from its
// beginning. A background goroutine checkpoints (PASSIVE, which never waits
// for readers or blocks the writer); but while clients keep writing, a frame
// is always committed during its pass, so the log was never all copied when
// a transaction began, never started over, and the WAL grew by every page
// written (to four times the database while serving).
//
// So the log is kept between a quarter of its limit and the limit (the
// limit: Options.WALLimit, else an eighth of the database or 64 MiB,
// whichever is larger, so that the files in use while serving stay within
// 1.2 times the database at rest): journal_size_limit cuts the file back to
// a quarter of the limit when the log starts over, and the writer, seeing
// after a commit that the file has grown past that (the log has), wakes the
// checkpointer. Its passes copy the log until one has little to copy (what
// is left is a few commits' pages), then ask the writer, which between two
// transactions checkpoints that rest on its own connection; the log is then
// all copied, and the writer's next transaction starts it over. A reader
// still on an older snapshot can hold the copy back; the writer tries again
// at most every restartRetry.
//
// Between those, the checkpointer also runs every checkpointEvery, so a
// quiet log is copied into the file soon. A page written many times between
// two passes is copied once: passes far apart write less to the file.

// checkpointEvery is how often the background goroutine checkpoints when not
// woken.
const checkpointEvery = time.Second

// quickPass is a pass with so few frames to copy (1 MB of 2 KB pages) that
// what the writer commits meanwhile is little for it to copy itself.
const quickPass = 512

// restartRetry is how soon the writer tries again to complete a checkpoint
// that a reader held back.
const restartRetry = 20 * time.Millisecond

// minWALLimit is the least limit the WAL gets when Options.WALLimit is unset.
const minWALLimit = 64 << 20

// walState is what the checkpointer tells the writer.
type walState struct {
	pageSize int64        // the database's page size: a WAL frame is 24 bytes more
	path     string       // the database file; the WAL is path-wal
	restart  atomic.Bool  // the log is past the trigger: complete a checkpoint so it starts over
	trigger  atomic.Int64 // a quarter of the limit: the log's size at which it is to start over
	// Writer goroutine only: its last try, and the journal_size_limit set.
	tried time.Time
	cut   int64
}

// setTrigger works out the limit from Options.WALLimit or the database's size.
func (d *db) setTrigger() {
	limit := d.opts.WALLimit
	if limit <= 0 {
		limit = minWALLimit
		if fi, err := os.Stat(d.wal.path); err == nil {
			limit = max(limit, fi.Size()/8)
		}
	}
	d.wal.trigger.Store(limit / 4)
}

// walPageSize is the database's page size (2048 if it cannot be read).
func walPageSize(w *sql.DB) int64 {
	var n int64
	if w.QueryRow(`PRAGMA page_size`).Scan(&n) != nil || n <= 0 {
		return 2048
	}
	return n
}

// checkpoint copies committed WAL frames into the database file in the
// background and, once the log has passed a quarter of the limit, asks the
// writer to let it start over.
func (d *db) checkpoint() {
	d.setTrigger()
	last := int64(-1)
	for pass := 0; pass < 8; pass++ {
		var busy, logFrames, done int64
		if err := d.ck.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &done); err != nil {
			d.opts.Log("WAL checkpoint failed", err)
			return
		}
		if logFrames*(d.wal.pageSize+24) < d.wal.trigger.Load() {
			return
		}
		if last >= 0 && logFrames-last < quickPass {
			break // this pass had little to copy: little was committed during it
		}
		last = logFrames
	}
	d.wal.restart.Store(true)
}

// walGrew runs on the writer goroutine after a commit: a WAL file past the
// trigger (the file is cut back to it when the log starts over, so it grows
// past it only when the log does) wakes the checkpointer.
func (d *db) walGrew() {
	if fi, err := os.Stat(d.wal.path + "-wal"); err == nil && fi.Size() > d.wal.trigger.Load() && !d.wal.restart.Load() {
		d.checkpoints.Wake()
	}
}

// finishCheckpoint runs on the writer goroutine before a transaction: when
// the checkpointer asked, it copies the frames left into the database, so
// that this transaction starts the log over (and then cuts the file back to
// the trigger).
func (d *db) finishCheckpoint() {
	if !d.wal.restart.Load() || time.Since(d.wal.tried) < restartRetry {
		return
	}
	d.wal.tried = time.Now()
	var busy, logFrames, done int64
	if err := d.w.QueryRow(`PRAGMA wal_checkpoint(PASSIVE)`).Scan(&busy, &logFrames, &done); err != nil {
		d.opts.Log("WAL checkpoint failed", err)
		return
	}
	if busy != 0 || done != logFrames {
		return
	}
	d.wal.restart.Store(false)
	if cut := d.wal.trigger.Load(); cut != d.wal.cut {
		if _, err := d.w.Exec(fmt.Sprintf(`PRAGMA journal_size_limit = %d`, cut)); err == nil {
			d.wal.cut = cut
		}
	}
}
