package pairing

import (
	"encoding/hex"
	"fmt"

	"github.com/nbd-wtf/go-nostr"
)

// NewTarget starts the target side for a scanned URI: a fresh ephemeral
// key, the SAS (known at once), and the offer event to publish to the
// source. devicePub, if not empty, is hive's extension: the public key the
// target wants attested, carried in the offer. The caller subscribes to
// {"kinds":[24134],"#p":[s.PublicKey()]} before publishing the offer.
func NewTarget(u *URI, devicePub string, o Options) (*Session, *nostr.Event, error) {
	if u.Secret == ([32]byte{}) {
		return nil, nil, fmt.Errorf("%w: the all-zero secret is refused", ErrBadURI)
	}
	s, err := newSession(Target, o)
	if err != nil {
		return nil, nil, err
	}
	s.secret, s.sessionID = u.Secret, SessionID(u.Secret)
	s.peer, s.peerHex, s.peerKnown = u.SourcePub, hex.EncodeToString(u.SourcePub[:]), true
	if s.conv, err = conversationKey(s.sk, s.peer); err != nil {
		return nil, nil, err
	}
	shared, err := ECDH(s.sk, s.peer)
	if err != nil {
		return nil, nil, err
	}
	s.sasInput = SASInput(shared, s.secret)
	wipe(shared[:])
	s.sas = SASCode(s.sasInput)
	v := Version
	offer := &Message{Type: TypeOffer, Version: &v, SessionID: hex.EncodeToString(s.sessionID[:]), DevicePubkey: devicePub}
	ev, err := seal(s.sk, s.conv, s.peer, offer, s.now())
	if err != nil {
		return nil, nil, err
	}
	s.devicePub = devicePub
	s.state = Confirming
	return s, ev, nil
}

// handleTarget runs a decrypted message through the target's state machine.
func (s *Session) handleTarget(m *Message) (Result, error) {
	switch {
	case m.Type == TypeAbort:
		return s.peerAborted(m)
	case m.Type == TypeSASConfirm && s.state == Confirming:
		got, _ := parseHex32(m.TranscriptHash)
		want := TranscriptHash(s.sessionID, s.peer, s.pub, s.sasInput, s.secret)
		ok := equal32(got, want)
		wipe(want[:])
		if !ok {
			s.state = Aborted
			s.payload.wipe() // an early payload is discarded unread
			s.payload = nil
			ev, err := s.abortEvent(ReasonSASMismatch)
			if err != nil {
				return Result{}, err
			}
			return Result{Send: []*nostr.Event{ev}}, ErrSASMismatch
		}
		s.transcriptOK = true
		s.state = AwaitingConfirmation
		if s.localOK {
			s.state = Transferring
		}
		return s.release(), nil
	case m.Type == TypePayload && s.payload == nil:
		// Buffered, and released only after the transcript check and the
		// human's confirmation. It may arrive before the sas-confirm: relays
		// and client libraries (go-nostr among them) may reorder deliveries.
		p := *m
		s.payload = &p
		return s.release(), nil
	}
	return Result{}, s.outOfOrder(m)
}

// ConfirmLocal records that the target's human confirmed the SAS. The
// payload is released (in the Result) once the source's transcript hash
// has also been verified and the payload has arrived, whichever comes last.
func (s *Session) ConfirmLocal() (Result, error) {
	if s.expired() {
		return Result{}, ErrExpired
	}
	if s.role != Target || s.localOK || (s.state != Confirming && s.state != AwaitingConfirmation) {
		return Result{}, fmt.Errorf("%w: ConfirmLocal in state %s", ErrState, s.state)
	}
	s.localOK = true
	if s.state == AwaitingConfirmation {
		s.state = Transferring
	}
	return s.release(), nil
}

// release hands the buffered payload out once both humans confirmed.
func (s *Session) release() Result {
	if !s.transcriptOK || !s.localOK || s.payload == nil || s.state != Transferring {
		return Result{}
	}
	s.state = PayloadExchanged
	return Result{Payload: s.payload}
}

// Complete ends the target's side: complete{success} for the source.
func (s *Session) Complete(success bool) (*nostr.Event, error) {
	if s.role != Target || s.state != PayloadExchanged {
		return nil, fmt.Errorf("%w: Complete in state %s", ErrState, s.state)
	}
	ev, err := seal(s.sk, s.conv, s.peer, &Message{Type: TypeComplete, Success: &success}, s.now())
	if err != nil {
		return nil, err
	}
	s.state = Completed
	if !success {
		s.state = Aborted
	}
	return ev, nil
}
