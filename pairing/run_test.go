package pairing_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ainb/hive/pairing"
	"github.com/ainb/hive/pairing/endpoint"
	"github.com/nbd-wtf/go-nostr"
)

// ui is a scripted human: it reports what it is shown and answers when told.
type ui struct {
	uri, sas chan string
	answer   chan bool
}

func newUI() *ui {
	return &ui{uri: make(chan string, 1), sas: make(chan string, 1), answer: make(chan bool, 1)}
}
func (u *ui) ShowURI(s string)     { u.uri <- s }
func (u *ui) ShowSAS(s string)     { u.sas <- s }
func (u *ui) Confirm() <-chan bool { return u.answer }

func relayURL(t *testing.T) string {
	t.Helper()
	s := endpoint.New(endpoint.Limits{}, nil)
	hs := httptest.NewServer(s)
	t.Cleanup(func() { s.Close(); hs.Close() })
	return "ws" + strings.TrimPrefix(hs.URL, "http") + "/pair"
}

func connect(t *testing.T, url string) *nostr.Relay {
	t.Helper()
	r, err := nostr.RelayConnect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func recv[T any](t *testing.T, c chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("timed out")
		panic("unreachable")
	}
}

type outcome struct {
	offer *pairing.Message
	err   error
}

// run starts a source and a target over a real endpoint and returns their
// UIs, the channels of their results and what the target was given.
func run(t *testing.T, opts pairing.Options) (src, tgt *ui, srcDone chan outcome, tgtDone chan error, used chan *pairing.Message) {
	t.Helper()
	url := relayURL(t)
	src, tgt = newUI(), newUI()
	srcDone, tgtDone, used = make(chan outcome, 1), make(chan error, 1), make(chan *pairing.Message, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	go func() {
		offer, err := pairing.RunSource(ctx, pairing.SourceConfig{Relay: connect(t, url), RelayURL: url, Options: opts,
			Payload: func(o *pairing.Message) (string, string, error) {
				return pairing.PayloadCustom, `{"app":"hive","for":"` + o.DevicePubkey + `"}`, nil
			},
			CompleteWait: 3 * time.Second}, src)
		srcDone <- outcome{offer, err}
	}()
	u, err := pairing.ParseURI(recv(t, src.uri))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		tgtDone <- pairing.RunTarget(ctx, pairing.TargetConfig{Relay: connect(t, u.Relays[0]), URI: u, DevicePub: strings.Repeat("0", 63) + "1",
			Options: opts, Use: func(m *pairing.Message) error { c := *m; used <- &c; return nil }}, tgt)
	}()
	return
}

func TestRunBothConfirm(t *testing.T) {
	src, tgt, srcDone, tgtDone, used := run(t, pairing.Options{})
	a, b := recv(t, src.sas), recv(t, tgt.sas)
	if a != b || len(a) != 6 {
		t.Fatalf("codes %q and %q", a, b)
	}
	src.answer <- true
	tgt.answer <- true
	if err := recv(t, tgtDone); err != nil {
		t.Fatal(err)
	}
	o := recv(t, srcDone)
	if o.err != nil || o.offer.DevicePubkey != strings.Repeat("0", 63)+"1" {
		t.Fatalf("source: %+v", o)
	}
	if m := recv(t, used); m.Payload != `{"app":"hive","for":"`+o.offer.DevicePubkey+`"}` {
		t.Fatalf("payload %q", m.Payload)
	}
}

func TestRunSourceDenies(t *testing.T) {
	src, tgt, srcDone, tgtDone, used := run(t, pairing.Options{})
	recv(t, src.sas)
	recv(t, tgt.sas)
	tgt.answer <- true
	src.answer <- false
	var ae *pairing.AbortError
	if err := recv(t, tgtDone); !errors.As(err, &ae) || ae.Reason != pairing.ReasonUserDenied {
		t.Fatalf("target: %v", err)
	}
	if o := recv(t, srcDone); !errors.Is(o.err, pairing.ErrDenied) {
		t.Fatalf("source: %v", o.err)
	}
	select {
	case m := <-used:
		t.Fatalf("payload used after a denial: %+v", m)
	default:
	}
}

func TestRunTargetDenies(t *testing.T) {
	src, tgt, srcDone, tgtDone, used := run(t, pairing.Options{})
	recv(t, src.sas)
	recv(t, tgt.sas)
	src.answer <- true // the payload goes out...
	// bare sleep: RunTarget has no hook that says the payload arrived; the
	// outcome is the same if the denial comes first, this makes the
	// payload-already-there case the likely one
	time.Sleep(200 * time.Millisecond)
	tgt.answer <- false // ...and is never used
	if err := recv(t, tgtDone); !errors.Is(err, pairing.ErrDenied) {
		t.Fatalf("target: %v", err)
	}
	var ae *pairing.AbortError
	if o := recv(t, srcDone); !errors.As(o.err, &ae) || ae.Reason != pairing.ReasonUserDenied {
		t.Fatalf("source: %v", o.err)
	}
	if len(used) != 0 {
		t.Fatal("payload used after the target's denial")
	}
}

func TestRunTimeout(t *testing.T) {
	src, tgt, srcDone, tgtDone, _ := run(t, pairing.Options{Timeout: 1500 * time.Millisecond})
	recv(t, src.sas)
	recv(t, tgt.sas) // nobody answers
	if o := recv(t, srcDone); !errors.Is(o.err, pairing.ErrExpired) {
		t.Fatalf("source: %v", o.err)
	}
	err := recv(t, tgtDone)
	var ae *pairing.AbortError
	if !errors.Is(err, pairing.ErrExpired) && !(errors.As(err, &ae) && ae.Reason == pairing.ReasonTimeout) {
		t.Fatalf("target: %v", err)
	}
}
