package pairing

import (
	"errors"
	"testing"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newPair(t *testing.T, o Options) (src, tgt *Session, offer *nostr.Event) {
	t.Helper()
	src, u, err := NewSource([]string{"ws://127.0.0.1:1/pair"}, "", o)
	if err != nil {
		t.Fatal(err)
	}
	tgt, offer, err = NewTarget(u, "", o)
	if err != nil {
		t.Fatal(err)
	}
	return src, tgt, offer
}

func mustHandle(t *testing.T, s *Session, ev *nostr.Event) Result {
	t.Helper()
	r, err := s.Handle(ev)
	if err != nil {
		t.Fatalf("Handle(%s): %v", ev.ID, err)
	}
	return r
}

func mustIgnore(t *testing.T, s *Session, ev *nostr.Event, what string) {
	t.Helper()
	st := s.State()
	r, err := s.Handle(ev)
	if !errors.Is(err, ErrIgnored) {
		t.Fatalf("%s: err = %v, want it ignored", what, err)
	}
	if len(r.Send) != 0 || r.Payload != nil || r.SAS != "" {
		t.Fatalf("%s: ignored event produced %+v", what, r)
	}
	if s.State() != st {
		t.Fatalf("%s: state moved %s -> %s", what, st, s.State())
	}
}

func TestTargetUsesVectorDerivations(t *testing.T) {
	u := &URI{SourcePub: h32(t, vecSourcePK), Secret: h32(t, vecSecret), Relays: []string{"ws://x"}}
	tgt, offer, err := NewTarget(u, "", Options{EphemeralKey: h32(t, vecTargetSK)})
	if err != nil {
		t.Fatal(err)
	}
	if tgt.SAS() != vecSAS || tgt.PublicKey() != vecTargetPK || offer.PubKey != vecTargetPK {
		t.Fatalf("SAS %s pub %s, want %s %s", tgt.SAS(), tgt.PublicKey(), vecSAS, vecTargetPK)
	}
	// The source side with the vector keys decrypts the offer and shows the same SAS.
	src := &Session{role: Source, timeout: DefaultTimeout, now: time.Now, created: time.Now(), processed: map[string]struct{}{}}
	src.sk, src.secret = h32(t, vecSourceSK), h32(t, vecSecret)
	src.pub, src.pubHex, src.sessionID = h32(t, vecSourcePK), vecSourcePK, SessionID(src.secret)
	r := mustHandle(t, src, offer)
	if r.SAS != vecSAS || r.Offer.SessionID != vecSessionID {
		t.Fatalf("source SAS %q offer %+v", r.SAS, r.Offer)
	}
	sc, err := src.ConfirmSAS()
	if err != nil {
		t.Fatal(err)
	}
	m, err := open(sc, tgt.conv)
	if err != nil || m.TranscriptHash != vecTranscript {
		t.Fatalf("sas-confirm transcript %+v %v, want %s", m, err, vecTranscript)
	}
}

func TestFullExchange(t *testing.T) {
	src, tgt, offer := newPair(t, Options{})
	r := mustHandle(t, src, offer)
	if r.SAS == "" || r.SAS != tgt.SAS() {
		t.Fatalf("SAS source %q target %q", r.SAS, tgt.SAS())
	}
	sc, err := src.ConfirmSAS()
	if err != nil {
		t.Fatal(err)
	}
	pl, err := src.SendPayload(PayloadCustom, `{"app":"hive"}`)
	if err != nil {
		t.Fatal(err)
	}
	if r := mustHandle(t, tgt, sc); r.Payload != nil {
		t.Fatal("payload released before anything arrived")
	}
	if r := mustHandle(t, tgt, pl); r.Payload != nil {
		t.Fatal("payload released before the target's human confirmed (dual consent)")
	}
	r, err = tgt.ConfirmLocal()
	if err != nil || r.Payload == nil || r.Payload.Payload != `{"app":"hive"}` {
		t.Fatalf("after local confirm: %+v %v", r, err)
	}
	done, err := tgt.Complete(true)
	if err != nil {
		t.Fatal(err)
	}
	if r := mustHandle(t, src, done); !r.Success || src.State() != Completed {
		t.Fatalf("source after complete: %+v %s", r, src.State())
	}
	mustIgnore(t, src, done, "second complete")
	tgt.Close()
	src.Close()
	if src.sk != ([32]byte{}) || src.secret != ([32]byte{}) || src.sasInput != ([32]byte{}) || tgt.conv != ([32]byte{}) || tgt.payload != nil {
		t.Fatal("Close left secrets in the session")
	}
}

func TestTargetConfirmsFirst(t *testing.T) {
	src, tgt, offer := newPair(t, Options{})
	mustHandle(t, src, offer)
	if r, err := tgt.ConfirmLocal(); err != nil || r.Payload != nil {
		t.Fatalf("early local confirm: %+v %v", r, err)
	}
	sc, _ := src.ConfirmSAS()
	pl, _ := src.SendPayload(PayloadNsec, "ncryptsec1xyz")
	mustHandle(t, tgt, sc)
	if r := mustHandle(t, tgt, pl); r.Payload == nil || r.Payload.PayloadType != PayloadNsec {
		t.Fatalf("payload not released after both confirmations: %+v", r)
	}
}

func TestSourceLocksToFirstOffer(t *testing.T) {
	src, u, _ := NewSource([]string{"ws://127.0.0.1:1/pair"}, "", Options{})
	first, offer1, _ := NewTarget(u, "", Options{})
	second, offer2, _ := NewTarget(u, "", Options{})
	r := mustHandle(t, src, offer1)
	if r.SAS != first.SAS() {
		t.Fatal("SAS is not the first target's")
	}
	mustIgnore(t, src, offer2, "second target's offer")
	mustIgnore(t, src, offer1, "replayed first offer")
	// the loser's abort cannot end the session either
	ab, _ := second.Abort(ReasonUserDenied)
	mustIgnore(t, src, ab, "abort from the second target")
	if src.State() != Confirming {
		t.Fatalf("state %s", src.State())
	}
}

func TestWrongSessionIDDoesNotLock(t *testing.T) {
	src, u, _ := NewSource([]string{"ws://127.0.0.1:1/pair"}, "", Options{})
	bad := *u
	bad.Secret[0] ^= 1
	_, wrong, _ := NewTarget(&bad, "", Options{})
	mustIgnore(t, src, wrong, "offer with a wrong session_id")
	tgt, good, _ := NewTarget(u, "", Options{})
	if r := mustHandle(t, src, good); r.SAS != tgt.SAS() {
		t.Fatal("the right offer after a wrong one was not accepted")
	}
}

// A man in the middle who read the QR code offers to the source as target
// and plays source to the real target: each side's SAS is computed with the
// attacker's key, so the humans see different codes, and the target's
// transcript check fails even if the source's human confirms anyway.
func TestManInTheMiddle(t *testing.T) {
	src, u, _ := NewSource([]string{"ws://127.0.0.1:1/pair"}, "", Options{})
	mitmAsTarget, mOffer, _ := NewTarget(u, "", Options{})
	mustHandle(t, src, mOffer)
	// The attacker's own source session with the real secret but its own key.
	mitmAsSource, u2, _ := NewSource(u.Relays, "", Options{})
	u2.Secret = u.Secret
	mitmAsSource.secret, mitmAsSource.sessionID = u.Secret, SessionID(u.Secret)
	victim, _, _ := NewTarget(u2, "", Options{})
	if victim.SAS() == src.SAS() {
		t.Fatalf("victim and source show the same SAS %s through a MITM", src.SAS())
	}
	// Even relaying the source's real sas-confirm does not verify.
	sc, _ := src.ConfirmSAS()
	relayed, _ := seal(mitmAsSource.sk, victim.conv, victim.pub, mustOpen(t, sc, mitmAsTarget.conv), time.Now())
	r, err := victim.Handle(relayed)
	if !errors.Is(err, ErrSASMismatch) || len(r.Send) != 1 || victim.State() != Aborted {
		t.Fatalf("victim: %+v %v %s", r, err, victim.State())
	}
	if m := mustOpen(t, r.Send[0], victim.conv); m.Type != TypeAbort || m.Reason != ReasonSASMismatch {
		t.Fatalf("abort sent: %+v", m)
	}
}

func mustOpen(t *testing.T, ev *nostr.Event, conv [32]byte) *Message {
	t.Helper()
	m, err := open(ev, conv)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestWrongTranscriptDiscardsPayload(t *testing.T) {
	src, tgt, offer := newPair(t, Options{})
	mustHandle(t, src, offer)
	src.sasInput[0] ^= 1 // the source derived something else
	sc, _ := src.ConfirmSAS()
	pl, _ := src.SendPayload(PayloadCustom, "secret")
	if _, err := tgt.ConfirmLocal(); err != nil {
		t.Fatal(err)
	}
	if _, err := tgt.Handle(sc); !errors.Is(err, ErrSASMismatch) {
		t.Fatalf("err = %v", err)
	}
	r, err := tgt.Handle(pl)
	if r.Payload != nil || !errors.Is(err, ErrIgnored) {
		t.Fatalf("payload after a mismatch: %+v %v", r, err)
	}
	// The same when the payload overtook the sas-confirm.
	src, tgt, offer = newPair(t, Options{})
	mustHandle(t, src, offer)
	src.sasInput[0] ^= 1
	sc, _ = src.ConfirmSAS()
	pl, _ = src.SendPayload(PayloadCustom, "secret")
	tgt.ConfirmLocal()
	mustHandle(t, tgt, pl)
	if r, err := tgt.Handle(sc); !errors.Is(err, ErrSASMismatch) || r.Payload != nil || tgt.payload != nil {
		t.Fatalf("early payload after a mismatch: %+v %v", r, err)
	}
}

func TestDenial(t *testing.T) {
	// Source says no: abort{user_denied}, nothing else can be sent.
	src, tgt, offer := newPair(t, Options{})
	mustHandle(t, src, offer)
	ab, err := src.Abort(ReasonUserDenied)
	if err != nil || ab == nil {
		t.Fatal(err)
	}
	if _, err := src.ConfirmSAS(); !errors.Is(err, ErrState) {
		t.Fatalf("ConfirmSAS after denial: %v", err)
	}
	var ae *AbortError
	if _, err := tgt.Handle(ab); !errors.As(err, &ae) || ae.Reason != ReasonUserDenied || tgt.State() != Aborted {
		t.Fatalf("target: %v %s", err, tgt.State())
	}
	// Target says no after the payload arrived: it is never released.
	src, tgt, offer = newPair(t, Options{})
	mustHandle(t, src, offer)
	sc, _ := src.ConfirmSAS()
	pl, _ := src.SendPayload(PayloadCustom, "x")
	mustHandle(t, tgt, sc)
	mustHandle(t, tgt, pl)
	ab, _ = tgt.Abort(ReasonUserDenied)
	if _, err := tgt.ConfirmLocal(); !errors.Is(err, ErrState) {
		t.Fatalf("ConfirmLocal after denial: %v", err)
	}
	if _, err := src.Handle(ab); !errors.As(err, &ae) {
		t.Fatalf("source: %v", err)
	}
}

func TestStrangerAbortBeforeOfferIgnored(t *testing.T) {
	src, u, _ := NewSource([]string{"ws://127.0.0.1:1/pair"}, "", Options{})
	stranger, _, _ := NewTarget(u, "", Options{}) // knows the QR, never offered
	ab, _ := stranger.Abort(ReasonProtocol)
	mustIgnore(t, src, ab, "stranger's early abort")
	if src.State() != Waiting {
		t.Fatal(src.State())
	}
}

func TestOutOfOrderDiscardedSilently(t *testing.T) {
	src, tgt, offer := newPair(t, Options{})
	mustHandle(t, src, offer)
	sc, _ := src.ConfirmSAS()
	pl, _ := src.SendPayload(PayloadCustom, "x")
	// A payload before the sas-confirm (relays may reorder) is buffered, not released.
	if r := mustHandle(t, tgt, pl); r.Payload != nil {
		t.Fatal("payload released before the sas-confirm")
	}
	if r, _ := tgt.ConfirmLocal(); r.Payload != nil {
		t.Fatal("payload released before the sas-confirm, after the local confirmation")
	}
	mustIgnore(t, tgt, pl, "replayed payload")
	if r := mustHandle(t, tgt, sc); r.Payload == nil || r.Payload.Payload != "x" {
		t.Fatalf("payload not released by the sas-confirm: %+v", r)
	}
	mustIgnore(t, tgt, sc, "replayed sas-confirm")
	// A complete before the source confirmed is out of order too.
	src2, tgt2, offer2 := newPair(t, Options{})
	mustHandle(t, src2, offer2)
	fake, _ := seal(tgt2.sk, tgt2.conv, tgt2.peer, &Message{Type: TypeComplete, Success: new(bool)}, time.Now())
	mustIgnore(t, src2, fake, "complete before sas-confirm")
	// Garbage signed by the peer: a tampered signature, a foreign p tag.
	bad := *offer2
	bad.Sig = bad.Sig[:len(bad.Sig)-2] + "00"
	mustIgnore(t, src2, &bad, "bad signature")
}

func TestTimeout(t *testing.T) {
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	o := Options{Timeout: 5 * time.Second, Now: c.now}
	src, tgt, offer := newPair(t, o)
	mustHandle(t, src, offer)
	c.t = c.t.Add(5 * time.Second)
	if _, err := src.ConfirmSAS(); !errors.Is(err, ErrExpired) {
		t.Fatalf("ConfirmSAS after timeout: %v", err)
	}
	ab, err := src.Abort(ReasonTimeout)
	if err != nil || ab == nil {
		t.Fatalf("abort{timeout} after expiry: %v", err)
	}
	if _, err := src.Abort(ReasonTimeout); err == nil {
		t.Fatal("a second abort{timeout}")
	}
	if _, err := tgt.Handle(ab); !errors.Is(err, ErrExpired) {
		t.Fatalf("target after its own timeout: %v", err)
	}
}

func TestDefaultTimeout(t *testing.T) {
	s, _, err := NewSource([]string{"wss://h/pair"}, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := s.Deadline().Sub(s.created); d != 120*time.Second {
		t.Fatalf("default timeout %s", d)
	}
}
