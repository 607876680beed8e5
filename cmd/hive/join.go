package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/pairing"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
	"github.com/spf13/cobra"
)

type joinFlags struct {
	qr      string
	name    string // the device's name in the owner's device list
	force   bool
	timeout time.Duration
}

func newJoinCmd() *cobra.Command {
	var f joinFlags
	cmd := &cobra.Command{
		Use:   "join URI | --qr FILE.png",
		Short: "Join a hub as a new device with the code `hive pair` shows; writes a ready profile",
		Long: `Give the nostrpair:// text hive pair printed, or a photo or PNG of its QR
code with --qr. Both screens then show the same 6 digits: confirm on both.
hive join makes this device's own key, receives the owner's attestation, the
hub's URLs and TLS pin, proves them by authenticating to the hub, and writes
the profile (--profile NAME, default the hub's host-port; --force replaces
an existing one). The first profile becomes the current one. The device is
listed under --name, else the --profile name, else this machine's host name.

With --json: NDJSON events {"event":"sas"}, then {"event":"done"} or
{"event":"error"}; the answer is read as a line (y or n) on stdin.
See spec/pairing.md.`,
		Args: rangeArgs(0, 1, "URI | --qr FILE.png"),
		RunE: func(cmd *cobra.Command, args []string) error { return runJoin(cmd, args, f) },
	}
	cmd.Flags().StringVar(&f.qr, "qr", "", "read the code from this image (PNG or JPEG)")
	cmd.Flags().StringVar(&f.name, "name", "", "the device's name in `hive device list` (default: --profile, else the host name)")
	cmd.Flags().BoolVar(&f.force, "force", false, "replace an existing profile of the same name")
	cmd.Flags().DurationVar(&f.timeout, "timeout", pairing.DefaultTimeout, "give up after this long")
	return cmd
}

func runJoin(cmd *cobra.Command, args []string, f joinFlags) error {
	start := time.Now()
	ui := newPairUI(cmd, "")
	u, err := joinURI(args, f.qr)
	if err != nil {
		return ui.fail(err)
	}
	defer u.Wipe()
	set, home, err := profiles()
	if err != nil {
		return ui.fail(err)
	}
	name := flagOrEnv(cmd, "profile", "HIVE_PROFILE")
	deviceName := f.name
	if deviceName == "" {
		deviceName = name
	}
	if deviceName == "" {
		deviceName, _ = os.Hostname()
	}
	if name == "" {
		name = defaultProfileName(client.HubOfPairingURL(u.Relays[0]))
	}
	if _, err := set.Get(name); err == nil && !f.force {
		return ui.fail(withHint(exitWith(exitConflict, fmt.Errorf("profile %q exists already", name)), "pick another name with --profile NAME, or replace it with --force"))
	}
	device, err := identity.GenerateKeys()
	if err != nil {
		return ui.fail(err)
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout+10*time.Second)
	defer cancel()
	r, relayURL, err := dialAnyPairing(ctx, u)
	if err != nil {
		return ui.fail(err)
	}
	defer r.Close()
	j := &joiner{cmd: cmd, home: home, set: set, name: name, deviceName: deviceName, device: device, uri: u, relayURL: relayURL, force: f.force, start: start}
	err = pairing.RunTarget(ctx, pairing.TargetConfig{Relay: r, URI: u, DevicePub: device.PublicHex,
		Options: pairing.Options{Timeout: f.timeout}, Use: func(m *pairing.Message) error { return j.use(ctx, m) }}, ui)
	if err != nil {
		if j.used != nil { // the payload was used: this is the hub's answer
			return ui.fail(j.used)
		}
		return ui.fail(pairError(err))
	}
	return ui.done(j.result, fmt.Sprintf("joined %s as %s: profile %q is ready (try: hive --profile %s profile list)", j.result["hub"], j.result["device_npub"], name, name))
}

// joinURI reads the pairing URI from the argument or a QR image.
func joinURI(args []string, qr string) (*pairing.URI, error) {
	var text string
	switch {
	case qr != "" && len(args) > 0:
		return nil, usageErrorf("give the URI or --qr FILE, not both")
	case qr != "":
		f, err := os.Open(qr)
		if err != nil {
			return nil, exitWith(exitNotFound, err)
		}
		defer f.Close()
		if text, err = pairing.DecodeQR(f); err != nil {
			return nil, exitWith(exitUsage, fmt.Errorf("%s: %w", qr, err))
		}
	case len(args) == 1:
		text = strings.TrimSpace(args[0])
	default:
		return nil, usageErrorf("give the nostrpair:// URI that `hive pair` printed, or --qr FILE.png")
	}
	u, err := pairing.ParseURI(text)
	if err != nil {
		return nil, withHint(exitWith(exitUsage, err), "copy the whole nostrpair:// text that `hive pair` printed, in quotes")
	}
	return u, nil
}

// dialAnyPairing connects to the first reachable relay of the URI, with its pin.
func dialAnyPairing(ctx context.Context, u *pairing.URI) (*nostr.Relay, string, error) {
	var errs []error
	for _, relay := range u.Relays {
		r, err := client.DialPairing(ctx, relay, u.Pin)
		if err == nil {
			return r, relay, nil
		}
		if errors.Is(err, client.ErrAuth) { // wrong pin: the code does not match this hub
			return nil, "", withHint(err, "the certificate is not the one the code names: someone may be in the middle, or the hub's key changed; get a new code")
		}
		errs = append(errs, err)
	}
	return nil, "", errors.Join(errs...)
}

// defaultProfileName is the hub's host-port, e.g. "devbox-7447".
func defaultProfileName(hub string) string {
	name := "hub"
	if p, err := url.Parse(hub); err == nil && p.Host != "" {
		name = strings.NewReplacer(":", "-", "[", "", "]", "").Replace(p.Host)
	}
	return name
}

// joiner uses the payload: writes the key, proves the profile, saves it.
type joiner struct {
	cmd        *cobra.Command
	home       string
	set        *client.Profiles
	name       string // the profile's
	deviceName string
	device     identity.Keys
	uri        *pairing.URI
	relayURL   string
	force      bool
	start      time.Time

	used   error // the error of using the payload (after both confirmations)
	result map[string]any
}

func (j *joiner) use(ctx context.Context, m *pairing.Message) error {
	j.used = j.install(ctx, m)
	return j.used
}

func (j *joiner) install(ctx context.Context, m *pairing.Message) error {
	pr := client.Profile{Name: j.name, Key: filepath.Join(j.home, "keys", j.name+".key")}
	var keyData []byte
	keys := j.device
	var tag nostr.Tag
	var expiresAt *int64
	switch m.PayloadType {
	case pairing.PayloadCustom:
		b, a, err := pairing.ParseBundle(m.Payload, j.device.PublicHex, time.Now())
		if err != nil {
			return exitWith(exitUsage, err)
		}
		pr.Hubs, pr.Pin, tag = b.Hubs, b.Pin, b.Auth
		pr.Attestation = identity.TagJSON(b.Auth)
		if exp, ok := a.Conditions.Expiry(); ok {
			expiresAt = &exp
		}
		if keyData, err = identity.EncodeKeyFile(j.device, identity.SaveOptions{}); err != nil {
			return err
		}
	case pairing.PayloadNsec: // the owner's own key (hive pair --transfer-key, or a plain NIP-AB source)
		var err error
		if keys, err = identity.DecodeKeyFile([]byte(m.Payload), passphraseSource(j.cmd, false)); err != nil {
			return keyError(err)
		}
		keyData = []byte(strings.TrimSpace(m.Payload) + "\n")
		pr.Hubs, pr.Pin = []string{client.HubOfPairingURL(j.relayURL)}, j.uri.Pin
	default:
		return usageErrorf("payload type %q is not something hive join can use (want custom or nsec)", m.PayloadType)
	}
	if err := writeKeyFile(pr.Key, keyData, j.force); err != nil {
		return err
	}
	c, err := client.Connect(ctx, client.Options{URLs: pr.Hubs, Keys: keys, AuthTag: tag, Pin: pr.Pin})
	if err != nil {
		os.Remove(pr.Key)
		return err
	}
	defer c.Close()
	if tag != nil {
		if _, err := c.Publish(ctx, client.DeviceProfile(j.deviceName, tag)); err != nil {
			os.Remove(pr.Key)
			return err
		}
	}
	elapsed := time.Since(j.start)
	if err := j.set.Put(pr); err != nil {
		return err
	}
	if err := j.set.Save(j.home); err != nil {
		return err
	}
	npub, _ := nip19.EncodePublicKey(keys.PublicHex)
	j.result = map[string]any{"profile": j.name, "device": keys.PublicHex, "device_npub": npub, "owner": "",
		"hub": c.URL(), "expires_at": expiresAt, "elapsed_ms": elapsed.Milliseconds()}
	if tag != nil {
		j.result["owner"] = tag[1]
	}
	return nil
}

// writeKeyFile creates a key file (mode 0600) that must not exist, unless force.
func writeKeyFile(path string, data []byte, force bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if force {
		os.Remove(path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, identity.KeyFileMode)
	if errors.Is(err, fs.ErrExist) {
		return withHint(exitWith(exitConflict, fmt.Errorf("%w: %s", identity.ErrKeyFileExists, path)), "use --force to replace it, or another --profile NAME")
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
