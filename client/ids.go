package client

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/nbd-wtf/go-nostr"
)

// shortIDScan is how many of the newest rows a short id is looked up in.
const shortIDScan = 2000

// ResolveID turns an event id, or the short prefix of one that `hive read`
// and `hive tail` print (at least 4 hex digits), into the full id: a prefix
// must match exactly one of the newest timeline rows the member can read.
func (c *Client) ResolveID(ctx context.Context, s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if !isHex(s) || len(s) < 4 || len(s) > 64 {
		return "", wrap(ErrInvalid, fmt.Errorf("%q is not an event id (64 hex digits, or a prefix of at least 4 that read and tail print)", s))
	}
	if len(s) == 64 {
		return s, nil
	}
	evs, err := c.Query(ctx, nostr.Filter{Kinds: TimelineKinds(), Limit: shortIDScan})
	if err != nil {
		return "", err
	}
	var found []string
	for _, e := range evs {
		if strings.HasPrefix(e.ID, s) {
			found = append(found, e.ID)
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return "", wrap(ErrNotFound, fmt.Errorf("no message with an id starting %s among the newest %d you can read: give the full id", s, shortIDScan))
	}
	return "", wrap(ErrDuplicate, errors.New("id prefix "+s+" is ambiguous: "+strings.Join(found, ", ")))
}

func isHex(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f') {
			return false
		}
	}
	return true
}
