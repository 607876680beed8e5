package agentbridge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	obs "github.com/ainb/hive/client/observer"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

func chunk(kind, text string) []byte {
	return []byte(fmt.Sprintf(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":%q,"content":{"type":"text","text":%q}}}}`, kind, text))
}

// Text chunks waiting together coalesce into one frame holding the raw
// message with the concatenated text; other messages pass through as they
// are; seq has no gaps; frames decrypt with the owner's key.
func TestObserverCoalescesChunks(t *testing.T) {
	agentSK, ownerSK := nostr.GeneratePrivateKey(), nostr.GeneratePrivateKey()
	ownerPK, _ := nostr.GetPublicKey(ownerSK)
	agentPK, _ := nostr.GetPublicKey(agentSK)
	ck, _ := nip44.GenerateConversationKey(ownerPK, agentSK)
	var mu sync.Mutex
	var sent []*nostr.Event
	o := newObserver(ck, ownerPK, func(_ context.Context, ev *nostr.Event) error {
		mu.Lock()
		sent = append(sent, ev)
		mu.Unlock()
		return nil
	})
	ref := turnRef{channel: "c", session: "s1", turn: "m1"}
	raw := `{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s1","x_unknown":{"kept":true}}}`
	o.add(ref, "out", []byte(raw))
	for i := 0; i < 50; i++ {
		o.add(ref, "in", chunk("agent_message_chunk", fmt.Sprint(i%10)))
	}
	o.add(ref, "in", chunk("agent_thought_chunk", "hm"))
	o.add(ref, "in", chunk("agent_message_chunk", "!"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go o.run(ctx)
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(sent)
		mu.Unlock()
		if n == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d frames sent, want 4", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	rck, _ := nip44.GenerateConversationKey(agentPK, ownerSK)
	var frames []obs.Frame
	for _, ev := range sent {
		if len(ev.Tags) != 1 || ev.Tags[0][0] != "p" || ev.Tags[0][1] != ownerPK {
			t.Fatalf("frame tags %v", ev.Tags)
		}
		var f obs.Frame
		if err := obs.OpenFrame(ev, rck, &f); err != nil {
			t.Fatal(err)
		}
		frames = append(frames, f)
	}
	if string(frames[0].Msg) != raw {
		t.Fatalf("raw message changed: %s", frames[0].Msg)
	}
	var m struct {
		Params obs.UpdateParams `json:"params"`
	}
	json.Unmarshal(frames[1].Msg, &m)
	if want := strings.Repeat("0123456789", 5); m.Params.Update.Content.Text != want {
		t.Fatalf("coalesced text %q", m.Params.Update.Content.Text)
	}
	for i, f := range frames {
		if f.Seq != uint64(i+1) || f.Turn != "m1" || f.Channel != "c" {
			t.Fatalf("frame %d: %+v", i, f)
		}
	}
}
