package test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
)

// deviceChat runs hive chat in room as alice's paired device d (its key and
// attestation in a profile, as hive join leaves them).
func deviceChat(t *testing.T, e *bridgeEnv, d pairedDevice) *tmuxPane {
	t.Helper()
	return chatAs(t, e, "phone", d.sk, identity.TagJSON(d.tag))
}

// chatAs runs hive chat in room with a profile name of key sk (and the
// owner's attestation of it, if any).
func chatAs(t *testing.T, e *bridgeEnv, name, sk, attestation string) *tmuxPane {
	t.Helper()
	home := t.TempDir()
	keys, _ := identity.KeysFromSecretHex(sk)
	kf := filepath.Join(home, name+".key")
	if err := identity.SaveKeyFile(kf, keys, identity.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	profs, err := client.LoadProfiles(home)
	if err != nil {
		t.Fatal(err)
	}
	if err := profs.Put(client.Profile{Name: name, Hubs: []string{e.h.URL}, Key: kf, Attestation: attestation}); err != nil {
		t.Fatal(err)
	}
	if err := profs.Save(home); err != nil {
		t.Fatal(err)
	}
	return startChat(t, home, 100, 30, "room")
}

// hive chat on alice's paired device, open while no bridge runs: once the
// bridge starts, the agent's permission request shows within 3 s of
// alice's own key getting it and a key answers it; again after the bridge
// is killed -9 and restarted (spec/agents.md, "A watch outlives restarts").
func TestChatTUIDeviceWatchesAcrossBridgeRestart(t *testing.T) {
	e := newBridgeEnv(t)
	e.scripted(t, `permissions = "ask"`, `permission_timeout = "2m"`)
	e.start(t).stop() // an agent that ran before; no bridge now
	e.a.must(e.alice.sign(t, 0, `{"name":"alice"}`))
	phone := e.pairDevice(t, e.alice)
	owner := e.watchFrames(t)
	chat := deviceChat(t, e, phone)
	chat.waitText("#room", "● connected", "⚙ helper (alice")

	e.eachBridgeRun(t, func(what string, b *bridgeProc) {
		m := e.mention(t, e.a, e.alice, "room", what+" [[permission]]")
		permissionRequest(t, owner)
		deadline := time.Now().Add(3 * time.Second)
		for s := chat.screen(); !strings.Contains(s, "⚠ permission asked:"); s = chat.screen() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: alice's key got the permission request, hive chat on her device shows none within 3 s:\n%s", what, s)
			}
			time.Sleep(100 * time.Millisecond)
		}
		chat.keys("C-g")
		chat.waitText("PERMISSION REQUESTED", "[1] ")
		chat.keys("1")
		chat.waitFor("the tool completed", func(s string) bool {
			return strings.Contains(s, "[completed]") && !strings.Contains(s, "PERMISSION REQUESTED") && !strings.Contains(s, "⚠")
		})
		chat.keys("Escape")
		if r := e.waitReply(t, "room", m.ID, 20*time.Second, b); !strings.Contains(r.Content, "permission: allow") {
			t.Fatalf("%s: reply %q, want the device's allow", what, r.Content)
		}
	})
}
