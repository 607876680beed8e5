package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/tlspin"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

// Global flags: every command takes them; each has an environment override.
func addGlobalFlags(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.String("profile", "", "profile to use (env HIVE_PROFILE; default: the current one, see hive profile use)")
	pf.String("hub", "", "hub URL, ws:// or wss:// (env HIVE_HUB; default: the profile's)")
	pf.String("key", "", "key file (env HIVE_KEY; default: the profile's)")
	pf.String("pin", "", "TLS pin sha256/<base64> of the hub (env HIVE_PIN; default: the profile's)")
	pf.String("auth-tag", "", "owner's NIP-OA auth tag (JSON array) for an agent or device key (env HIVE_AUTH_TAG; default: the profile's attestation)")
	pf.Bool("json", false, "print NDJSON on stdout; errors as JSON on stderr")
}

// flagOrEnv is the flag's value if given, else the environment's.
func flagOrEnv(cmd *cobra.Command, name string, envs ...string) string {
	if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
		return f.Value.String()
	}
	for _, e := range envs {
		if v := os.Getenv(e); v != "" {
			return v
		}
	}
	return ""
}

// target is who talks to which hub: flags, then environment, then profile.
type target struct {
	profile string
	hubs    []string
	pin     string
	keyFile string
	authTag nostr.Tag
	// pinProfile names the profile the pin came from ("" for --pin or HIVE_PIN)
	pinProfile string
}

// resolveTarget reads the flags and environment; client.ResolveTarget
// fills in the rest from the profile.
func resolveTarget(cmd *cobra.Command) (target, error) {
	spec := client.TargetSpec{
		Profile: flagOrEnv(cmd, "profile", "HIVE_PROFILE"),
		Hub:     flagOrEnv(cmd, "hub", "HIVE_HUB", "HIVE_URL"),
		Key:     flagOrEnv(cmd, "key", "HIVE_KEY"),
		Pin:     flagOrEnv(cmd, "pin", "HIVE_PIN"),
		AuthTag: flagOrEnv(cmd, "auth-tag", "HIVE_AUTH_TAG"),
	}
	t, err := client.ResolveTarget(spec, os.LookupEnv)
	switch {
	case errors.Is(err, client.ErrNotFound):
		return target{}, withHint(exitWith(exitUsage, err), "`hive profile add NAME --hub URL --key FILE`, or give --hub URL and --key FILE")
	case err != nil:
		return target{}, err
	}
	return target{profile: t.Profile, hubs: t.Hubs, pin: t.Pin, keyFile: t.KeyFile, authTag: t.AuthTag, pinProfile: t.PinProfile}, nil
}

// hubConn is one command's connection to the hub.
type hubConn struct {
	*client.Client
	keys identity.Keys
	t    target
}

// addTimeoutFlag defines --timeout with the command's default.
func addTimeoutFlag(cmd *cobra.Command, d time.Duration) {
	cmd.Flags().Duration("timeout", d, "give up after this long")
}

func timeoutOf(cmd *cobra.Command) time.Duration {
	d, err := cmd.Flags().GetDuration("timeout")
	if err != nil || d <= 0 {
		return 10 * time.Second
	}
	return d
}

// dial resolves the target, loads the key and connects.
func dial(ctx context.Context, cmd *cobra.Command) (*hubConn, error) {
	t, err := resolveTarget(cmd)
	if err != nil {
		return nil, err
	}
	keys, err := loadKeyFile(cmd, t.keyFile)
	if err != nil {
		return nil, err
	}
	c, err := client.Connect(ctx, client.Options{URLs: t.hubs, Keys: keys, AuthTag: t.authTag, Pin: t.pin})
	if err != nil {
		return nil, connectError(t, err)
	}
	return &hubConn{Client: c, keys: keys, t: t}, nil
}

// connectError gives a failed first connection its exit code and the fix.
func connectError(t target, err error) error {
	var mm *tlspin.MismatchError
	switch {
	case errors.As(err, &mm):
		return withHint(exitWith(exitRefused, err), pinHint(t.pinProfile, mm))
	case errors.Is(err, client.ErrInvalid): // a wrong URL, named in the message
		return exitWith(exitUsage, err)
	case errors.Is(err, client.ErrUnreachable):
		return withHint(exitWith(exitUnavailable, fmt.Errorf("%w", err)), "is the hub running? check --hub or the profile (`hive profile list`)")
	}
	return err
}

// withHub connects for the length of one command (bounded by --timeout)
// and runs fn.
func withHub(cmd *cobra.Command, fn func(ctx context.Context, s *hubConn) error) error {
	ctx, cancel := context.WithTimeout(cmd.Context(), timeoutOf(cmd))
	defer cancel()
	s, err := dial(ctx, cmd)
	if err != nil {
		return err
	}
	defer s.Close()
	return fn(ctx, s)
}

// hubCmd makes cmd run fn over one connection to the hub (withHub),
// within its --timeout, by default 10 s.
func hubCmd(cmd *cobra.Command, fn func(ctx context.Context, s *hubConn, cmd *cobra.Command, args []string) error) *cobra.Command {
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return withHub(cmd, func(ctx context.Context, s *hubConn) error {
			return fn(ctx, s, cmd, args)
		})
	}
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}
