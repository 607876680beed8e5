package relay

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mailru/easyjson"
	"github.com/nbd-wtf/go-nostr"
	"github.com/tidwall/gjson"
)

// clientMsg is one parsed client-to-relay message.
type clientMsg struct {
	label   string // EVENT, REQ, CLOSE, COUNT, AUTH
	subID   string
	event   *nostr.Event
	filters []nostr.Filter
}

// parseClientMessage parses and checks the shape of a client message strictly:
// the right number of elements, the right JSON types, and no filter field hive
// would otherwise ignore. Errors are written for the client to read.
func parseClientMessage(data []byte) (clientMsg, error) {
	if !gjson.ValidBytes(data) {
		return clientMsg{}, errors.New("message is not valid JSON")
	}
	// JSON text is UTF-8 (RFC 8259) and gjson does not check it: invalid bytes
	// inside a string would reach ids, filters and stored tags unchanged.
	if !utf8.Valid(data) {
		return clientMsg{}, errors.New("message is not valid UTF-8")
	}
	root := gjson.ParseBytes(data)
	if !root.IsArray() {
		return clientMsg{}, errors.New("message must be a JSON array")
	}
	arr := root.Array()
	if len(arr) == 0 || arr[0].Type != gjson.String {
		return clientMsg{}, errors.New("message must start with a string label")
	}
	m := clientMsg{label: arr[0].Str}
	switch m.label {
	case "EVENT", "AUTH":
		if len(arr) != 2 || !arr[1].IsObject() {
			return m, fmt.Errorf("%s takes exactly one event object", m.label)
		}
		ev, err := parseEvent(arr[1])
		if err != nil {
			return m, err
		}
		m.event = ev
	case "REQ", "COUNT":
		if len(arr) < 3 {
			return m, fmt.Errorf("%s needs a subscription id and at least one filter", m.label)
		}
		if arr[1].Type != gjson.String || arr[1].Str == "" {
			return m, errors.New("subscription id must be a non-empty string")
		}
		m.subID = arr[1].Str
		for i, raw := range arr[2:] {
			f, err := parseFilter(raw)
			if err != nil {
				return m, fmt.Errorf("filter %d: %w", i, err)
			}
			m.filters = append(m.filters, f)
		}
	case "CLOSE":
		if len(arr) != 2 || arr[1].Type != gjson.String {
			return m, errors.New("CLOSE takes exactly one subscription id")
		}
		m.subID = arr[1].Str
	default:
		return m, fmt.Errorf("unknown message type %q", truncate(m.label, 32))
	}
	return m, nil
}

// eventFields are the NIP-01 event fields and the JSON type of each.
var eventFields = [...]struct {
	name string
	typ  gjson.Type
}{
	{"id", gjson.String}, {"pubkey", gjson.String}, {"created_at", gjson.Number}, {"kind", gjson.Number},
	{"tags", gjson.JSON}, {"content", gjson.String}, {"sig", gjson.String},
}

// parseEvent checks an event object's shape and builds the event from it. An
// unknown field is ignored: NIP-01 clients may add fields, and the event built
// here (what is verified, stored and relayed) holds only the NIP-01 ones.
func parseEvent(obj gjson.Result) (*nostr.Event, error) {
	var bad error
	var seen uint8 // bit i: eventFields[i] was present
	ev := &nostr.Event{}
	obj.ForEach(func(k, v gjson.Result) bool {
		i := 0
		for i < len(eventFields) && eventFields[i].name != k.Str {
			i++
		}
		if i == len(eventFields) {
			return true // NIP-01 allows extra fields; they are not part of the id
		}
		// A repeated field must not stand in for a missing one, nor pass the
		// checks in one copy and be used in another.
		if seen&(1<<i) != 0 {
			bad = fmt.Errorf("event field %q appears more than once", k.Str)
			return false
		}
		seen |= 1 << i
		if k.Str == "tags" {
			ev.Tags, bad = parseTags(v)
			return bad == nil
		}
		t := eventFields[i].typ
		if v.Type != t {
			bad = fmt.Errorf("event field %q has the wrong type", k.Str)
			return false
		}
		if t == gjson.Number {
			n, err := strconv.ParseUint(v.Raw, 10, 63)
			if err != nil {
				bad = fmt.Errorf("event field %q must be a non-negative integer", k.Str)
				return false
			}
			if k.Str == "kind" {
				ev.Kind = int(n) // validate checks the range
			} else {
				ev.CreatedAt = nostr.Timestamp(n)
			}
			return true
		}
		switch k.Str {
		case "id":
			ev.ID = v.Str
		case "pubkey":
			ev.PubKey = v.Str
		case "content":
			ev.Content = v.Str
		case "sig":
			ev.Sig = v.Str
		}
		return true
	})
	if bad != nil {
		return nil, bad
	}
	if seen != 1<<len(eventFields)-1 {
		return nil, errors.New("event must have id, pubkey, created_at, kind, tags, content and sig")
	}
	return ev, nil
}

// parseTags reads an event's tags: an array of arrays of strings.
func parseTags(v gjson.Result) (nostr.Tags, error) {
	errShape := errors.New("event tags must be an array of arrays of strings")
	if !v.IsArray() {
		return nil, errShape
	}
	tags := nostr.Tags{}
	ok := true
	v.ForEach(func(_, tag gjson.Result) bool {
		if !tag.IsArray() {
			ok = false
			return false
		}
		t := nostr.Tag{}
		tag.ForEach(func(_, s gjson.Result) bool {
			if s.Type != gjson.String {
				ok = false
				return false
			}
			t = append(t, s.Str)
			return true
		})
		tags = append(tags, t)
		return ok
	})
	if !ok {
		return nil, errShape
	}
	return tags, nil
}

func parseFilter(obj gjson.Result) (nostr.Filter, error) {
	if !obj.IsObject() {
		return nostr.Filter{}, errors.New("a filter must be a JSON object")
	}
	var bad error
	var seen uint64 // one bit per field: the decoder keeps the last copy of a key
	obj.ForEach(func(k, v gjson.Result) bool {
		key := k.Str
		if b := filterFieldBit(key); b != 0 {
			if seen&b != 0 {
				bad = fmt.Errorf("filter field %q appears more than once", key)
				return false
			}
			seen |= b
		}
		switch {
		case key == "ids" || key == "authors":
			bad = checkStrings(key, v, 64)
		case key == "kinds":
			if !v.IsArray() {
				bad = errors.New(`"kinds" must be an array of integers`)
				break
			}
			v.ForEach(func(_, n gjson.Result) bool {
				if n.Type != gjson.Number || !isUint(n.Raw) || n.Int() > 65535 {
					bad = errors.New(`"kinds" must hold integers from 0 to 65535`)
				}
				return bad == nil
			})
		case key == "since" || key == "until" || key == "limit":
			if v.Type != gjson.Number || !isUint(v.Raw) {
				bad = fmt.Errorf("%q must be a non-negative integer", key)
			}
		case key == "search":
			switch {
			case v.Type != gjson.String:
				bad = errors.New(`"search" must be a string`)
			case strings.TrimSpace(v.Str) == "":
				bad = errors.New(`"search" is empty: give the words to look for`)
			}
		case len(key) == 2 && key[0] == '#' && isLetter(key[1]):
			bad = checkStrings(key, v, 0)
		case len(key) > 0 && key[0] == '#':
			bad = fmt.Errorf("tag filter %q must name a single letter a-z or A-Z", truncate(key, 32))
		default:
			bad = fmt.Errorf("unknown filter field %q", truncate(key, 32))
		}
		return bad == nil
	})
	if bad != nil {
		return nostr.Filter{}, bad
	}
	var f nostr.Filter
	if err := easyjson.Unmarshal([]byte(obj.Raw), &f); err != nil {
		return f, fmt.Errorf("filter does not decode: %v", err)
	}
	return f, nil
}

// filterFieldBit gives each filter field hive accepts its own bit, 0 for others.
func filterFieldBit(key string) uint64 {
	switch key {
	case "ids":
		return 1 << 0
	case "authors":
		return 1 << 1
	case "kinds":
		return 1 << 2
	case "since":
		return 1 << 3
	case "until":
		return 1 << 4
	case "limit":
		return 1 << 5
	case "search":
		return 1 << 58
	}
	if len(key) == 2 && key[0] == '#' {
		switch c := key[1]; {
		case c >= 'a' && c <= 'z':
			return 1 << (6 + c - 'a')
		case c >= 'A' && c <= 'Z':
			return 1 << (32 + c - 'A')
		}
	}
	return 0
}

// checkStrings checks an array of strings; hexLen > 0 asks for lowercase hex of that length.
func checkStrings(key string, v gjson.Result, hexLen int) error {
	if !v.IsArray() {
		return fmt.Errorf("%q must be an array of strings", key)
	}
	var bad error
	v.ForEach(func(_, s gjson.Result) bool {
		switch {
		case s.Type != gjson.String:
			bad = fmt.Errorf("%q must be an array of strings", key)
		case hexLen > 0 && !isHex(s.Str, hexLen):
			bad = fmt.Errorf("%q must hold %d-character lowercase hex strings", key, hexLen)
		}
		return bad == nil
	})
	return bad
}

func isUint(raw string) bool {
	_, err := strconv.ParseUint(raw, 10, 63)
	return err == nil
}

func isLetter(b byte) bool { return (b >= 'a' && b <= 'z') || (b >= 'A' && b <= 'Z') }

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
			return false
		}
	}
	return true
}
