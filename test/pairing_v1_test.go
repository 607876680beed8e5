package test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr/nip49"
)

// A plain NIP-AB v1 target (no device key, no pin) pairs with
// `hive pair --transfer-key`: same SAS, a transcript it can verify with the
// v1 rules alone, and the owner's key as NIP-49 ncryptsec. Without
// --transfer-key, hive pair shows the same SAS and then refuses such a
// target with abort{protocol_error}.
func TestV1TargetWithHivePair(t *testing.T) {
	h := startPairingHub(t)
	admin, err := identity.LoadKeyFile(filepath.Join(h.data, "admin.key"), nil)
	if err != nil {
		t.Fatal(err)
	}
	h.owner.env = append(h.owner.env, "HIVE_TRANSFER_PASSPHRASE=correct horse battery")
	pair := h.owner.start("pair", "--transfer-key")
	peer := v1Target(t, pair.next("uri")["uri"].(string))
	if sas := pair.next("sas")["sas"]; sas != peer.sas() {
		t.Fatalf("hive pair shows %v, the v1 target %s", sas, peer.sas())
	}
	pair.answer("y")
	m := peer.recv(10 * time.Second)
	if m["type"] != "sas-confirm" || m["transcript_hash"] != peer.transcript(peer.peer, peer.pub) {
		t.Fatalf("v1 target: sas-confirm %v does not verify", m)
	}
	m = peer.recv(10 * time.Second)
	enc, _ := m["payload"].(string)
	if m["type"] != "payload" || m["payload_type"] != "nsec" || !strings.HasPrefix(enc, "ncryptsec1") {
		t.Fatalf("v1 target: payload %v", m)
	}
	if sk, err := nip49.Decrypt(enc, "correct horse battery"); err != nil || sk != admin.SecretHex {
		t.Fatalf("the transferred key does not decrypt to the owner's: %v", err)
	}
	peer.send(map[string]any{"type": "complete", "success": true})
	if done := pair.next("done"); done["transferred_key"] != true {
		t.Fatalf("pair: %v", done)
	}
	if c := pair.exit(); c != 0 {
		t.Fatalf("pair exit %d: %s", c, pair.errors())
	}

	// Without --transfer-key: the SAS step completes, then a clear refusal.
	pair = h.owner.start("pair")
	peer = v1Target(t, pair.next("uri")["uri"].(string))
	if sas := pair.next("sas")["sas"]; sas != peer.sas() {
		t.Fatalf("hive pair shows %v, the v1 target %s", sas, peer.sas())
	}
	pair.answer("y")
	if m := peer.recv(10 * time.Second); m["type"] != "abort" || m["reason"] != "protocol_error" {
		t.Fatalf("v1 target got %v, want abort protocol_error and no payload", m)
	}
	if ev := pair.next("error"); !hasSubstr(ev["error"].(string), "--transfer-key") {
		t.Fatalf("pair: %v", ev)
	}
	pair.exit()

	// The owner says no: the v1 target gets an abort and never a payload.
	pair = h.owner.start("pair", "--transfer-key")
	peer = v1Target(t, pair.next("uri")["uri"].(string))
	pair.next("sas")
	pair.answer("n")
	if m := peer.recv(10 * time.Second); m["type"] != "abort" || m["reason"] != "user_denied" {
		t.Fatalf("v1 target got %v after the owner said no", m)
	}
	peer.quiet(300 * time.Millisecond)
	if c := pair.exit(); c != 3 {
		t.Fatalf("pair exit %d after no", c)
	}
}

// A plain NIP-AB v1 source (no pin, payload nsec1) pairs with `hive join`:
// same SAS, join's offer verifies with the v1 rules (its extra device_pubkey
// field is ignored), and join makes a working profile out of the key.
func TestV1SourceWithHiveJoin(t *testing.T) {
	data := filepath.Join(t.TempDir(), "hub")
	hub := startProc(t, data, freeAddr(t)) // plain ws on loopback: a v1 source has no pin to give
	admin, err := identity.LoadKeyFile(filepath.Join(data, "admin.key"), nil)
	if err != nil {
		t.Fatal(err)
	}
	peer, uri := v1Source(t, hub.URL+"/pair")
	laptop := newCLI(t)
	join := laptop.start("join", uri, "--profile", "from-v1")
	peer.acceptOffer(10 * time.Second)
	if sas := join.next("sas")["sas"]; sas != peer.sas() {
		t.Fatalf("hive join shows %v, the v1 source %s", sas, peer.sas())
	}
	join.answer("y")
	peer.send(map[string]any{"type": "sas-confirm", "transcript_hash": peer.transcript(peer.pub, peer.peer)})
	peer.send(map[string]any{"type": "payload", "payload_type": "nsec", "payload": admin.Nsec()})
	if m := peer.recv(10 * time.Second); m["type"] != "complete" || m["success"] != true {
		t.Fatalf("v1 source: %v", m)
	}
	done := join.next("done")
	if done["device"] != admin.PublicHex || done["hub"] != hub.URL {
		t.Fatalf("join: %v", done)
	}
	if c := join.exit(); c != 0 {
		t.Fatalf("join exit %d: %s", c, join.errors())
	}
	if pr := profileOf(t, laptop, "from-v1"); pr.Hubs[0] != hub.URL || pr.Attestation != "" {
		t.Fatalf("profile %+v", pr)
	}

	// A source whose transcript does not match (another key in the middle):
	// join aborts with sas_mismatch and uses nothing, though its human said yes.
	peer, uri = v1Source(t, hub.URL+"/pair")
	laptop = newCLI(t)
	join = laptop.start("join", uri)
	peer.acceptOffer(10 * time.Second)
	join.next("sas")
	join.answer("y")
	peer.send(map[string]any{"type": "sas-confirm", "transcript_hash": strings.Repeat("ab", 32)})
	peer.send(map[string]any{"type": "payload", "payload_type": "nsec", "payload": admin.Nsec()})
	if m := peer.recv(10 * time.Second); m["type"] != "abort" || m["reason"] != "sas_mismatch" {
		t.Fatalf("v1 source got %v, want abort sas_mismatch", m)
	}
	if ev := join.next("error"); !hasSubstr(ev["error"].(string), "SAS mismatch") {
		t.Fatalf("join: %v", ev)
	}
	if c := join.exit(); c != 3 {
		t.Fatalf("join exit %d", c)
	}
	noProfiles(t, laptop)
}

// The QR race: whoever offers first wins the source, so a man in the middle
// who read the code sees the source's SAS while the real device shows
// another one; the humans say no. A stranger's abort before any offer, a
// second target's offer and a replayed offer change nothing.
func TestPairQRRace(t *testing.T) {
	h := startPairingHub(t)

	// A man in the middle offers first.
	pair := h.owner.start("pair")
	uri := pair.next("uri")["uri"].(string)
	mitm := v1Target(t, uri)
	sasPair := pair.next("sas")["sas"]
	if sasPair != mitm.sas() {
		t.Fatalf("the source did not lock to the first offer: %v vs %s", sasPair, mitm.sas())
	}
	laptop := newCLI(t)
	join := laptop.start("join", uri)
	if sasJoin := join.next("sas")["sas"]; sasJoin == sasPair {
		t.Fatalf("the real device shows the source's SAS %v through a man in the middle", sasJoin)
	}
	mitm.replay()
	pair.quiet(300 * time.Millisecond)
	pair.answer("n")
	join.answer("n")
	if m := mitm.recv(10 * time.Second); m["type"] != "abort" || m["reason"] != "user_denied" {
		t.Fatalf("man in the middle got %v", m)
	}
	pair.next("error")
	join.next("error")
	noProfiles(t, laptop)

	// A stranger's early abort is ignored; a second target is ignored.
	pair = h.owner.start("pair")
	uri = pair.next("uri")["uri"].(string)
	stranger := v1Stranger(t, uri)
	pair.quiet(500 * time.Millisecond)
	laptop = newCLI(t)
	join = laptop.start("join", uri, "--profile", "real")
	sasJoin := join.next("sas")["sas"]
	if sasPair := pair.next("sas")["sas"]; sasPair != sasJoin {
		t.Fatalf("pair %v join %v", sasPair, sasJoin)
	}
	second := v1Target(t, uri)
	join.answer("y")
	pair.answer("y")
	pair.next("done")
	join.next("done")
	if pc, jc := pair.exit(), join.exit(); pc != 0 || jc != 0 {
		t.Fatalf("exit codes %d %d", pc, jc)
	}
	second.quiet(300 * time.Millisecond)
	stranger.quiet(100 * time.Millisecond)
	profileOf(t, laptop, "real")
}
