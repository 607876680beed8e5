package client

import (
	"errors"
	"fmt"
	"strings"
)

// Error classes. Every error the client returns wraps one of them (errors.Is),
// so callers (the CLI's exit codes, the bridge's retries) decide on the class.
var (
	// ErrUnreachable: the hub could not be reached or the connection failed
	// before anything was sent. Retryable.
	ErrUnreachable = errors.New("hub unreachable")
	// ErrAuth: the hub refused this key (AUTH refused, restricted:,
	// auth-required:), or the TLS pin did not match.
	ErrAuth = errors.New("refused")
	// ErrInvalid: the hub found the event or filter malformed (invalid:).
	ErrInvalid = errors.New("invalid")
	// ErrDuplicate: the hub refused the event as a conflict with what it
	// holds (duplicate: or blocked: with OK false).
	ErrDuplicate = errors.New("conflict")
	// ErrRateLimited: the hub asked to slow down (rate-limited:). Retryable.
	ErrRateLimited = errors.New("rate limited")
	// ErrNotFound: a named event, channel or key does not exist.
	ErrNotFound = errors.New("not found")
	// ErrDeliveryUnknown: an event was sent but its OK never came; it may or
	// may not be stored. Publishing the same signed event again is safe.
	ErrDeliveryUnknown = errors.New("delivery unknown")
	// ErrClosed: the client was closed.
	ErrClosed = errors.New("client closed")
)

// ErrRefused is the old name of ErrAuth, kept for callers that test it.
var ErrRefused = ErrAuth

// RefusedError is a hub's refusal: an OK false or a CLOSED, with its
// machine-readable prefix.
type RefusedError struct {
	Prefix string // "invalid", "restricted", "duplicate", ... (without the colon)
	Reason string // the hub's whole message
}

func (e *RefusedError) Error() string { return "the hub refused: " + e.Reason }

// Is maps the prefix to an error class.
func (e *RefusedError) Is(target error) bool { return classOf(e.Prefix) == target }

func classOf(prefix string) error {
	switch prefix {
	case "invalid", "pow", "unsupported":
		return ErrInvalid
	case "duplicate", "blocked":
		return ErrDuplicate
	case "rate-limited":
		return ErrRateLimited
	case "restricted", "auth-required":
		return ErrAuth
	case "error":
		return ErrUnreachable
	}
	return ErrInvalid
}

// AuthRefusedError is the hub's refusal of the client's NIP-42 AUTH.
type AuthRefusedError struct {
	Npub, URL string
	Reason    string // the hub's whole message ("restricted: ...")
	Join      bool   // the join request with the invite was refused (Options.Invite)
}

func (e *AuthRefusedError) Error() string {
	if e.Join {
		return fmt.Sprintf("joining %s as %s with the invite refused: %s", e.URL, e.Npub, e.Reason)
	}
	return fmt.Sprintf("AUTH as %s refused by %s: %s", e.Npub, e.URL, e.Reason)
}

// RefusalReason is the hub's own reason in err (a refused event, filter or
// AUTH), "" when err is not a hub's refusal.
func RefusalReason(err error) string {
	var re *RefusedError
	if errors.As(err, &re) {
		return re.Reason
	}
	var ae *AuthRefusedError
	if errors.As(err, &ae) {
		return ae.Reason
	}
	return ""
}

// refusal turns a hub message into a RefusedError.
func refusal(msg string) *RefusedError {
	prefix, _, ok := strings.Cut(msg, ":")
	if !ok || strings.ContainsAny(prefix, " \t") {
		prefix = ""
	}
	return &RefusedError{Prefix: prefix, Reason: msg}
}

// classed wraps err as class, keeping both in the chain.
type classed struct {
	class error
	err   error
}

func (e *classed) Error() string   { return e.err.Error() }
func (e *classed) Unwrap() []error { return []error{e.class, e.err} }

func wrap(class, err error) error {
	if err == nil {
		return nil
	}
	return &classed{class: class, err: err}
}
