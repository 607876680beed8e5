package test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/kinds"
	"github.com/nbd-wtf/go-nostr"
)

// Issue 23 item 9's other shapes in one run: kill -9 of the bridge with a
// session open, two mentions while it is down (one top-level, one in a
// thread), a restart; while the caught-up turn still runs, a mention in
// another channel and a DM (hive dm); a second after the caught-up reply, a
// reply in its thread and a top-level mention. Each is answered (by a
// reply naming it, or quoting it in a batch's reply).
func TestBridgeKill9ThenMentionsEverywhere(t *testing.T) {
	e := newBridgeEnv(t)
	e.channel(t, "side", "private")
	e.scripted(t)
	b := e.start(t)
	m0, r0 := e.ask(t, b, "the word is [[remember:pineapple]]", 20*time.Second)
	b.kill9()
	down1 := e.mention(t, e.a, e.alice, "room", "[[slow:2s]] first while down")
	down2 := e.mention(t, e.a, e.alice, "room", "second while down, in the thread", nostr.Tag{"e", m0.ID, "", "root"}, nostr.Tag{"e", r0.ID, "", "reply"})
	b2 := e.start(t)
	side := e.mention(t, e.a, e.alice, "side", "in another channel, during the caught-up turn")
	aliceKey := e.aliceKeyFile(t)
	dmText := "a dm during the caught-up turn"
	hiveCmd(t, "dm", (identity.Keys{PublicHex: e.agent.pk}).Npub(), dmText, "--hub", e.h.URL, "--key", aliceKey, "--json")
	caught := e.waitAnswered(t, "room", down1.ID, 30*time.Second, b2)
	e.waitAnswered(t, "room", down2.ID, 30*time.Second, b2)
	e.waitAnswered(t, "side", side.ID, 30*time.Second, b2)
	dm := client.DMChannelID(e.alice.pk, e.agent.pk)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if slices.ContainsFunc(e.replies(t, dm), func(ev *nostr.Event) bool { return strings.Contains(ev.Content, dmText) }) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the DM got no answer; bridge log:\n%s", b2.logs())
		}
	}
	later := max(caught.CreatedAt+1, nostr.Now()) // a second after the caught-up reply
	inThread := e.mentionAt(t, e.a, e.alice, later, "room", "live, in the caught-up reply's thread", nostr.Tag{"e", kinds.ThreadRoot(caught), "", "root"}, nostr.Tag{"e", caught.ID, "", "reply"})
	top := e.mentionAt(t, e.a, e.alice, later, "room", "live, top level")
	e.waitAnswered(t, "room", inThread.ID, 30*time.Second, b2)
	e.waitAnswered(t, "room", top.ID, 30*time.Second, b2)
}

// waitAnswered waits for the agent's message in channel that answers id:
// its reply target, or quoted (q) as one of a batch's mentions.
func (e *bridgeEnv) waitAnswered(t testing.TB, channel, id string, within time.Duration, b *bridgeProc) *nostr.Event {
	t.Helper()
	for deadline := time.Now().Add(within); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, ev := range e.replies(t, channel) {
			for _, tg := range ev.Tags {
				if (len(tg) >= 4 && tg[0] == "e" && tg[1] == id && tg[3] == "reply") || (len(tg) >= 2 && tg[0] == "q" && tg[1] == id) {
					return ev
				}
			}
		}
	}
	t.Fatalf("no answer to %s in %s within %v; bridge log:\n%s", id, channel, within, b.logs())
	return nil
}
