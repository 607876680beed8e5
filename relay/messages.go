package relay

import (
	"encoding/json"
	"strconv"

	"github.com/nbd-wtf/go-nostr"
)

// Relay-to-client messages, rendered once to bytes.

func jsonString(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

func notice(msg string) []byte {
	return append(append([]byte(`["NOTICE",`), jsonString(msg)...), ']')
}

func okMsg(id string, ok bool, reason string) []byte {
	b := append([]byte(`["OK",`), jsonString(id)...)
	b = append(b, ',')
	b = strconv.AppendBool(b, ok)
	b = append(b, ',')
	b = append(b, jsonString(reason)...)
	return append(b, ']')
}

func eose(subID string) []byte {
	return append(append([]byte(`["EOSE",`), jsonString(subID)...), ']')
}

func closedMsg(subID, reason string) []byte {
	b := append([]byte(`["CLOSED",`), jsonString(subID)...)
	b = append(b, ',')
	b = append(b, jsonString(reason)...)
	return append(b, ']')
}

func countMsg(subID string, n int64) []byte {
	b := append([]byte(`["COUNT",`), jsonString(subID)...)
	b = append(b, `,{"count":`...)
	b = strconv.AppendInt(b, n, 10)
	return append(b, "}]"...)
}

func authChallenge(ch string) []byte {
	return append(append([]byte(`["AUTH",`), jsonString(ch)...), ']')
}

// eventMsg renders ["EVENT",<sub>,<event>] from a pre-rendered prefix and event JSON.
func eventMsg(prefix, evJSON []byte) []byte {
	b := make([]byte, 0, len(prefix)+len(evJSON)+1)
	b = append(b, prefix...)
	b = append(b, evJSON...)
	return append(b, ']')
}

func eventPrefix(subID string) []byte {
	return append(append([]byte(`["EVENT",`), jsonString(subID)...), ',')
}

func encodeEvent(ev *nostr.Event) []byte {
	b, _ := ev.MarshalJSON()
	return b
}
