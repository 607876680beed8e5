package test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
)

type whoJSON struct {
	Pubkey  string `json:"pubkey"`
	Name    string `json:"name"`
	Agent   bool   `json:"agent"`
	Working struct {
		Working bool   `json:"working"`
		Source  string `json:"source"`
		Channel string `json:"channel"`
	} `json:"working"`
}

// who runs `hive who room --listen d` as sk in the background and returns
// the agent's line once it ends.
func (e *bridgeEnv) who(t *testing.T, c *cli, sk string, d time.Duration) <-chan whoJSON {
	t.Helper()
	args := []string{"who", "room", "--listen", d.String(), "--json", "--hub", e.h.URL, "--key", writeKeyFile(t, key{sk: sk})}
	out := make(chan whoJSON, 1)
	go func() {
		o, errOut, code := c.run(args...)
		var agent whoJSON
		for _, l := range strings.Split(strings.TrimSpace(o), "\n") {
			var w whoJSON
			if json.Unmarshal([]byte(l), &w) == nil && w.Pubkey == e.agent.pk {
				agent = w
			}
		}
		if code != 0 || agent.Pubkey == "" {
			agent.Name = fmt.Sprintf("exit %d: %s%s", code, o, errOut)
		}
		out <- agent
	}()
	return out
}

// `hive who` shows the agent working during a turn and idle after it: to
// its owner from the observer frames (its watch control frame makes the
// bridge send the turn's pending permission request again), to another
// member from the typing the bridge sends (real hive bridge, scripted agent,
// real binary).
func TestWhoShowsAgentWorking(t *testing.T) {
	e, b := startScripted(t, `answer = "members"`, `permissions = "ask"`, `permission_timeout = "2m"`)
	fw := e.watchFrames(t)
	c := newCLI(t)

	// the turn is in flight: it waits for its owner's answer
	m := e.mention(t, e.b, e.bob, "room", "may I? [[permission]]")
	session, id, allow := permissionRequest(t, fw)
	owner, other := e.who(t, c, e.alice.sk, 4*time.Second), e.who(t, c, e.bob.sk, 4*time.Second)
	o, x := <-owner, <-other
	if !o.Agent || !strings.Contains(o.Name, "helper (") || !strings.Contains(o.Name, "'s agent)") || !o.Working.Working || o.Working.Source != "observer" || o.Working.Channel != "room" {
		t.Fatalf("owner's who during the turn: %+v", o)
	}
	if !x.Agent || !x.Working.Working || x.Working.Source != "typing" || x.Working.Channel != "room" {
		t.Fatalf("bob's who during the turn: %+v", x)
	}

	// answered: the turn ends, and both see the agent idle
	e.control(t, observer.Control{V: 1, Type: observer.CtlPermission, Session: session, Request: id, Option: allow})
	e.waitReply(t, "room", m.ID, 60*time.Second, b)
	owner, other = e.who(t, c, e.alice.sk, 4*time.Second), e.who(t, c, e.bob.sk, 4*time.Second)
	o, x = <-owner, <-other
	if !o.Agent || o.Working.Working {
		t.Fatalf("owner's who after the turn: %+v", o)
	}
	if !x.Agent || x.Working.Working {
		t.Fatalf("bob's who after the turn: %+v", x)
	}
}
