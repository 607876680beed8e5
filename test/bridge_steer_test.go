package test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/nbd-wtf/go-nostr"
)

// Issue 11: a steer can start a turn the bridge did not prompt for. Either
// way it is answered exactly once and its frames reach the owner:
//   - "late": the steer is injected into a turn that ends without taking it,
//     and the agent answers it afterwards on its own (claude-agent-acp);
//   - "newturn": the agent answers _session/steering with startedNewTurn
//     and runs the steer as a turn of its own; the bridge must not also
//     queue it as a prompt.
func TestBridgeSteerStartedTurns(t *testing.T) {
	for _, mode := range []string{"late", "newturn"} {
		t.Run(mode, func(t *testing.T) {
			e := newBridgeEnv(t)
			e.config(t, []string{goTool(t, "acpagent")}, fmt.Sprintf("env = { ACPAGENT_DIR = %q, ACPAGENT_STEERING = \"1\", ACPAGENT_STEER = %q }", filepath.Join(e.dir, "sessions"), mode))
			b := e.start(t)
			fw := e.watchFrames(t)
			m := e.mention(t, e.a, e.alice, "room", "[[until-steer:15s]] go")
			frames := fw.until(15*time.Second, func(f observer.Frame) bool { return f.Turn == m.ID && method(f) == "session/prompt" })
			session := frames[len(frames)-1].Session
			e.control(t, observer.Control{V: 1, Type: observer.CtlSteer, Session: session, Text: "turn " + mode})
			if r := e.waitReply(t, "room", m.ID, 20*time.Second, b); r.Content != "heard 1: [[until-steer:15s]] go" {
				t.Fatalf("the steered turn's reply %q", r.Content)
			}
			// The agent's own turn: its frames reach the owner under a turn id of
			// their own (all its text), and its text becomes one top-level reply
			// to the owner.
			var seen []string
			var ownText strings.Builder // the agent's own turn's message text, chunks coalesced or not
			for deadline := time.After(20 * time.Second); ; {
				var f observer.Frame
				select {
				case f = <-fw.frames:
				case <-deadline:
					t.Fatalf("no frame of the agent's own turn; frames since the steer:\n%s\nbridge log:\n%s", strings.Join(seen, "\n"), b.logs())
				}
				seen = append(seen, fmt.Sprintf("%d %s %s", f.Seq, f.Turn, f.Msg))
				var m struct {
					Params struct {
						Update struct {
							SessionUpdate string
							Content       struct{ Text string }
						}
					}
				}
				json.Unmarshal(f.Msg, &m)
				if strings.HasPrefix(f.Turn, "steer-") && f.Session == session && m.Params.Update.SessionUpdate == "agent_message_chunk" {
					ownText.WriteString(m.Params.Update.Content.Text)
				}
				if ownText.String() == "answer to the steer: turn "+mode {
					break
				}
			}
			want := "answer to the steer: turn " + mode
			steeredReplies := func() (out []*nostr.Event) {
				for _, ev := range e.replies(t, "room") {
					if strings.Contains(ev.Content, "turn "+mode) {
						out = append(out, ev)
					}
				}
				return out
			}
			for deadline := time.Now().Add(15 * time.Second); len(steeredReplies()) == 0 && time.Now().Before(deadline); {
				time.Sleep(200 * time.Millisecond)
			}
			e.settled(t, "room", b) // a duplicate (the steer also queued as a prompt) would come before the probe's answer
			steered := steeredReplies()
			if len(steered) != 1 || steered[0].Content != want || !steered[0].Tags.ContainsAny("p", []string{e.alice.pk}) {
				var got []string
				for _, ev := range steered {
					got = append(got, ev.Content)
				}
				t.Fatalf("replies to the steer %q, want exactly one %q to the owner; log:\n%s", got, want, b.logs())
			}
			if n := len(e.replies(t, "room")); n != 3 {
				t.Fatalf("%d agent messages, want 3 (the mention's reply, the steer's, the probe's)", n)
			}
		})
	}
}
