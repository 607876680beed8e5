package pairing

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nbd-wtf/go-nostr"
)

// UI is how a running pairing talks to its human.
type UI interface {
	// ShowURI shows the pairing URI (as text and QR code). Source only.
	ShowURI(uri string)
	// ShowSAS shows the six-digit code to compare.
	ShowSAS(sas string)
	// Confirm asks whether both screens show the same code; the answer
	// (true: same) arrives on the channel.
	Confirm() <-chan bool
}

// Errors of a run, besides the session's own.
var (
	// ErrDenied means this side's human did not confirm the code.
	ErrDenied = errors.New("pairing cancelled: the code was not confirmed on this device")
	// ErrNoComplete means the payload was sent but the target never said it
	// used it: check the other device.
	ErrNoComplete = errors.New("the payload was sent but the other device did not confirm receipt; check it")
	errStep       = errors.New("step deadline")
)

// DefaultCompleteWait is how long a source waits for complete after sending.
const DefaultCompleteWait = 30 * time.Second

// SourceConfig drives the source side of a pairing.
type SourceConfig struct {
	Relay    *nostr.Relay // connected to RelayURL
	RelayURL string       // the relay URL written into the URI
	Pin      string       // hive's TLS pin parameter, or ""
	Options  Options
	// Payload is called once the human confirmed the code, with the
	// accepted offer, and returns what to send. An error aborts the pairing
	// (abort{protocol_error}) before anything is sent.
	Payload      func(offer *Message) (payloadType, payload string, err error)
	CompleteWait time.Duration // default DefaultCompleteWait
	// Authenticate, if set, runs once the session's subscription is
	// confirmed and before the URI is shown: hive pair authenticates there
	// as the owner (NIP-42), so that the endpoint treats the session as a
	// member's (spec/pairing.md). An error ends the run.
	Authenticate func(ctx context.Context) error
}

// RunSource runs the source side until the target reports complete. It
// returns the accepted offer (nil if none came).
func RunSource(ctx context.Context, cfg SourceConfig, ui UI) (*Message, error) {
	s, u, err := NewSource([]string{cfg.RelayURL}, cfg.Pin, cfg.Options)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	defer u.Wipe()
	l, err := Listen(ctx, cfg.Relay, s.PublicKey())
	if err != nil {
		return nil, err
	}
	defer l.Close()
	if cfg.Authenticate != nil {
		if err := cfg.Authenticate(ctx); err != nil {
			return nil, err
		}
	}
	ui.ShowURI(u.String())

	var offer *Message
	for offer == nil {
		res, _, err := wait(ctx, s, l, nil, s.Deadline())
		if err != nil {
			return nil, fail(s, l, err)
		}
		offer = res.Offer
	}
	ui.ShowSAS(s.SAS())
	confirm := ui.Confirm()
	for confirm != nil {
		_, ans, err := wait(ctx, s, l, confirm, s.Deadline())
		if err != nil {
			return offer, fail(s, l, err)
		}
		if ans != nil {
			if !*ans {
				return offer, fail(s, l, ErrDenied)
			}
			confirm = nil
		}
	}
	ptype, payload, err := cfg.Payload(offer)
	if err != nil {
		return offer, fail(s, l, err)
	}
	for _, step := range []func() (*nostr.Event, error){s.ConfirmSAS, func() (*nostr.Event, error) { return s.SendPayload(ptype, payload) }} {
		ev, err := step()
		if err == nil {
			err = l.Publish(ctx, ev)
		}
		if err != nil {
			return offer, fail(s, l, err)
		}
	}
	cw := cfg.CompleteWait
	if cw <= 0 {
		cw = DefaultCompleteWait
	}
	until := time.Now().Add(cw)
	for {
		res, _, err := wait(ctx, s, l, nil, until)
		switch {
		case errors.Is(err, errStep) || errors.Is(err, ErrExpired):
			return offer, ErrNoComplete
		case err != nil:
			return offer, err
		case res.Success:
			return offer, nil
		}
	}
}

// TargetConfig drives the target side of a pairing.
type TargetConfig struct {
	Relay     *nostr.Relay // connected to one of URI.Relays
	URI       *URI
	DevicePub string // hive's offer extension, or ""
	Options   Options
	// Use is called with the payload once both humans confirmed; its error
	// is reported to the source as complete{success:false} and returned.
	Use func(p *Message) error
}

// RunTarget runs the target side until the payload was used.
func RunTarget(ctx context.Context, cfg TargetConfig, ui UI) error {
	s, offer, err := NewTarget(cfg.URI, cfg.DevicePub, cfg.Options)
	if err != nil {
		return err
	}
	defer s.Close()
	l, err := Listen(ctx, cfg.Relay, s.PublicKey())
	if err != nil {
		return err
	}
	defer l.Close()
	pctx, cancel := context.WithDeadline(ctx, s.Deadline())
	err = l.Publish(pctx, offer)
	cancel()
	if err != nil {
		if ctx.Err() == nil && !time.Now().Before(s.Deadline()) {
			err = fmt.Errorf("%w: no source is listening for this code (it expired, or hive pair stopped)", ErrExpired)
		}
		return err
	}
	ui.ShowSAS(s.SAS())
	confirm := ui.Confirm()
	for {
		res, ans, err := wait(ctx, s, l, confirm, s.Deadline())
		if err != nil {
			return fail(s, l, err)
		}
		if ans != nil {
			confirm = nil
			if !*ans {
				return fail(s, l, ErrDenied)
			}
			if res, err = s.ConfirmLocal(); err != nil {
				return fail(s, l, err)
			}
		}
		if res.Payload != nil {
			uerr := cfg.Use(res.Payload)
			if done, err := s.Complete(uerr == nil); err == nil {
				l.Publish(ctx, done)
			}
			return uerr
		}
	}
}

// wait handles incoming events until one changes something, the human
// answers on confirm, or until passes. Ignored events are skipped; events
// the session wants sent (an abort after a transcript mismatch) are sent.
func wait(ctx context.Context, s *Session, l *Link, confirm <-chan bool, until time.Time) (Result, *bool, error) {
	if d := s.Deadline(); d.Before(until) {
		until = d
	}
	timer := time.NewTimer(time.Until(until))
	defer timer.Stop()
	for {
		select {
		case ev, ok := <-l.Events():
			if !ok {
				return Result{}, nil, fmt.Errorf("%w: subscription ended", ErrRelay)
			}
			res, err := s.Handle(ev)
			if errors.Is(err, ErrIgnored) {
				continue
			}
			for _, out := range res.Send {
				l.Publish(ctx, out)
			}
			if err != nil || res.SAS != "" || res.Payload != nil || res.Success {
				return res, nil, err
			}
		case ans := <-confirm:
			return Result{}, &ans, nil
		case <-timer.C:
			if !time.Now().Before(s.Deadline()) {
				return Result{}, nil, ErrExpired
			}
			return Result{}, nil, errStep
		case <-l.Lost():
			return Result{}, nil, fmt.Errorf("%w: connection lost", ErrRelay)
		case <-ctx.Done():
			return Result{}, nil, ctx.Err()
		}
	}
}

// fail tells the peer why this side stops (when it should know) and
// returns err.
func fail(s *Session, l *Link, err error) error {
	reason := ""
	switch {
	case errors.Is(err, ErrExpired):
		reason = ReasonTimeout
	case errors.Is(err, ErrDenied), errors.Is(err, context.Canceled):
		reason = ReasonUserDenied
	case errors.As(err, new(*AbortError)), errors.Is(err, ErrSASMismatch), errors.Is(err, ErrRelay):
	default:
		reason = ReasonProtocol
	}
	if reason != "" {
		if ev, aerr := s.Abort(reason); aerr == nil && ev != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			l.Publish(ctx, ev)
			cancel()
		}
	}
	return err
}
