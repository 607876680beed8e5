package relay

import (
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// validate checks what every event must satisfy before any policy sees it. It
// returns a NIP-01 prefixed refusal, or "".
func (r *Relay) validate(ev *nostr.Event) string {
	switch {
	case !isHex(ev.ID, 64):
		return "invalid: id must be 64 lowercase hex characters"
	case !isHex(ev.PubKey, 64):
		return "invalid: pubkey must be 64 lowercase hex characters"
	case !isHex(ev.Sig, 128):
		return "invalid: sig must be 128 lowercase hex characters"
	case ev.Kind < 0 || ev.Kind > 65535:
		return "invalid: kind must be between 0 and 65535"
	case len(ev.Tags) > r.cfg.MaxEventTags:
		return fmt.Sprintf("invalid: more than %d tags", r.cfg.MaxEventTags)
	case len(ev.Content) > r.cfg.MaxContentBytes:
		return fmt.Sprintf("invalid: content longer than %d bytes", r.cfg.MaxContentBytes)
	}
	if limit := time.Now().Add(r.cfg.MaxFutureSkew).Unix(); int64(ev.CreatedAt) > limit {
		return fmt.Sprintf("invalid: created_at is more than %s in the future", r.cfg.MaxFutureSkew)
	}
	for _, t := range ev.Tags {
		if len(t) == 0 {
			return "invalid: empty tag"
		}
	}
	if !ev.CheckID() {
		return "invalid: id does not match the event's serialization"
	}
	if ok, err := ev.CheckSignature(); err != nil || !ok {
		return "invalid: bad signature"
	}
	return ""
}
