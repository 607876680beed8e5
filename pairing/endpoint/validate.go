package endpoint

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/ainb/hive/pairing"
	"github.com/nbd-wtf/go-nostr"
)

// eventKeys are the only members an event object may have.
var eventKeys = map[string]bool{"id": true, "pubkey": true, "created_at": true, "kind": true, "tags": true, "content": true, "sig": true}

// parseEvent checks an EVENT's object strictly (before the costly
// signature check) and returns it with its one p value. The refusal is an
// OK message starting with a NIP-01 prefix.
func parseEvent(raw json.RawMessage, now time.Time, freshness time.Duration) (*nostr.Event, string, string) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil, "", "invalid: the event is not a JSON object"
	}
	for k := range fields {
		if !eventKeys[k] {
			return nil, "", "invalid: unknown event field " + strconv.Quote(k)
		}
	}
	if len(fields) != len(eventKeys) {
		return nil, "", "invalid: an event needs id, pubkey, created_at, kind, tags, content and sig"
	}
	var ev nostr.Event
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&ev); err != nil {
		return nil, "", "invalid: " + err.Error()
	}
	if !lowerHex(ev.ID, 64) || !lowerHex(ev.PubKey, 64) {
		return nil, "", "invalid: id and pubkey must be 64 lowercase hex characters"
	}
	if ev.Kind != pairing.Kind {
		return nil, "", fmt.Sprintf("invalid: this endpoint only relays kind %d", pairing.Kind)
	}
	if d := now.Sub(ev.CreatedAt.Time()); d > freshness || d < -freshness {
		return nil, "", fmt.Sprintf("invalid: event creation date must be within %d s of now", int(freshness/time.Second))
	}
	ct, err := base64.StdEncoding.DecodeString(ev.Content)
	if err != nil || len(ct) < 99 || ct[0] != 2 {
		return nil, "", "invalid: content must be a NIP-44 v2 ciphertext"
	}
	if !lowerHex(ev.Sig, 128) {
		return nil, "", "invalid: sig must be 128 lowercase hex characters"
	}
	if len(ev.Tags) != 1 || len(ev.Tags[0]) != 2 || ev.Tags[0][0] != "p" || !lowerHex(ev.Tags[0][1], 64) {
		return nil, "", `invalid: tags must be exactly [["p", <64 lowercase hex>]]`
	}
	return &ev, ev.Tags[0][1], ""
}

// verify recomputes the id and checks the BIP-340 signature.
func verify(ev *nostr.Event) string {
	if !ev.CheckID() {
		return "invalid: id does not match the event"
	}
	if ok, _ := ev.CheckSignature(); !ok {
		return "invalid: bad signature"
	}
	return ""
}

// parseFilter accepts exactly {"kinds":[24134],"#p":[<64 lc hex>]}
// (kinds may be left out) and returns the p value.
func parseFilter(raw json.RawMessage) (string, string) {
	var f map[string]json.RawMessage
	if err := json.Unmarshal(raw, &f); err != nil {
		return "", "invalid: a filter is a JSON object"
	}
	for k := range f {
		if k != "kinds" && k != "#p" {
			return "", "invalid: only kinds and #p are allowed in a pairing filter, not " + strconv.Quote(k)
		}
	}
	if k, ok := f["kinds"]; ok {
		var kinds []int
		if json.Unmarshal(k, &kinds) != nil || len(kinds) != 1 || kinds[0] != pairing.Kind {
			return "", fmt.Sprintf("invalid: kinds must be [%d]", pairing.Kind)
		}
	}
	var ps []string
	if json.Unmarshal(f["#p"], &ps) != nil || len(ps) != 1 || !lowerHex(ps[0], 64) {
		return "", "invalid: #p must hold exactly one 64-character lowercase hex key"
	}
	return ps[0], ""
}

func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < n; i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
