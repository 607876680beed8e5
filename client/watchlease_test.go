package client

import (
	"testing"

	"github.com/nbd-wtf/go-nostr"
)

// A watcher renews its watch for a bridge connection it has not seen: a new
// conn, or a bridge back from offline that does not say its conn; not for
// another status of the same connection, nor for an offline one.
func TestBridgeRunNext(t *testing.T) {
	var run bridgeRun
	steps := []struct {
		content string
		renew   bool
	}{
		{`{"state":"idle","conn":100}`, true},
		{`{"state":"working","conn":100}`, false},
		{`{"state":"idle","conn":200}`, true}, // a bridge restarted (kill -9: no offline before)
		{`{"state":"offline","conn":200}`, false},
		{`{"state":"idle","conn":300}`, true},
		{`{"state":"offline"}`, false},
		{`{"state":"idle"}`, true}, // back from offline, no conn
		{`{"state":"idle"}`, false},
		{`not json`, false},
	}
	for i, s := range steps {
		if got := run.next(&nostr.Event{Content: s.content}); got != s.renew {
			t.Fatalf("step %d %s: renew %v, want %v", i, s.content, got, s.renew)
		}
	}
}
