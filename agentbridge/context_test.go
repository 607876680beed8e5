package agentbridge

import (
	"fmt"
	"strings"
	"testing"

	"github.com/ainb/hive/client/chat"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// The context keeps the newest messages within context_messages and
// context_bytes, says how many it left out, and marks the agent's own.
func TestRenderContextCut(t *testing.T) {
	agent, _ := identity.KeysFromSecretHex(nostr.GeneratePrivateKey())
	alice := nostr.GeneratePrivateKey()
	m := chat.New(agent.PublicHex)
	for i := 0; i < 30; i++ {
		sk := alice
		if i == 29 {
			sk = agent.SecretHex
		}
		ev := &nostr.Event{Kind: 9, CreatedAt: nostr.Timestamp(1000 + i), Content: fmt.Sprintf("message %02d", i), Tags: nostr.Tags{{"h", "c"}}}
		ev.Sign(sk)
		m.Apply(ev)
	}
	r := &contextBuilder{cfg: &AgentConfig{ContextMessages: 5, ContextBytes: 16 << 10}, me: agent.PublicHex}
	out := r.renderContext(m.Names(), m.Main("c"), false)
	if !strings.Contains(out, "(25 earlier message(s) left out)") || strings.Contains(out, "message 24") || !strings.Contains(out, "message 25") {
		t.Fatalf("cut by count:\n%s", out)
	}
	if !strings.Contains(out, "[you ("+chat.ShortNpub(agent.PublicHex)+") at") {
		t.Fatalf("the agent's own message is not marked:\n%s", out)
	}
	r.cfg.ContextMessages, r.cfg.ContextBytes = 20, 300 // a line is about 110 bytes
	out = r.renderContext(m.Names(), m.Main("c"), false)
	if !strings.Contains(out, "(28 earlier message(s) left out)") || !strings.Contains(out, "message 29") || strings.Contains(out, "message 27") {
		t.Fatalf("cut by bytes:\n%s", out)
	}
	if r.renderContext(m.Names(), nil, true) != "" {
		t.Fatal("no rows should give no context block")
	}
}

func TestContextConfig(t *testing.T) {
	for v, want := range map[string]string{`context = "everything"`: `context = "everything": use "channel", "thread" or "none"`,
		`context_messages = 500`: "context_messages = 500: must be 1 to 200", `context_bytes = 10`: "context_bytes = 10: must be 256 to 262144"} {
		a := AgentConfig{Name: "a", Key: "k", Attestation: "t", Command: []string{"x"}}
		switch {
		case strings.HasPrefix(v, "context ="):
			a.Context = "everything"
		case strings.HasPrefix(v, "context_messages"):
			a.ContextMessages = 500
		default:
			a.ContextBytes = 10
		}
		if err := a.validate(); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", v, err, want)
		}
	}
	a := AgentConfig{Name: "a", Key: "k", Attestation: "t", Command: []string{"x"}}
	if err := a.validate(); err != nil || a.Context != ContextChannel || a.ContextMessages != 20 || a.ContextBytes != 16<<10 || !a.hiveTools() {
		t.Fatalf("defaults: %v %+v", err, a)
	}
}
