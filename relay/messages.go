package relay

import (
	"encoding/json"
	"strconv"

	"github.com/nbd-wtf/go-nostr"
)

// Relay-to-client messages, each rendered once into a complete websocket
// frame, ready for the socket.

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// Websocket opcodes (RFC 6455 section 5.2) with FIN set.
const (
	opText  = 0x81
	opClose = 0x88
	opPing  = 0x89
	opPong  = 0x8A
)

// frame renders parts, concatenated, as one unmasked websocket frame (a server
// never masks).
func frame(op byte, parts ...[]byte) []byte {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	b := appendHeader(make([]byte, 0, 10+n), op, n)
	for _, p := range parts {
		b = append(b, p...)
	}
	return b
}

// appendHeader appends the header of a frame with an n-byte payload.
func appendHeader(b []byte, op byte, n int) []byte {
	b = append(b, op)
	switch {
	case n < 126:
		return append(b, byte(n))
	case n <= 0xFFFF:
		return append(b, 126, byte(n>>8), byte(n))
	default:
		return append(b, 127, 0, 0, 0, 0, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
}

func text(parts ...[]byte) []byte { return frame(opText, parts...) }

// headArena renders the starts of text frames (header and prefix) of an
// n-byte payload that begins with prefix, the rest of the payload sent after
// it as is: the fan-out's heads of one event's frames, in a few shared chunks
// instead of one allocation each. A chunk stays alive while a queued frame
// still points into it.
type headArena struct{ buf []byte }

func (a *headArena) textHead(n int, prefix []byte) []byte {
	if need := 10 + len(prefix); cap(a.buf)-len(a.buf) < need {
		a.buf = make([]byte, 0, max(4<<10, need))
	}
	start := len(a.buf)
	a.buf = append(appendHeader(a.buf, opText, n), prefix...)
	return a.buf[start:len(a.buf):len(a.buf)]
}

var (
	closeBracket = []byte("]")
	comma        = []byte(",")
)

func notice(msg string) []byte {
	return text([]byte(`["NOTICE",`), jsonString(msg), closeBracket)
}

func okMsg(id string, ok bool, reason string) []byte {
	return text([]byte(`["OK",`), jsonString(id), comma, strconv.AppendBool(nil, ok), comma, jsonString(reason), closeBracket)
}

func eose(subID string) []byte {
	return text([]byte(`["EOSE",`), jsonString(subID), closeBracket)
}

func closedMsg(subID, reason string) []byte {
	return text([]byte(`["CLOSED",`), jsonString(subID), comma, jsonString(reason), closeBracket)
}

func countMsg(subID string, n int64) []byte {
	return text([]byte(`["COUNT",`), jsonString(subID), []byte(`,{"count":`), strconv.AppendInt(nil, n, 10), []byte("}]"))
}

func authChallenge(ch string) []byte {
	return text([]byte(`["AUTH",`), jsonString(ch), closeBracket)
}

func eventPrefix(subID string) []byte {
	return append(append([]byte(`["EVENT",`), jsonString(subID)...), ',')
}

func encodeEvent(ev *nostr.Event) []byte {
	b, _ := ev.MarshalJSON()
	return b
}
