package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ainb/hive/identity"
)

// The parsers and formats several commands share: durations, times, keys.

// maxDuration bounds --expires (NIP-OA timestamps end in 2106 anyway).
const maxDuration = 200 * 365 * 24 * time.Hour

// parseDuration reads durations like 30d, 12h, 90m, 45s or 1d12h.
func parseDuration(s string) (time.Duration, error) {
	orig := s
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty duration")
	}
	var total time.Duration
	for s != "" {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == 0 || i == len(s) {
			return 0, fmt.Errorf("%q is not a duration: use a number with unit s, m, h or d, e.g. 30d or 1d12h", orig)
		}
		n, err := strconv.ParseInt(s[:i], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%q: number too large", orig)
		}
		var unit time.Duration
		switch s[i] {
		case 's':
			unit = time.Second
		case 'm':
			unit = time.Minute
		case 'h':
			unit = time.Hour
		case 'd':
			unit = 24 * time.Hour
		default:
			return 0, fmt.Errorf("%q: unknown unit %q: use s, m, h or d", orig, s[i])
		}
		if n > int64(maxDuration/unit) {
			return 0, fmt.Errorf("%q: duration too large", orig)
		}
		total += time.Duration(n) * unit
		if total > maxDuration {
			return 0, fmt.Errorf("%q: duration too large", orig)
		}
		s = s[i+1:]
	}
	if total <= 0 {
		return 0, fmt.Errorf("%q: duration must be positive", orig)
	}
	return total, nil
}

// parseTime reads a unix time in seconds or an RFC 3339 time.
func parseTime(s string) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 {
			return 0, fmt.Errorf("%q: negative time", s)
		}
		return n, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a time: use now, none, unix seconds or RFC 3339 (2025-01-02T15:04:05Z)", s)
	}
	return t.Unix(), nil
}

// fmtTime is a unix time as RFC 3339 in UTC.
func fmtTime(t int64) string { return time.Unix(t, 0).UTC().Format(time.RFC3339) }

// npub is a hex key as npub.
func npub(hexKey string) string {
	k := identity.Keys{PublicHex: hexKey}
	return k.Npub()
}
