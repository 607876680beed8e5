package test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/client/observer"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

// Issue 23 item 1: an agent its owner attested with `hive agent attest`
// publishes a kind 0 with its auth tag and the ["device"] marker, as if it
// were a paired device. It must stay an agent: its watch frame to a sibling
// agent is refused, it receives none of the sibling's observer frames (the
// mention comes from a private channel it is not in), and its approval of the
// sibling's permission request is refused, so the request times out.
func TestAgentPosingAsDeviceIsRefused(t *testing.T) {
	e, b := startScripted(t, `permissions = "ask"`, `permission_timeout = "4s"`)

	// The sibling's attestation comes from the real `hive agent attest`.
	sibling := newKey(t)
	aliceKeys, _ := identity.KeysFromSecretHex(e.alice.sk)
	keyFile := filepath.Join(t.TempDir(), "alice.key")
	if err := identity.SaveKeyFile(keyFile, aliceKeys, identity.SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	out := newCLI(t).ok("agent", "attest", "--key", keyFile, "--agent", sibling.pk, "--expires", "1h")
	stag, err := identity.ParseAttestationText(out)
	if err != nil {
		t.Fatal(err)
	}
	if identity.IsDeviceConditions(stag[2]) {
		t.Fatalf("hive agent attest wrote the device clause: %q", stag[2])
	}
	// The one not-before that would write it is refused.
	if out, errOut, code := newCLI(t).run("agent", "attest", "--key", keyFile, "--agent", sibling.pk, "--expires", "1h", "--not-before", "1"); code != 1 || !strings.Contains(errOut, "a not-before of 1 allows every event; leave it out") {
		t.Fatalf("hive agent attest --not-before 1: exit %d\n%s%s", code, out, errOut)
	}
	sr := e.h.as(t, sibling, stag)
	sr.must(sibling.sign(t, 0, `{"name":"phone","about":"hive device"}`, stag, nostr.Tag{"device"}))
	siblingCK, _ := nip44.GenerateConversationKey(e.agent.pk, sibling.sk)
	stolen := e.watchFramesAs(t, sibling, siblingCK, stag)

	watch := e.controlFrom(t, sibling, observer.Control{V: 1, Type: observer.CtlWatch})
	ok, msg := sr.publish(watch)
	if ok || msg != "restricted: observer frames do not go between two agents; a key attested by the owner reaches the owner's agents only as a paired device (enrolled with hive pair: its attestation carries the device clause created_at>0)" {
		t.Fatalf("the sibling agent's watch frame: ok=%v %q", ok, msg)
	}

	owner := e.watchFrames(t)
	m := e.mention(t, e.a, e.alice, "room", "secret plan [[permission]]")
	session, id, allow := permissionRequest(t, owner)
	approve := e.controlFrom(t, sibling, observer.Control{V: 1, Type: observer.CtlPermission, Session: session, Request: id, Option: allow})
	if ok, msg := sr.publish(approve); ok || !strings.HasPrefix(msg, "restricted: observer frames do not go between two agents") {
		t.Fatalf("the sibling agent's approval: ok=%v %q", ok, msg)
	}
	if r := e.waitReply(t, "room", m.ID, 20*time.Second, b); !strings.Contains(r.Content, "permission: reject") {
		t.Fatalf("after the sibling's approval: reply %q, want the timeout's reject", r.Content)
	}
	select {
	case f, open := <-stolen.frames:
		if open {
			t.Fatalf("the sibling agent decrypted an observer frame of its sibling: %s", f.Msg)
		}
	default:
	}
	if logs := b.logs(); strings.Contains(logs, "paired device watches the agent") {
		t.Fatalf("the bridge took the sibling agent for a device:\n%s", logs)
	}
}
