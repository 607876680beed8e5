package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/identity"
	"github.com/ainb/hive/workflow/runner"
	"github.com/spf13/cobra"
)

// The quick runner: `hive workflow serve` without --config runs a runner
// of the profile's member on this machine. Its key, its attestation by the
// member (30 days, renewed at start when less than a week is left) and its
// state live in $HIVE_HOME/runners/<member npub>/; hive workflow apply
// without --runner binds to it.

// quickRunnerDir is where the member's quick runner lives.
func quickRunnerDir(owner identity.Keys) (string, error) {
	home, err := client.Home(os.LookupEnv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "runners", owner.Npub()), nil
}

// quickRunnerKey is the public key of the member's quick runner, if one
// was ever set up here ("" when none).
func quickRunnerKey(owner identity.Keys) string {
	dir, err := quickRunnerDir(owner)
	if err != nil {
		return ""
	}
	k, err := identity.LoadKeyFile(filepath.Join(dir, "runner.key"), nil)
	if err != nil {
		return ""
	}
	return k.PublicHex
}

// quickRunnerConfig sets up (or renews) the member's quick runner and
// returns its config; said is what it did, for the log.
func quickRunnerConfig(cmd *cobra.Command) (*runner.Config, string, error) {
	t, err := resolveTarget(cmd)
	if err != nil {
		return nil, "", err
	}
	owner, err := loadKeyFile(cmd, t.keyFile)
	if err != nil {
		return nil, "", err
	}
	if t.authTag != nil {
		return nil, "", usageErrorf("this profile's key is a device or agent key: a runner is attested by a member's own key; run hive workflow serve with the member's profile, or give --config")
	}
	dir, err := quickRunnerDir(owner)
	if err != nil {
		return nil, "", err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", err
	}
	keyFile, tagFile := filepath.Join(dir, "runner.key"), filepath.Join(dir, "runner.tag")
	var said []string
	rk, err := identity.LoadKeyFile(keyFile, nil)
	if errors.Is(err, fs.ErrNotExist) {
		if rk, err = identity.GenerateKeys(); err == nil {
			err = identity.SaveKeyFile(keyFile, rk, identity.SaveOptions{})
		}
		said = append(said, "new runner key "+rk.Npub())
	}
	if err != nil {
		return nil, "", fmt.Errorf("the runner's key %s: %w", keyFile, err)
	}
	if renew, why := attestationDue(tagFile, rk); renew {
		spec := identity.AttestSpec{Now: time.Now().Unix(), ValidFor: 30 * 24 * time.Hour}
		conds, err := spec.Conditions()
		if err != nil {
			return nil, "", err
		}
		tag, err := identity.Attest(owner.SecretHex, rk.PublicHex, conds)
		if err != nil {
			return nil, "", err
		}
		if err := os.WriteFile(tagFile, []byte(identity.TagJSON(tag)+"\n"), 0o600); err != nil {
			return nil, "", err
		}
		said = append(said, why+": attested by "+owner.Npub()+" for 30 days")
	}
	cfg := &runner.Config{Hub: t.profile, Pin: t.pin, Key: keyFile, Attestation: tagFile, StateDir: filepath.Join(dir, "state")}
	if t.profile == "" || len(t.hubs) > 0 && flagOrEnv(cmd, "hub", "HIVE_HUB", "HIVE_URL") != "" {
		cfg.Hub = t.hubs[0]
	}
	return cfg, strings.Join(said, "; "), nil
}

// attestationDue says whether the runner's attestation must be (re)issued:
// none yet, not for this key, or less than a week left.
func attestationDue(tagFile string, rk identity.Keys) (bool, string) {
	raw, err := os.ReadFile(tagFile)
	if err != nil {
		return true, "new attestation"
	}
	tag, err := identity.ParseAttestationText(string(raw))
	if err != nil {
		return true, "attestation unreadable"
	}
	att, err := identity.VerifyAuthTag(tag, rk.PublicHex)
	if err != nil {
		return true, "attestation not for this key"
	}
	if exp, ok := att.Conditions.Expiry(); ok && time.Until(time.Unix(exp, 0)) < 7*24*time.Hour {
		return true, "attestation renewed"
	}
	return false, ""
}

// serveConfig is the runner's config: the file given, else the quick
// runner's (set up on the way, which it logs).
func serveConfig(cmd *cobra.Command, config string, log *slog.Logger) (*runner.Config, error) {
	if config != "" {
		return serviceConfig(config, "spec/workflows.md", runner.LoadConfig)
	}
	cfg, said, err := quickRunnerConfig(cmd)
	if err != nil {
		return nil, err
	}
	if said != "" {
		log.Info("runner set up", "did", said, "dir", filepath.Dir(cfg.Key))
	}
	return cfg, nil
}

// applyRunner is the runner apply binds to: --runner's key, else the
// member's quick runner, added to ch when it is not a member yet (apply
// is for the channel's owners and admins, who may add it).
func applyRunner(ctx context.Context, cmd *cobra.Command, s *hubConn, given string, ch client.Channel) (string, error) {
	if given != "" {
		return s.ResolveKey(ctx, given)
	}
	pk := quickRunnerKey(s.keys)
	if pk == "" {
		return "", usageErrorf("give --runner NAME|NPUB (a runner that is a member of channel %s), or start your own runner first: hive workflow serve", ch.Name)
	}
	if ch.Members[pk] == "" {
		if _, err := s.Publish(ctx, client.ChannelAdd(ch.ID, pk, "")); err != nil {
			return "", fmt.Errorf("adding your runner %s to channel %s: %w", npub(pk), ch.Name, err)
		}
		if ch.Members != nil {
			ch.Members[pk] = "member"
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "added your runner %s to #%s\n", npub(pk), ch.Name)
	}
	return pk, nil
}
