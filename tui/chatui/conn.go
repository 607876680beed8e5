package chatui

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ainb/hive/client"
)

// errText is what a person reads of an error: one short line for a key
// the hub no longer admits, the hub's reason for a refusal, else the
// error's text.
func errText(err error) string {
	if reason := client.RefusalReason(err); reason != "" {
		if errors.Is(err, client.ErrAuth) {
			return admissionLine(reason)
		}
		return reason
	}
	return err.Error()
}

// admissionLine says in one line why the hub no longer lets this key in
// (its reasons are written for logs: this is what to do).
func admissionLine(reason string) string {
	switch {
	case strings.Contains(reason, "revoked by its owner"):
		return "this device was revoked by its owner: pair it again"
	case strings.Contains(reason, "attestation expired") || strings.Contains(reason, "does not hold by the hub's clock"):
		return "your owner's attestation expired: ask for a fresh one"
	case strings.Contains(reason, "is not a member of this hub"):
		return "this key is not a member of the hub: ask a hub admin to add you, or for an invite (hive profile add --invite)"
	}
	return reason
}

// connCheck takes the client's connection state (every tick): a hub that
// stopped admitting the key shows its one line once.
func (m *Model) connCheck() {
	was := m.conn.Failed
	m.conn = m.c().State()
	if u := m.c().URL(); u != "" {
		m.hub = u
	}
	if m.conn.Failed != nil && was == nil {
		m.say(true, errText(m.conn.Failed))
	}
}

// connText is the status line's connection state.
func (m *Model) connText() string {
	s := m.conn
	switch {
	case s.Connected:
		return "● connected"
	case s.Failed != nil:
		return "✗ not connected (refused)"
	case s.Authenticating:
		return "◌ reconnecting: authenticating…"
	case s.Connecting:
		return "◌ reconnecting: connecting…"
	case !s.NextTry.IsZero():
		return fmt.Sprintf("◌ reconnecting: next try in %ds", int(math.Ceil(max(0, s.NextTry.Sub(m.opt.Now()).Seconds()))))
	}
	return "◌ reconnecting…"
}
