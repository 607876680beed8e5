package test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

// Issue 23 item 9 as a new user meets it, from the README: the hub over
// wss with a self-signed certificate and a pin, the bridge started as the
// README starts it (its agent under the guard), the owner's `hive agent
// watch` open, mentions sent with `hive send ... --mention`. The bridge is
// killed with -9 while a session is open, a mention is sent while it is
// down, the bridge is started again: the caught-up mention is answered on
// the resumed session (session/load), and so is each new mention sent
// after that reply, at once (often the same second) and 0.2, 1 and 2
// seconds later. Then the hub restarts: the bridge logs its reconnect and
// answers the next mention.
func TestReadmeBridgeKill9ThenLiveMentions(t *testing.T) {
	w, read := walkReadme(t)
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	run := regexp.MustCompile("(?m)^hive bridge --config .*$").FindString(section(t, string(readme), "## Agents: `hive bridge`"))
	if run == "" {
		t.Fatal("the README's agents section does not run hive bridge --config")
	}
	old := w.bg["bridge"]
	old.cmd.Process.Kill()
	old.cmd.Wait()
	w.line(`hive send general "@claude sent while you were down" --mention npub1...agent --profile alice`)
	w.line(run)
	bridge := w.bg["bridge"]
	waitText(t, "the caught-up mention's reply", 30*time.Second, read, "heard 1: @claude sent while you were down")
	waitText(t, "the resumed session", 5*time.Second, bridge.text, "session resumed")
	for _, after := range []time.Duration{0, 200 * time.Millisecond, time.Second, 2 * time.Second} {
		time.Sleep(after)
		text := "@claude live, " + after.String() + " after the last reply"
		w.line(`hive send general "` + text + `" --mention npub1...agent --profile alice`)
		deadline := time.Now().Add(30 * time.Second)
		for !strings.Contains(read(), "heard 1: "+text) {
			if time.Now().After(deadline) {
				t.Fatalf("no reply to %q within 30 s; bridge log after the restart:\n%s", text, bridge.text())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// The hub restarts under the bridge: its log says the connection came
	// back (a reconnect was silent before), and the next mention is answered.
	w.hub.cmd.Process.Kill()
	w.hub.cmd.Wait()
	w.makeRun(w.flags)
	waitText(t, "the bridge's reconnect in its log", 30*time.Second, bridge.text, "msg=reconnected")
	w.line(`hive send general "@claude after the hub restart" --mention npub1...agent --profile alice`)
	waitText(t, "the reply after the hub restart", 30*time.Second, read, "heard 1: @claude after the hub restart")
}
