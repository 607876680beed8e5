package test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/nbd-wtf/go-nostr"
)

// A hive tool call's round trip: an MCP client calls `hive mcp` (the real
// binary, over stdio, as the agent key, its hub connection open across
// calls) and waits for the result, which takes one hub query (get_event),
// a page of a channel with its overlays and names (read_channel, 20 of 230
// messages, the newest replies with reactions), or the turn's thread
// (read_thread: a root, 30 replies, reactions on the root and on 10
// replies).
// go test -tags libsecp256k1,sqlite_fts5 -run '^$' -bench HiveToolRoundTrip -benchtime 500x ./test/
func BenchmarkHiveToolRoundTrip(b *testing.B) {
	e := newBridgeEnv(b)
	var last *nostr.Event
	for i := 0; i < 200; i++ {
		last = e.a.must(e.alice.sign(b, 9, fmt.Sprintf("message %d: %s", i, strings.Repeat("words ", 20)), nostr.Tag{"h", "room"}))
	}
	root := last
	e.b.must(e.bob.sign(b, 7, "+", nostr.Tag{"h", "room"}, nostr.Tag{"e", root.ID}, nostr.Tag{"p", root.PubKey}))
	for i := 0; i < 30; i++ {
		author, conn := e.alice, e.a
		if i%2 == 1 {
			author, conn = e.bob, e.b
		}
		r := conn.must(author.sign(b, 9, fmt.Sprintf("reply %d", i), nostr.Tag{"h", "room"}, nostr.Tag{"e", root.ID, "", "root"}, nostr.Tag{"p", root.PubKey}))
		if i%3 == 0 {
			e.a.must(e.alice.sign(b, 7, "+", nostr.Tag{"h", "room"}, nostr.Tag{"e", r.ID}, nostr.Tag{"p", r.PubKey}))
		}
	}
	turn := filepath.Join(e.dir, "turn.json")
	if err := os.WriteFile(turn, []byte(fmt.Sprintf(`{"turn":%q,"channel":"room","thread":%q}`, root.ID, root.ID)), 0o600); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := exec.Command(binary(b), "mcp", "--hub", e.h.URL, "--key", filepath.Join(e.dir, "agent.key"), "--tag", filepath.Join(e.dir, "agent.tag"), "--channel", "room", "--turn", turn)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	for _, call := range []struct {
		name string
		args map[string]any
		want string
	}{{"get_event", map[string]any{"id": last.ID}, "message 199"}, {"read_channel", map[string]any{"limit": 20}, "channel room (room)\n"}, {"read_thread", map[string]any{"limit": 20}, "]\nreply "}} {
		b.Run(call.name, func(b *testing.B) {
			lat := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: call.name, Arguments: call.args})
				lat = append(lat, time.Since(start))
				if err != nil || res.IsError || len(res.Content) == 0 || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, call.want) {
					b.Fatalf("%s: %v %+v", call.name, err, res)
				}
			}
			sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
			ms := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
			b.ReportMetric(ms(0.5), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
		})
	}
}
