package client

import (
	"fmt"
	"strings"
)

// ChannelIDFor derives a channel id from a display name: lower case
// letters, digits, _ . - kept, spaces as -, the rest dropped, at most 64.
func ChannelIDFor(name string) string {
	id := strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r == ' ':
			return '-'
		}
		return -1
	}, name)
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}

// CheckChannelID says what is wrong with a channel id, or nil: 1-64 of
// A-Z a-z 0-9 _ . -
func CheckChannelID(id string) error {
	ok := len(id) >= 1 && len(id) <= 64 && strings.IndexFunc(id, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-')
	}) < 0
	if !ok {
		return fmt.Errorf("channel id %q: use 1-64 of A-Z a-z 0-9 _ . -", id)
	}
	return nil
}
