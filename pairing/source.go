package pairing

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"

	"github.com/nbd-wtf/go-nostr"
)

// NewSource starts the source side: a fresh ephemeral key and session
// secret, and the URI to show (relays must be ws:// or wss:// URLs; pin is
// hive's optional TLS pin parameter). The caller subscribes to
// {"kinds":[24134],"#p":[s.PublicKey()]} on the relays before showing it.
func NewSource(relays []string, pin string, o Options) (*Session, *URI, error) {
	if len(relays) == 0 {
		return nil, nil, fmt.Errorf("%w: no relay", ErrBadURI)
	}
	for _, r := range relays {
		if err := checkRelayURL(r); err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrBadURI, err)
		}
	}
	s, err := newSession(Source, o)
	if err != nil {
		return nil, nil, err
	}
	for s.secret == ([32]byte{}) {
		if _, err := rand.Read(s.secret[:]); err != nil {
			return nil, nil, err
		}
	}
	s.sessionID = SessionID(s.secret)
	u := &URI{SourcePub: s.pub, Secret: s.secret, Relays: append([]string(nil), relays...), Pin: pin}
	return s, u, nil
}

// handleSource runs a decrypted message through the source's state machine.
func (s *Session) handleSource(sender, conv [32]byte, m *Message) (Result, error) {
	switch {
	case m.Type == TypeAbort && s.peerKnown:
		return s.peerAborted(m)
	case m.Type == TypeOffer && s.state == Waiting:
		sid, _ := parseHex32(m.SessionID)
		if !equal32(sid, s.sessionID) {
			return Result{}, fmt.Errorf("%w: offer with a wrong session_id", ErrIgnored)
		}
		shared, err := ECDH(s.sk, sender)
		if err != nil {
			return Result{}, fmt.Errorf("%w: %v", ErrIgnored, err)
		}
		// Lock to this peer: every later offer is ignored.
		s.peer, s.peerHex, s.peerKnown, s.conv = sender, hex.EncodeToString(sender[:]), true, conv
		s.sasInput = SASInput(shared, s.secret)
		wipe(shared[:])
		s.sas = SASCode(s.sasInput)
		s.state = Confirming
		offer := *m
		return Result{SAS: s.sas, Offer: &offer}, nil
	case m.Type == TypeComplete && (s.state == Transferring || s.state == PayloadExchanged):
		if *m.Success {
			s.state = Completed
			return Result{Success: true}, nil
		}
		s.state = Aborted
		return Result{}, ErrFailed
	}
	return Result{}, s.outOfOrder(m)
}

// ConfirmSAS records that the source's human confirmed the SAS and returns
// the sas-confirm event carrying the transcript hash.
func (s *Session) ConfirmSAS() (*nostr.Event, error) {
	if s.expired() {
		return nil, ErrExpired
	}
	if s.role != Source || s.state != Confirming {
		return nil, fmt.Errorf("%w: ConfirmSAS in state %s", ErrState, s.state)
	}
	th := TranscriptHash(s.sessionID, s.pub, s.peer, s.sasInput, s.secret)
	ev, err := seal(s.sk, s.conv, s.peer, &Message{Type: TypeSASConfirm, TranscriptHash: hex.EncodeToString(th[:])}, s.now())
	wipe(th[:])
	if err != nil {
		return nil, err
	}
	s.state = Transferring
	return ev, nil
}

// SendPayload returns the one payload event; only after ConfirmSAS.
func (s *Session) SendPayload(payloadType, payload string) (*nostr.Event, error) {
	if s.expired() {
		return nil, ErrExpired
	}
	if s.role != Source || s.state != Transferring {
		return nil, fmt.Errorf("%w: SendPayload in state %s", ErrState, s.state)
	}
	m := &Message{Type: TypePayload, PayloadType: payloadType, Payload: payload}
	ev, err := seal(s.sk, s.conv, s.peer, m, s.now())
	m.wipe()
	if err != nil {
		return nil, err
	}
	s.state = PayloadExchanged
	return ev, nil
}
