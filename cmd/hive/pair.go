package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/pairing"
	"github.com/nbd-wtf/go-nostr/nip19"
	"github.com/spf13/cobra"
)

// TransferPassphraseEnv holds the passphrase that encrypts a key sent with
// `hive pair --transfer-key` (else it is asked on the terminal).
const TransferPassphraseEnv = "HIVE_TRANSFER_PASSPHRASE"

type pairFlags struct {
	expires     string
	transferKey bool
	png         string
	timeout     time.Duration
}

func newPairCmd() *cobra.Command {
	var f pairFlags
	cmd := &cobra.Command{
		Use:   "pair [--expires 90d] [--transfer-key] [--png FILE]",
		Short: "Enrol a new device: show a QR code, compare 6 digits, attest the device's own key",
		Long: `Run where your key lives (your profile's hub and key, or --hub/--key/--pin).
hive pair shows a QR code and its text; run ` + "`hive join`" + ` on the new device with
it. Both screens then show the same 6 digits: confirm on both. The new device
gets its own key, attested by yours until --expires (NIP-OA), the hub's
URLs and TLS pin. --transfer-key sends your own key instead (NIP-49
encrypted under a passphrase from $` + TransferPassphraseEnv + ` or asked here).

With --json: NDJSON events {"event":"uri"}, {"event":"sas"}, then {"event":"done"}
or {"event":"error"}; the answer is read as a line (y or n) on stdin.
See spec/pairing.md.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPair(cmd, f) },
	}
	cmd.Flags().StringVar(&f.expires, "expires", "90d", "lifetime of the device's attestation (e.g. 90d, 12h)")
	cmd.Flags().BoolVar(&f.transferKey, "transfer-key", false, "send your own key (NIP-49 encrypted) instead of attesting a device key")
	cmd.Flags().StringVar(&f.png, "png", "", "also write the QR code to this PNG file")
	cmd.Flags().DurationVar(&f.timeout, "timeout", pairing.DefaultTimeout, "how long the code stays valid")
	return cmd
}

func runPair(cmd *cobra.Command, f pairFlags) error {
	ui := newPairUI(cmd, f.png)
	if err := pair(cmd, f, ui); err != nil {
		return ui.fail(err)
	}
	return nil
}

func pair(cmd *cobra.Command, f pairFlags, ui *pairUI) error {
	expires, err := parseDuration(f.expires)
	if err != nil {
		return usageErrorf("--expires: %v", err)
	}
	t, err := resolveTarget(cmd)
	if err != nil {
		return err
	}
	if len(t.hubs) == 0 {
		return usageErrorf("no hub: give --hub URL or a profile")
	}
	if t.authTag != nil && !f.transferKey {
		return usageErrorf("this profile's key is itself attested (an agent or device key): pair from the owner's profile, whose key the hub admits as a member")
	}
	owner, err := loadKeyFile(cmd, t.keyFile)
	if err != nil {
		return err
	}
	if err := checkAdmitted(cmd, t, owner); err != nil {
		return err
	}
	var transfer string
	if f.transferKey {
		if transfer, err = encryptForTransfer(cmd, owner); err != nil {
			return err
		}
	}
	relayURL, err := client.PairingURL(t.hubs[0])
	if err != nil {
		return exitWith(exitUsage, err)
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout+pairing.DefaultCompleteWait+10*time.Second)
	defer cancel()
	r, err := client.DialPairing(ctx, relayURL, t.pin)
	if err != nil {
		return err
	}
	defer r.Close()
	var expiresAt int64
	offer, err := pairing.RunSource(ctx, pairing.SourceConfig{
		Relay: r, RelayURL: relayURL, Pin: t.pin, Options: pairing.Options{Timeout: f.timeout},
		Authenticate: func(ctx context.Context) error {
			if t.authTag != nil { // an attested key (--transfer-key): not a member, pairs as a stranger
				return nil
			}
			return connectError(t, client.AuthPairing(ctx, r, owner))
		},
		Payload: func(o *pairing.Message) (string, string, error) {
			if transfer != "" {
				return pairing.PayloadNsec, transfer, nil
			}
			now := time.Now()
			b, err := pairing.NewBundle(owner, o.DevicePubkey, t.hubs, t.pin, expires, now)
			if err != nil {
				return "", "", err
			}
			expiresAt = now.Add(expires).Unix()
			s, err := b.Encode()
			return pairing.PayloadCustom, s, err
		},
	}, ui)
	if err != nil {
		return pairError(err)
	}
	if transfer != "" {
		return ui.done(map[string]any{"transferred_key": true, "owner": owner.PublicHex},
			"sent your key (encrypted) to the other device; it needs the passphrase to use it")
	}
	npub, _ := nip19.EncodePublicKey(offer.DevicePubkey)
	return ui.done(map[string]any{"device": offer.DevicePubkey, "device_npub": npub, "expires_at": expiresAt},
		fmt.Sprintf("paired device %s, attested until %s (revoke with: hive device revoke --device %s)", npub, fmtTime(expiresAt), npub))
}

// checkAdmitted authenticates to the hub as the owner before any code is
// shown: a wrong pin, an unreachable hub or a key the hub refuses is
// reported now, not after the other device has joined in vain.
func checkAdmitted(cmd *cobra.Command, t target, owner identity.Keys) error {
	ctx, cancel := context.WithTimeout(cmd.Context(), 10*time.Second)
	defer cancel()
	c, err := client.Connect(ctx, client.Options{URLs: t.hubs, Keys: owner, AuthTag: t.authTag, Pin: t.pin})
	if err != nil {
		return connectError(t, err)
	}
	c.Close()
	return nil
}

// encryptForTransfer is the owner's key as a NIP-49 ncryptsec under the
// transfer passphrase.
func encryptForTransfer(cmd *cobra.Command, k identity.Keys) (string, error) {
	env := func(name string) (string, bool) {
		if name == identity.PassphraseEnv {
			return os.LookupEnv(TransferPassphraseEnv)
		}
		return os.LookupEnv(name)
	}
	prompt := func() ([]byte, error) {
		tty, closeTTY, err := terminal(cmd)
		if err != nil {
			return nil, fmt.Errorf("%w: %v; set %s", identity.ErrPassphraseRequired, err, TransferPassphraseEnv)
		}
		defer closeTTY()
		return terminalPrompt(tty, cmd.ErrOrStderr(), "Passphrase to protect the transferred key: ", true)()
	}
	b, err := identity.EncodeKeyFile(k, identity.SaveOptions{Encrypt: true, Passphrase: identity.EnvOrPrompt(env, prompt)})
	if err != nil {
		return "", exitWith(exitUsage, err)
	}
	return strings.TrimSpace(string(b)), nil
}

// pairError gives pairing failures their exit code and the fix.
func pairError(err error) error {
	var ae *pairing.AbortError
	switch {
	case errors.Is(err, pairing.ErrExpired):
		return withHint(exitWith(exitTimeout, err), "run `hive pair` again for a fresh code and join within its time")
	case errors.Is(err, pairing.ErrNoComplete):
		return withHint(exitWith(exitTimeout, err), "check on the other device whether it joined (`hive device list`)")
	case errors.Is(err, pairing.ErrSASMismatch):
		return withHint(exitWith(exitRefused, err), "someone may have intercepted the code: run `hive pair` again and compare the digits")
	case errors.As(err, &ae), errors.Is(err, pairing.ErrDenied), errors.Is(err, pairing.ErrFailed):
		return exitWith(exitRefused, err)
	case errors.Is(err, pairing.ErrBundle):
		return exitWith(exitUsage, err)
	case errors.Is(err, pairing.ErrRelay):
		return withHint(exitWith(exitUnavailable, err), "is the hub running? check --hub or the profile")
	case errors.Is(err, context.DeadlineExceeded):
		return exitWith(exitTimeout, err)
	}
	return err
}
