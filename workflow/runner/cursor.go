package runner

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// The cursor is only a cache (the newest trigger seen): a restart looks
// back from it, or an hour when it is gone; the claims decide what ran.
const cursorName = "cursor"

func (r *Runner) loadCursor() nostr.Timestamp {
	b, err := os.ReadFile(filepath.Join(r.cfg.StateDir, cursorName))
	if err != nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	return nostr.Timestamp(n)
}

func (r *Runner) saveCursor() {
	r.mu.Lock()
	c := r.cursor
	r.mu.Unlock()
	if c == 0 {
		return
	}
	tmp := filepath.Join(r.cfg.StateDir, cursorName+".tmp")
	if os.WriteFile(tmp, []byte(strconv.FormatInt(int64(c), 10)+"\n"), 0o600) == nil {
		os.Rename(tmp, filepath.Join(r.cfg.StateDir, cursorName))
	}
}
