package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/ainb/hive/client/tlspin"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// PairPath is the path of the hub's pairing endpoint (spec/pairing.md).
const PairPath = "/pair"

// PairingURL is the pairing endpoint of the hub at hubURL: same scheme,
// host and port, path /pair.
func PairingURL(hubURL string) (string, error) {
	u, err := url.Parse(hubURL)
	if err != nil || (u.Scheme != "ws" && u.Scheme != "wss") || u.Host == "" {
		return "", wrap(ErrInvalid, fmt.Errorf("hub URL %q: want ws:// or wss://HOST:PORT", hubURL))
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + PairPath
	u.RawQuery, u.Fragment, u.RawPath = "", "", ""
	return u.String(), nil
}

// HubOfPairingURL is the hub URL whose pairing endpoint is pairURL (the
// inverse of PairingURL).
func HubOfPairingURL(pairURL string) string {
	return strings.TrimSuffix(strings.TrimSuffix(pairURL, "/"), PairPath)
}

// DialPairing connects to a pairing endpoint, which needs no AUTH, checking
// the TLS pin as Connect does. A pin mismatch wraps ErrAuth and a
// *tlspin.MismatchError; any other failure wraps ErrUnreachable.
func DialPairing(ctx context.Context, pairURL, pin string) (*nostr.Relay, error) {
	tc, err := tlspin.ClientConfig(pin)
	if err != nil {
		return nil, wrap(ErrInvalid, err)
	}
	r := nostr.NewRelay(context.Background(), pairURL)
	if err := r.ConnectWithTLS(ctx, tc); err != nil {
		var mm *tlspin.MismatchError
		if errors.As(err, &mm) {
			return nil, wrap(ErrAuth, mm)
		}
		return nil, wrap(ErrUnreachable, fmt.Errorf("connecting to the pairing endpoint %s: %w", pairURL, err))
	}
	return r, nil
}

// AuthPairing authenticates the connection r to a pairing endpoint as
// keys (NIP-42), so that the endpoint treats the session it carries as a
// member's (spec/pairing.md). Call it after the endpoint answered a
// subscription: its challenge comes first on the connection, so it is known
// by then. A refusal wraps ErrAuth.
func AuthPairing(ctx context.Context, r *nostr.Relay, keys identity.Keys) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := r.Auth(ctx, func(ev *nostr.Event) error { return ev.Sign(keys.SecretHex) })
	if err != nil {
		return wrap(ErrAuth, fmt.Errorf("the hub's pairing endpoint refused AUTH: %s", strings.TrimPrefix(err.Error(), "msg: ")))
	}
	return nil
}
