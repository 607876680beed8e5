package identity

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Limits of the numbers allowed in a NIP-OA conditions string. They are the
// NIP-OA ranges: a kind is 0..65535, a timestamp is 0..4294967295. A tag with
// a larger number is malformed (other NIP-OA verifiers reject it too).
const (
	MaxConditionKind      = 65535
	MaxConditionTimestamp = 4294967295
)

// ErrBadConditions is the root of every conditions parse error. Use errors.Is;
// the concrete error is a *ConditionsError naming the offending clause.
var ErrBadConditions = errors.New("malformed NIP-OA conditions")

// Errors reported when a well-formed conditions string does not allow an
// event. All of them wrap ErrConditionsNotMet.
var (
	ErrConditionsNotMet = errors.New("attestation conditions not met")
	ErrWrongKind        = errors.New("event kind not allowed by the attestation")
	ErrExpired          = errors.New("attestation expired")
	ErrNotYetValid      = errors.New("attestation not yet valid")
)

// ConditionsError describes why a conditions string is malformed.
type ConditionsError struct {
	Input  string // the whole conditions string
	Clause string // the offending clause ("" when not clause specific)
	Reason string
}

func (e *ConditionsError) Error() string {
	if e.Clause != "" {
		return fmt.Sprintf("%s: clause %q: %s (conditions %q)", ErrBadConditions, e.Clause, e.Reason, e.Input)
	}
	return fmt.Sprintf("%s: %s (conditions %q)", ErrBadConditions, e.Reason, e.Input)
}

func (e *ConditionsError) Is(target error) bool { return target == ErrBadConditions }

// Conditions is the parsed form of a NIP-OA conditions string.
//
// Every clause must hold (conjunction), comparisons are strict:
//
//	kind=N          event.kind == N
//	created_at<T    event.created_at < T
//	created_at>T    event.created_at > T
//
// Several kind= clauses are kept: with two different kinds the conditions can
// never hold (Satisfiable reports false), exactly as NIP-OA requires. Several
// created_at< (or created_at>) clauses collapse to the tightest bound, which
// is the same set of allowed events.
//
// The zero value is "no conditions" (the empty string): everything allowed.
// Build values with ParseConditions or the With* methods; Conditions is an
// immutable value type.
type Conditions struct {
	kinds     []int // sorted, without duplicates
	before    int64 // created_at < before, when hasBefore
	after     int64 // created_at > after, when hasAfter
	hasBefore bool
	hasAfter  bool
}

// ParseConditions parses a NIP-OA conditions string. The grammar is strict:
// ASCII, no whitespace, clauses joined by '&', no empty clause, decimals
// without sign or leading zeros ("0" itself is fine), numbers within
// MaxConditionKind / MaxConditionTimestamp, and only the three clause types.
// The empty string is valid and means no conditions.
func ParseConditions(s string) (Conditions, error) {
	var c Conditions
	if s == "" {
		return c, nil
	}
	for clause := range strings.SplitSeq(s, "&") {
		if clause == "" {
			return Conditions{}, &ConditionsError{Input: s, Reason: "empty clause (leading, trailing or doubled '&')"}
		}
		var (
			name  string
			num   string
			limit uint64
		)
		switch {
		case strings.HasPrefix(clause, "kind="):
			name, num, limit = "kind=", clause[len("kind="):], MaxConditionKind
		case strings.HasPrefix(clause, "created_at<"):
			name, num, limit = "created_at<", clause[len("created_at<"):], MaxConditionTimestamp
		case strings.HasPrefix(clause, "created_at>"):
			name, num, limit = "created_at>", clause[len("created_at>"):], MaxConditionTimestamp
		default:
			return Conditions{}, &ConditionsError{Input: s, Clause: clause,
				Reason: "unknown clause; allowed are kind=N, created_at<T and created_at>T"}
		}
		v, reason := parseCanonicalDecimal(num, limit)
		if reason != "" {
			return Conditions{}, &ConditionsError{Input: s, Clause: clause, Reason: reason}
		}
		switch name {
		case "kind=":
			c = c.WithKind(int(v))
		case "created_at<":
			c = c.WithExpiry(int64(v))
		case "created_at>":
			c = c.WithNotBefore(int64(v))
		}
	}
	return c, nil
}

// parseCanonicalDecimal returns the value or a non-empty reason.
func parseCanonicalDecimal(s string, limit uint64) (uint64, string) {
	if s == "" {
		return 0, "missing number"
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, "number must be plain decimal digits (no sign, spaces or other characters)"
		}
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, "number has a leading zero"
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil || v > limit {
		return 0, fmt.Sprintf("number out of range (maximum %d)", limit)
	}
	return v, ""
}

// WithKind returns c plus a kind=k clause.
func (c Conditions) WithKind(k int) Conditions {
	i, found := slices.BinarySearch(c.kinds, k)
	if found {
		return c
	}
	kinds := make([]int, 0, len(c.kinds)+1)
	kinds = append(kinds, c.kinds[:i]...)
	kinds = append(kinds, k)
	kinds = append(kinds, c.kinds[i:]...)
	c.kinds = kinds
	return c
}

// WithExpiry returns c plus a created_at<t clause (the tighter bound wins if
// one is already present).
func (c Conditions) WithExpiry(t int64) Conditions {
	if !c.hasBefore || t < c.before {
		c.before, c.hasBefore = t, true
	}
	return c
}

// WithNotBefore returns c plus a created_at>t clause (the tighter bound wins
// if one is already present). Note the strict comparison: an event created
// exactly at t is not allowed.
func (c Conditions) WithNotBefore(t int64) Conditions {
	if !c.hasAfter || t > c.after {
		c.after, c.hasAfter = t, true
	}
	return c
}

// Kinds returns the kinds named by kind= clauses, ascending (a copy).
func (c Conditions) Kinds() []int { return slices.Clone(c.kinds) }

// Expiry returns the created_at< bound: events must be created strictly
// before it.
func (c Conditions) Expiry() (int64, bool) { return c.before, c.hasBefore }

// NotBefore returns the created_at> bound: events must be created strictly
// after it.
func (c Conditions) NotBefore() (int64, bool) { return c.after, c.hasAfter }

// IsEmpty reports whether there is no clause at all.
func (c Conditions) IsEmpty() bool {
	return len(c.kinds) == 0 && !c.hasBefore && !c.hasAfter
}

// Satisfiable reports whether at least one (kind, created_at) pair is
// allowed: false with two different kind= clauses or with time bounds that
// leave no integer second between them.
func (c Conditions) Satisfiable() bool {
	if len(c.kinds) > 1 {
		return false
	}
	if c.hasBefore && c.hasAfter && c.before-c.after < 2 {
		return false
	}
	if c.hasBefore && c.before <= 0 {
		return false // created_at is never negative
	}
	return true
}

// Allows reports whether an event of this kind created at createdAt
// satisfies every clause.
func (c Conditions) Allows(kind int, createdAt int64) bool {
	return c.Check(kind, createdAt) == nil
}

// AllowsTime evaluates only the time clauses (kind= clauses are ignored).
func (c Conditions) AllowsTime(createdAt int64) bool {
	return c.CheckTime(createdAt) == nil
}

// Check is Allows with an error saying which clause failed. The error wraps
// ErrConditionsNotMet and one of ErrWrongKind, ErrExpired, ErrNotYetValid.
func (c Conditions) Check(kind int, createdAt int64) error {
	for _, k := range c.kinds {
		if k != kind {
			if len(c.kinds) > 1 {
				return fmt.Errorf("%w: %w: conditions %q name %d different kinds and can never hold",
					ErrConditionsNotMet, ErrWrongKind, c.String(), len(c.kinds))
			}
			return fmt.Errorf("%w: %w: event kind %d, clause kind=%d", ErrConditionsNotMet, ErrWrongKind, kind, k)
		}
	}
	return c.CheckTime(createdAt)
}

// CheckTime is AllowsTime with an error saying which clause failed.
func (c Conditions) CheckTime(createdAt int64) error {
	if c.hasBefore && !(createdAt < c.before) {
		return fmt.Errorf("%w: %w: created_at %d is not before %d (clause created_at<%d)",
			ErrConditionsNotMet, ErrExpired, createdAt, c.before, c.before)
	}
	if c.hasAfter && !(createdAt > c.after) {
		return fmt.Errorf("%w: %w: created_at %d is not after %d (clause created_at>%d)",
			ErrConditionsNotMet, ErrNotYetValid, createdAt, c.after, c.after)
	}
	return nil
}

// Equal reports whether both values hold the same clauses.
func (c Conditions) Equal(o Conditions) bool {
	return slices.Equal(c.kinds, o.kinds) &&
		c.hasBefore == o.hasBefore && (!c.hasBefore || c.before == o.before) &&
		c.hasAfter == o.hasAfter && (!c.hasAfter || c.after == o.after)
}

// String renders the canonical conditions string: kind= clauses ascending,
// then created_at>, then created_at<, joined by '&'. The zero value renders
// as "". Parsing the result gives back an Equal value.
//
// Values outside the NIP-OA ranges (possible only through the With* methods)
// render as written and fail Validate.
func (c Conditions) String() string {
	parts := make([]string, 0, len(c.kinds)+2)
	for _, k := range c.kinds {
		parts = append(parts, "kind="+strconv.Itoa(k))
	}
	if c.hasAfter {
		parts = append(parts, "created_at>"+strconv.FormatInt(c.after, 10))
	}
	if c.hasBefore {
		parts = append(parts, "created_at<"+strconv.FormatInt(c.before, 10))
	}
	return strings.Join(parts, "&")
}

// Validate checks that every number is within the NIP-OA ranges, so that
// String is a well-formed conditions string.
func (c Conditions) Validate() error {
	s := c.String()
	for _, k := range c.kinds {
		if k < 0 || k > MaxConditionKind {
			return &ConditionsError{Input: s, Clause: "kind=" + strconv.Itoa(k),
				Reason: fmt.Sprintf("kind out of range (0..%d)", MaxConditionKind)}
		}
	}
	if c.hasBefore && (c.before < 0 || c.before > MaxConditionTimestamp) {
		return &ConditionsError{Input: s, Clause: "created_at<" + strconv.FormatInt(c.before, 10),
			Reason: fmt.Sprintf("timestamp out of range (0..%d)", int64(MaxConditionTimestamp))}
	}
	if c.hasAfter && (c.after < 0 || c.after > MaxConditionTimestamp) {
		return &ConditionsError{Input: s, Clause: "created_at>" + strconv.FormatInt(c.after, 10),
			Reason: fmt.Sprintf("timestamp out of range (0..%d)", int64(MaxConditionTimestamp))}
	}
	return nil
}
