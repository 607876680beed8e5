// Package pairing implements NIP-AB v1 device pairing: the nostrpair:// URI,
// the key derivations and 6-digit SAS, kind 24134 events carrying NIP-44 v2
// messages, and the state machine of both roles, as pure functions of the
// events fed in. Moving events between the two devices is the caller's job
// (see Transport); hive's additions to v1 are described in spec/pairing.md.
package pairing

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// DefaultTimeout is the lifetime of a session from its creation.
const DefaultTimeout = 120 * time.Second

// Role says which side of a pairing a session is.
type Role int

// The two roles.
const (
	Source Role = iota // holds the secret, shows the QR code
	Target             // scans it, receives the secret
)

// State is where a session is in the protocol.
type State int

// States of a session.
const (
	Waiting              State = iota // source: waiting for an offer
	Confirming                        // SAS known, waiting for this side's human (source) or for sas-confirm (target)
	AwaitingConfirmation              // target: transcript verified, waiting for its human
	Transferring                      // source: sas-confirm sent; target: both confirmed, waiting for the payload
	PayloadExchanged                  // payload sent (source) or released to the caller (target)
	Completed                         // terminal: success
	Aborted                           // terminal: failure, denial, timeout or abort
)

var stateNames = [...]string{"waiting", "confirming", "awaiting-confirmation", "transferring", "payload-exchanged", "completed", "aborted"}

func (s State) String() string { return stateNames[s] }

// Errors returned by session methods.
var (
	// ErrIgnored wraps every reason an incoming event was discarded
	// silently: the caller keeps waiting and never answers it.
	ErrIgnored = errors.New("event ignored")
	// ErrExpired means the session's timeout has passed.
	ErrExpired = errors.New("pairing session expired")
	// ErrSASMismatch means the target's transcript check failed: the two
	// devices did not derive the same keys (a man in the middle, or a
	// wrong QR code). No payload is used.
	ErrSASMismatch = errors.New("SAS mismatch: the other device derived different keys")
	// ErrState means a method was called in a state that does not allow it.
	ErrState = errors.New("not allowed in this state")
	// ErrFailed means the target reported complete{success:false}.
	ErrFailed = errors.New("the other device reported that it could not use the payload")
)

// AbortError is returned when the peer sent an abort message.
type AbortError struct{ Reason string }

func (e *AbortError) Error() string { return "the other device aborted the pairing: " + e.Reason }

// Options tune a session. The zero value is the protocol's defaults.
type Options struct {
	Timeout time.Duration    // session lifetime; 0 means DefaultTimeout
	Now     func() time.Time // clock; nil means time.Now
	// EphemeralKey, if not zero, is used as the ephemeral secret key
	// instead of a random one (test vectors only).
	EphemeralKey [32]byte
}

// Result is what handling an event or a confirmation produced.
type Result struct {
	SAS     string         // source: the SAS, set when an offer is accepted
	Offer   *Message       // source: the accepted offer
	Payload *Message       // target: the payload, released once both sides confirmed
	Success bool           // source: complete{success:true} received
	Send    []*nostr.Event // events the caller must publish
}

// Session is one side of one pairing. It is not safe for concurrent use.
type Session struct {
	role    Role
	state   State
	timeout time.Duration
	now     func() time.Time
	created time.Time

	sk, pub   [32]byte
	pubHex    string
	secret    [32]byte
	sessionID [32]byte

	peer      [32]byte
	peerHex   string
	peerKnown bool
	conv      [32]byte
	sasInput  [32]byte
	sas       string

	processed   map[string]struct{}
	timedOut    bool // the session ended by its timeout
	timeoutSent bool // abort{timeout} was built

	// target only
	devicePub    string
	transcriptOK bool
	localOK      bool
	payload      *Message
}

func newSession(role Role, o Options) (*Session, error) {
	s := &Session{role: role, timeout: o.Timeout, now: o.Now, processed: map[string]struct{}{}}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.created = s.now()
	s.sk = o.EphemeralKey
	for s.sk == ([32]byte{}) {
		if _, err := rand.Read(s.sk[:]); err != nil {
			return nil, err
		}
		if _, err := PublicKey(s.sk); err != nil { // out of range: draw again
			s.sk = [32]byte{}
		}
	}
	pub, err := PublicKey(s.sk)
	if err != nil {
		return nil, err
	}
	s.pub, s.pubHex = pub, hex.EncodeToString(pub[:])
	return s, nil
}

// Role returns the session's role.
func (s *Session) Role() Role { return s.role }

// State returns the session's state.
func (s *Session) State() State { return s.state }

// PublicKey returns the session's ephemeral public key (hex), the value
// peers put in their p tag and the one to subscribe to with #p.
func (s *Session) PublicKey() string { return s.pubHex }

// SAS returns the six-digit code, or "" before it is known.
func (s *Session) SAS() string { return s.sas }

// Deadline is when the session expires.
func (s *Session) Deadline() time.Time { return s.created.Add(s.timeout) }

// Done reports whether the session reached a terminal state.
func (s *Session) Done() bool { return s.state == Completed || s.state == Aborted }

// expired moves the session to Aborted once its timeout has passed.
func (s *Session) expired() bool {
	if s.Done() {
		return false
	}
	if !s.now().Before(s.Deadline()) {
		s.state, s.timedOut = Aborted, true
		return true
	}
	return false
}

// Handle processes one event received on the relay. A nil error with an
// empty Result means nothing changed; an error wrapping ErrIgnored means the
// event was discarded silently (out of order, not from the peer, replayed,
// undecryptable...) and the caller must not answer it.
func (s *Session) Handle(ev *nostr.Event) (Result, error) {
	if s.expired() {
		return Result{}, ErrExpired
	}
	if s.Done() {
		return Result{}, fmt.Errorf("%w: session is %s", ErrIgnored, s.state)
	}
	if ev != nil {
		if _, dup := s.processed[ev.ID]; dup {
			return Result{}, fmt.Errorf("%w: already processed %s", ErrIgnored, ev.ID)
		}
	}
	sender, err := checkEnvelope(ev, s.pubHex)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrIgnored, err)
	}
	conv := s.conv
	if !s.peerKnown {
		// Only a source before its first valid offer: anyone may offer.
		if conv, err = conversationKey(s.sk, sender); err != nil {
			return Result{}, fmt.Errorf("%w: %v", ErrIgnored, err)
		}
	} else if !equal32(sender, s.peer) {
		return Result{}, fmt.Errorf("%w: not from the peer", ErrIgnored)
	}
	m, err := open(ev, conv)
	if err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrIgnored, err)
	}
	var res Result
	if s.role == Source {
		res, err = s.handleSource(sender, conv, m)
	} else {
		res, err = s.handleTarget(m)
	}
	if err == nil || !errors.Is(err, ErrIgnored) {
		s.processed[ev.ID] = struct{}{}
	}
	if m != s.payload {
		m.wipe()
	}
	wipe(conv[:])
	return res, err
}

// abortEvent builds abort{reason} to the peer, or nil if the peer is unknown.
func (s *Session) abortEvent(reason string) (*nostr.Event, error) {
	if !s.peerKnown {
		return nil, nil
	}
	return seal(s.sk, s.conv, s.peer, &Message{Type: TypeAbort, Reason: reason}, s.now())
}

// Abort ends the session with reason (e.g. ReasonUserDenied after a "no",
// ReasonTimeout after the deadline) and returns the abort event to publish,
// or nil when the peer is not known yet. It is an error in a terminal state,
// except that a session that expired may still send one abort{timeout}.
func (s *Session) Abort(reason string) (*nostr.Event, error) {
	s.expired()
	if s.state == Completed || s.state == Aborted && !(s.timedOut && reason == ReasonTimeout && !s.timeoutSent) {
		return nil, fmt.Errorf("%w: session is %s", ErrState, s.state)
	}
	s.state = Aborted
	if reason == ReasonTimeout {
		s.timeoutSent = true
	}
	return s.abortEvent(reason)
}

// peerAborted records an abort from the peer.
func (s *Session) peerAborted(m *Message) (Result, error) {
	s.state = Aborted
	return Result{}, &AbortError{Reason: m.Reason}
}

// outOfOrder is the silent discard of a message not expected now.
func (s *Session) outOfOrder(m *Message) error {
	return fmt.Errorf("%w: %s is out of order in state %s", ErrIgnored, m.Type, s.state)
}

// Close wipes the session's secrets. The session is unusable afterwards.
func (s *Session) Close() {
	wipe(s.sk[:])
	wipe(s.secret[:])
	wipe(s.sessionID[:])
	wipe(s.conv[:])
	wipe(s.sasInput[:])
	s.payload.wipe()
	s.payload = nil
	if !s.Done() {
		s.state = Aborted
	}
}
