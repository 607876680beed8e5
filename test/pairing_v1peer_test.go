package test

// A NIP-AB v1 peer written from the protocol text alone: it knows nothing
// of hive's profile (no pin, no device key, no custom payload) and does not
// import hive's pairing package, so that `hive pair` and `hive join` are
// checked against an independent implementation of the same rules.

import (
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip44"
)

const v1Kind = 24134

type v1Peer struct {
	t       *testing.T
	sk, pub string
	peer    string
	secret  []byte
	conv    [32]byte
	sasIn   []byte
	ws      *websocket.Conn
	in      chan *nostr.Event
	last    nostr.Event // the last event sent
}

func v1HKDF(ikm, salt []byte, info string) []byte {
	k, err := hkdf.Key(sha256.New, ikm, salt, info, 32)
	if err != nil {
		panic(err)
	}
	return k
}

// v1ECDH is the raw x-coordinate of sk·P (P = the even-y point of pubHex).
func v1ECDH(skHex, pubHex string) []byte {
	skb, _ := hex.DecodeString(skHex)
	priv, _ := btcec.PrivKeyFromBytes(skb)
	pb, _ := hex.DecodeString("02" + pubHex)
	pub, err := btcec.ParsePubKey(pb)
	if err != nil {
		panic(err)
	}
	return btcec.GenerateSharedSecret(priv, pub)
}

func newV1Peer(t *testing.T, relay string) *v1Peer {
	t.Helper()
	p := &v1Peer{t: t, sk: nostr.GeneratePrivateKey(), in: make(chan *nostr.Event, 16)}
	p.pub, _ = nostr.GetPublicKey(p.sk)
	// A plain v1 peer knows nothing of hive's pin: it skips certificate
	// checks here (the test hub's certificate is self-signed).
	d := websocket.Dialer{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, HandshakeTimeout: 5 * time.Second}
	ws, _, err := d.Dial(relay, nil)
	if err != nil {
		t.Fatalf("v1 peer: connecting to %s: %v", relay, err)
	}
	p.ws = ws
	t.Cleanup(func() { ws.Close() })
	eose := make(chan struct{})
	go func() {
		for {
			var m []json.RawMessage
			if ws.ReadJSON(&m) != nil {
				return
			}
			var label string
			json.Unmarshal(m[0], &label)
			switch label {
			case "EOSE":
				close(eose)
			case "EVENT":
				var ev nostr.Event
				json.Unmarshal(m[2], &ev)
				p.in <- &ev
			}
		}
	}()
	ws.WriteJSON([]any{"REQ", "pair", map[string]any{"kinds": []int{v1Kind}, "#p": []string{p.pub}}})
	select {
	case <-eose:
	case <-time.After(5 * time.Second):
		t.Fatal("v1 peer: no EOSE")
	}
	return p
}

// setPeer fixes the other side and the NIP-44 v2 conversation key.
func (p *v1Peer) setPeer(pub string) {
	p.peer = pub
	ck, err := nip44.GenerateConversationKey(pub, p.sk)
	if err != nil {
		p.t.Fatal(err)
	}
	p.conv = ck
	p.sasIn = v1HKDF(v1ECDH(p.sk, pub), p.secret, "nostr-pair-sas-v1")
}

func (p *v1Peer) sas() string {
	b := p.sasIn
	return fmt.Sprintf("%06d", (uint32(b[0])<<24|uint32(b[1])<<16|uint32(b[2])<<8|uint32(b[3]))%1000000)
}

func (p *v1Peer) sessionID() string {
	return hex.EncodeToString(v1HKDF(p.secret, nil, "nostr-pair-session-id"))
}

func (p *v1Peer) transcript(sourcePub, targetPub string) string {
	sid := v1HKDF(p.secret, nil, "nostr-pair-session-id")
	sp, _ := hex.DecodeString(sourcePub)
	tp, _ := hex.DecodeString(targetPub)
	t := append(append(append(append([]byte{}, sid...), sp...), tp...), p.sasIn...)
	return hex.EncodeToString(v1HKDF(t, p.secret, "nostr-pair-transcript-v1"))
}

// send encrypts msg to the peer and publishes it.
func (p *v1Peer) send(msg map[string]any) {
	p.t.Helper()
	b, _ := json.Marshal(msg)
	ct, err := nip44.Encrypt(string(b), p.conv)
	if err != nil {
		p.t.Fatal(err)
	}
	ev := nostr.Event{Kind: v1Kind, CreatedAt: nostr.Now() - 5, Tags: nostr.Tags{{"p", p.peer}}, Content: ct}
	ev.Sign(p.sk)
	p.last = ev
	p.ws.WriteJSON([]any{"EVENT", ev})
}

// replay sends the last event again, byte for byte.
func (p *v1Peer) replay() { p.ws.WriteJSON([]any{"EVENT", p.last}) }

// quiet asserts that nothing arrives for the peer within d.
func (p *v1Peer) quiet(d time.Duration) {
	p.t.Helper()
	select {
	case ev := <-p.in:
		p.t.Fatalf("v1 peer: unexpected event from %s", ev.PubKey)
	case <-time.After(d):
	}
}

// recv returns the next decrypted message from the peer.
func (p *v1Peer) recv(within time.Duration) map[string]any {
	p.t.Helper()
	deadline := time.After(within)
	for {
		select {
		case ev := <-p.in:
			if ok, _ := ev.CheckSignature(); !ok || ev.Kind != v1Kind {
				continue
			}
			if p.peer == "" {
				p.setPeer(ev.PubKey)
			}
			if ev.PubKey != p.peer {
				continue
			}
			plain, err := nip44.Decrypt(ev.Content, p.conv)
			if err != nil {
				continue
			}
			var m map[string]any
			json.Unmarshal([]byte(plain), &m)
			return m
		case <-deadline:
			p.t.Fatal("v1 peer: nothing received")
		}
	}
}

// v1Target scans uri: it offers, and returns with its SAS computed.
func v1Target(t *testing.T, uri string) *v1Peer {
	t.Helper()
	rest := strings.TrimPrefix(uri, "nostrpair://")
	pk, query, _ := strings.Cut(rest, "?")
	vals := map[string]string{}
	for _, kv := range strings.Split(query, "&") {
		k, v, _ := strings.Cut(kv, "=")
		if _, seen := vals[k]; !seen {
			vals[k], _ = url.PathUnescape(v)
		}
	}
	p := newV1Peer(t, vals["relay"])
	p.secret, _ = hex.DecodeString(vals["secret"])
	p.setPeer(pk)
	p.send(map[string]any{"type": "offer", "version": 1, "session_id": p.sessionID()})
	return p
}

// v1Stranger has read uri but only sends an abort to the source.
func v1Stranger(t *testing.T, uri string) *v1Peer {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	q, _ := url.ParseQuery(u.RawQuery)
	p := newV1Peer(t, q.Get("relay"))
	p.secret, _ = hex.DecodeString(q.Get("secret"))
	p.setPeer(u.Host)
	p.send(map[string]any{"type": "abort", "reason": "user_denied"})
	return p
}

// v1Source opens a session on relay and returns its URI.
func v1Source(t *testing.T, relay string) (*v1Peer, string) {
	t.Helper()
	p := newV1Peer(t, relay)
	p.secret = make([]byte, 32)
	rand.Read(p.secret)
	uri := "nostrpair://" + p.pub + "?secret=" + hex.EncodeToString(p.secret) + "&relay=" + url.QueryEscape(relay) + "&v=1"
	return p, uri
}

// acceptOffer waits for the target's offer and checks its session id.
func (p *v1Peer) acceptOffer(within time.Duration) {
	p.t.Helper()
	m := p.recv(within)
	if m["type"] != "offer" || m["session_id"] != p.sessionID() {
		p.t.Fatalf("v1 source: not a valid offer: %v", m)
	}
}

func TestV1PeerReproducesTheVectors(t *testing.T) {
	p := &v1Peer{t: t, sk: "3a5b7c9d1e3f5a7b9c1d3e5f7a9b1c3d5e7f9a1b3c5d7e9f1a3b5c7d9e1f3a5b"}
	p.secret, _ = hex.DecodeString("a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b2")
	src := "199e64ca60662cb2d6e91d16cb065be51ad74a6ee5f8c5b0fdc53d246611ed9a"
	p.pub, _ = nostr.GetPublicKey(p.sk)
	p.setPeer(src)
	if p.sas() != "863346" || p.transcript(src, p.pub) != "d662818ff8911fc60a2d025f8b8b4756107104e85888dd202d28db5ca2cf28d3" {
		t.Fatalf("v1 peer: sas %s transcript %s", p.sas(), p.transcript(src, p.pub))
	}
}
