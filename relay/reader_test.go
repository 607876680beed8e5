package relay

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gorilla/websocket"
	"github.com/nbd-wtf/go-nostr"
)

// clientFrame renders a client frame; masked with a key that changes every
// byte, as RFC 6455 asks, unless masked is false.
func clientFrame(op byte, fin, masked bool, payload []byte) []byte {
	b := []byte{op, 0}
	if fin {
		b[0] |= 0x80
	}
	switch n := len(payload); {
	case n < 126:
		b[1] = byte(n)
	case n <= 0xFFFF:
		b[1] = 126
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b[1] = 127
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	if !masked {
		return append(b, payload...)
	}
	b[1] |= 0x80
	key := [4]byte{0x5a, 0xc3, 0x17, 0xe9}
	b = append(b, key[:]...)
	for i, c := range payload {
		b = append(b, c^key[i&3])
	}
	return b
}

// The relay reads frames itself: a message in fragments with a ping between
// them is one message and the ping gets its pong; a long message (16-bit
// length) arrives whole; an unmasked frame closes the connection with the
// rule it broke.
func TestFramesRead(t *testing.T) {
	_, url := memberHub(t, Config{})
	sk := nostr.GeneratePrivateKey()
	ws, why := authed(t, url, sk)
	if why != "" {
		t.Fatalf("AUTH refused: %s", why)
	}
	pongs := make(chan string, 1)
	ws.SetPongHandler(func(s string) error { pongs <- s; return nil })
	raw := ws.UnderlyingConn()
	req := `["REQ","frag",{"kinds":[1],"limit":1,"#t":["` + strings.Repeat("x", 300) + `"]}]`
	var in []byte
	in = append(in, clientFrame(websocket.TextMessage, false, true, []byte(req[:100]))...)
	in = append(in, clientFrame(websocket.PingMessage, true, true, []byte("are you there"))...)
	in = append(in, clientFrame(0, false, true, []byte(req[100:200]))...)
	in = append(in, clientFrame(0, true, true, []byte(req[200:]))...)
	for len(in) > 0 { // a few bytes at a time: frames split across reads
		n := min(7, len(in))
		if _, err := raw.Write(in[:n]); err != nil {
			t.Fatal(err)
		}
		in = in[n:]
		time.Sleep(time.Millisecond)
	}
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, msg, err := ws.ReadMessage()
	if err != nil {
		t.Fatal(err)
	}
	if string(msg) != `["EOSE","frag"]` {
		t.Fatalf("after the fragmented REQ: %s", msg)
	}
	select {
	case p := <-pongs:
		if p != "are you there" {
			t.Fatalf("pong %q", p)
		}
	default:
		t.Fatal("no pong for the ping between the fragments")
	}

	refused(t, ws, clientFrame(websocket.TextMessage, true, false, []byte(`["CLOSE","frag"]`)), "a client's frames must be masked")
	ws, _ = authed(t, url, sk)
	refused(t, ws, clientFrame(0, true, true, []byte(`["CLOSE","frag"]`)), "continuation frame outside a message")
	ws, _ = authed(t, url, sk)
	refused(t, ws, append(clientFrame(websocket.TextMessage, false, true, []byte(`["CLO`)),
		clientFrame(websocket.TextMessage, true, true, []byte(`SE","frag"]`))...), "a new message inside a fragmented one")
}

// refused writes frames on ws and expects the hub to close it for breaking rule.
func refused(t *testing.T, ws *websocket.Conn, frames []byte, rule string) {
	t.Helper()
	ws.UnderlyingConn().Write(frames)
	ws.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _, err := ws.ReadMessage()
	var ce *websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.CloseProtocolError || ce.Text != "invalid: websocket frame: "+rule {
		t.Fatalf("after a frame that breaks %q: %v", rule, err)
	}
}
