package test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/pairing"
	"github.com/nbd-wtf/go-nostr"
)

// The real hub serves the pairing endpoint on /pair next to itself: no
// AUTH there, only kind 24134 with one p, nobody can take over a live
// session's key, nothing is stored; the hub proper still asks for AUTH.
func TestPairEndpointOnTheHub(t *testing.T) {
	hub := startProc(t, t.TempDir(), freeAddr(t))
	pairURL := hub.URL + "/pair"
	if resp, err := http.Get("http://" + hub.addr + "/pair"); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("plain GET /pair: %v %v", resp, err)
	}
	// The hub proper still starts with a NIP-42 challenge.
	dialRaw(t, hub.URL).expect("AUTH")

	src, u, err := pairing.NewSource([]string{pairURL}, "", pairing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	owner := dialRaw(t, pairURL)
	owner.send([]any{"REQ", "s", map[string]any{"kinds": []int{pairing.Kind}, "#p": []string{src.PublicKey()}}})
	owner.expect("EOSE")

	// A stranger who read the code cannot subscribe to the source's key.
	squatter := dialRaw(t, pairURL)
	squatter.send([]any{"REQ", "x", map[string]any{"#p": []string{src.PublicKey()}}})
	if m := squatter.expect("CLOSED"); !strings.HasPrefix(str(m[2]), "duplicate:") {
		t.Fatalf("squatter: %s", m[2])
	}
	// Only kind 24134 with exactly one p.
	k := newKey(t)
	ok, msg := squatter.publish(k.sign(t, 1, "hello", nostr.Tag{"p", src.PublicKey()}))
	if ok || !strings.HasPrefix(msg, "invalid:") {
		t.Fatalf("kind 1 on /pair: %v %q", ok, msg)
	}
	// An offer is delivered to the one live subscriber, and is not stored:
	// a later subscriber to the same key (after the first left) gets nothing.
	_, offer, _ := pairing.NewTarget(u, "", pairing.Options{})
	if ok, msg := squatter.publish(offer); !ok {
		t.Fatalf("offer refused: %s", msg)
	}
	if m := owner.expect("EVENT"); !strings.Contains(string(m[2]), offer.ID) {
		t.Fatalf("delivered %s", m[2])
	}
	owner.ws.Close()
	late := dialRaw(t, pairURL)
	// the key is free once the endpoint has seen the owner leave (until
	// then a second subscriber is refused as a duplicate)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		late.send([]any{"REQ", "l", map[string]any{"#p": []string{src.PublicKey()}}})
		m := late.next(5 * time.Second)
		for str(m[0]) == "AUTH" {
			m = late.next(5 * time.Second)
		}
		if str(m[0]) == "EOSE" {
			break
		}
		if str(m[0]) != "CLOSED" || !strings.HasPrefix(str(m[2]), "duplicate:") || time.Now().After(deadline) {
			t.Fatalf("REQ of a later subscriber: %s", m)
		}
	}
	late.ws.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, b, err := late.ws.ReadMessage(); err == nil {
		t.Fatalf("a late subscriber got %s", b)
	}
}

// hive join refuses to overwrite a profile before it contacts anything.
func TestJoinProfileTaken(t *testing.T) {
	laptop := newCLI(t)
	laptop.ok("profile", "add", "taken", "--hub", "ws://127.0.0.1:1", "--new-key")
	_, u, err := pairing.NewSource([]string{"ws://127.0.0.1:1/pair"}, "", pairing.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, errOut, code := laptop.run("join", u.String(), "--profile", "taken")
	if code != 5 || !hasSubstr(errOut, "exists already") || !hasSubstr(errOut, "--force") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
}
