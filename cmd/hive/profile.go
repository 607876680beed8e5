package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/ainb/hive/client"
	"github.com/ainb/hive/client/tlspin"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
	"github.com/spf13/cobra"
)

func newProfileCmd() *cobra.Command {
	return commandGroup("profile", "Profiles: which key talks to which hub (kept in $HIVE_HOME/profiles.toml)",
		`A profile names a hub (one or more URLs), the hub's TLS pin, a key file and,
for an agent or device key, the owner's attestation. Every command takes
--profile NAME (env HIVE_PROFILE), else uses the current profile; --hub, --key
and --pin (env HIVE_HUB, HIVE_KEY, HIVE_PIN) override its fields.

The config directory is $HIVE_HOME, by default hive under the user's config
directory (~/.config/hive on Linux).`,
		newProfileAddCmd(), newProfileListCmd(), newProfileUseCmd(), newProfileRemoveCmd(), newProfileNameCmd())
}

// profiles loads the profile set and returns it with its home.
func profiles() (*client.Profiles, string, error) {
	home, err := client.Home(os.LookupEnv)
	if err != nil {
		return nil, "", err
	}
	p, err := client.LoadProfiles(home)
	return p, home, err
}

// updateProfiles loads the profile set, lets change edit it and saves it.
func updateProfiles(change func(set *client.Profiles) error) error {
	set, home, err := profiles()
	if err != nil {
		return err
	}
	if err := change(set); err != nil {
		return err
	}
	return set.Save(home)
}

// profileView is a profile as commands print it.
type profileView struct {
	client.Profile
	Npub    string `json:"npub,omitempty"`
	Current bool   `json:"current"`
}

func newProfileAddCmd() *cobra.Command {
	var newKey, use bool
	var invite string
	cmd := &cobra.Command{
		Use:   "add NAME --hub URL[,URL...] (--key FILE | --new-key) [--pin PIN] [--invite LINK]",
		Short: "Add or update a profile; --new-key makes its key in $HIVE_HOME/keys",
		Long: `Add a profile, or update an existing one: what is not given is kept (the
pin and attestation only while the hub and the key stay the same).

With --invite (an invite link or claim from hive invite, the web chat or
flotilla) the key joins the hub first (NIP-43) and the profile is written
only once the hub admitted it; the link's hub is the profile's when --hub is
not given.`,
		Example: `  hive profile add alice --hub wss://devbox:7447 --pin sha256/... --new-key
  hive profile add alice --hub wss://devbox:7447 --new-key --invite 'https://devbox:7447/?c=...&r=...'
  hive profile add admin --hub wss://127.0.0.1:7447 --pin sha256/... --key .hive/admin.key
  hive profile add admin --pin sha256/...     # the hub's new pin, the rest kept`,
		Args: exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			set, home, err := profiles()
			if err != nil {
				return err
			}
			var claim string
			if invite != "" {
				var hub string
				if hub, claim, err = client.ParseInvite(invite); err != nil {
					return usageErrorf("--invite: %v", err)
				}
				if hub != "" && flagOrEnv(cmd, "hub") == "" {
					cmd.Flags().Set("hub", hub)
				}
			}
			pr, err := profileFromFlags(cmd, set, args[0], newKey)
			if err != nil {
				return err
			}
			var keys identity.Keys
			if newKey {
				pr.Key = filepath.Join(home, "keys", pr.Name+".key")
				if keys, err = identity.GenerateKeys(); err != nil {
					return err
				}
			} else {
				if pr.Key, err = filepath.Abs(pr.Key); err != nil {
					return err
				}
				if keys, err = loadKeyFile(cmd, pr.Key); err != nil {
					return err
				}
			}
			if claim != "" {
				if err := joinWithInvite(cmd, pr, keys, claim); err != nil {
					return err
				}
			}
			if newKey {
				if err := os.MkdirAll(filepath.Dir(pr.Key), 0o700); err != nil {
					return err
				}
				if err := identity.SaveKeyFile(pr.Key, keys, identity.SaveOptions{}); err != nil {
					return keyError(err)
				}
			}
			if err := set.Put(pr); err != nil {
				return err
			}
			if use {
				set.Current = pr.Name
			}
			if err := set.Save(home); err != nil {
				return err
			}
			v := profileView{Profile: pr, Npub: keys.Npub(), Current: set.Current == pr.Name}
			return output(cmd, v, func(w io.Writer) error {
				fmt.Fprintf(w, "profile %s: %s as %s\n", pr.Name, strings.Join(pr.Hubs, ", "), v.Npub)
				if v.Current {
					fmt.Fprintf(w, "it is the current profile\n")
				}
				if claim != "" {
					_, err := fmt.Fprintf(w, "joined the hub with the invite: %s is a member\n", v.Npub)
					return err
				}
				_, err := fmt.Fprintf(w, "if it is not a member yet, a hub admin admits it with: hive member add %s\n", v.Npub)
				return err
			})
		},
	}
	cmd.Flags().BoolVar(&newKey, "new-key", false, "create a new key file for this profile in $HIVE_HOME/keys")
	cmd.Flags().StringVar(&invite, "invite", "", "an invite link or claim (hive invite): join the hub with the key before writing the profile")
	addTimeoutFlag(cmd, 10*time.Second)
	cmd.Flags().BoolVar(&use, "use", false, "make it the current profile")
	return cmd
}

// joinWithInvite connects to the profile's hub as keys with the invite
// claim: the hub admits the key (or says it already is a member), or the
// command fails with the hub's reason.
func joinWithInvite(cmd *cobra.Command, pr client.Profile, keys identity.Keys, claim string) error {
	ctx, cancel := context.WithTimeout(cmd.Context(), timeoutOf(cmd))
	defer cancel()
	var tag nostr.Tag
	if pr.Attestation != "" {
		tag, _ = identity.ParseTagJSON(pr.Attestation)
	}
	c, err := client.Connect(ctx, client.Options{URLs: pr.Hubs, Keys: keys, Pin: pr.Pin, AuthTag: tag, Invite: claim})
	if errors.Is(err, client.ErrAuth) && client.RefusalReason(err) != "" {
		return withHint(err, "ask whoever invited you for a new invite link (hive invite)")
	}
	if err != nil {
		return connectError(target{hubs: pr.Hubs, pin: pr.Pin, pinProfile: pr.Name}, err)
	}
	c.Close()
	return nil
}

// profileFromFlags is the profile `profile add NAME` writes: the flags over
// the existing profile of that name, if there is one.
func profileFromFlags(cmd *cobra.Command, set *client.Profiles, name string, newKey bool) (client.Profile, error) {
	pr := client.Profile{Name: name}
	old, err := set.Get(name)
	exists := err == nil
	for _, u := range strings.Split(flagOrEnv(cmd, "hub"), ",") {
		if u = strings.TrimSpace(u); u != "" {
			if err := client.CheckHubURL(u); err != nil {
				return pr, exitWith(exitUsage, err)
			}
			pr.Hubs = append(pr.Hubs, u)
		}
	}
	pr.Key = flagOrEnv(cmd, "key")
	if exists && pr.Key == "" && !newKey {
		pr.Key, pr.Attestation = old.Key, old.Attestation
	}
	if exists && len(pr.Hubs) == 0 {
		pr.Hubs, pr.Pin = old.Hubs, old.Pin
	}
	if newKey == (pr.Key != "") {
		if exists {
			return pr, usageErrorf("give --key FILE or --new-key to change the profile's key, not both")
		}
		return pr, usageErrorf("give exactly one of --key FILE (an existing key file) and --new-key")
	}
	if pin := flagOrEnv(cmd, "pin"); pin != "" {
		if pr.Pin, err = tlspin.Parse(pin); err != nil {
			return pr, exitWith(exitUsage, err)
		}
	}
	if tag := flagOrEnv(cmd, "auth-tag"); tag != "" {
		if _, err := identity.ParseTagJSON(tag); err != nil {
			return pr, usageErrorf("--auth-tag: %v", err)
		}
		pr.Attestation = tag
	}
	return pr, nil
}

func newProfileListCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List the profiles; * marks the current one",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			set, _, err := profiles()
			if err != nil {
				return err
			}
			list := set.List()
			if jsonOutput(cmd) {
				for _, pr := range list {
					if err := output(cmd, profileView{Profile: pr, Current: pr.Name == set.Current}, nil); err != nil {
						return err
					}
				}
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', 0)
			fmt.Fprintln(w, "\tNAME\tHUBS\tKEY\tPIN")
			for _, pr := range list {
				mark := ""
				if pr.Name == set.Current {
					mark = "*"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", mark, pr.Name, strings.Join(pr.Hubs, ","), pr.Key, pr.Pin)
			}
			return w.Flush()
		},
	}
}

func newProfileUseCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "use NAME",
		Short: "Make NAME the current profile",
		Args:  exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := updateProfiles(func(set *client.Profiles) error { return set.Use(args[0]) }); err != nil {
				return err
			}
			return outputLine(cmd, map[string]any{"current": args[0]}, "current profile: %s", args[0])
		},
	}
}

func newProfileRemoveCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "remove NAME",
		Short: "Remove a profile (its key file stays)",
		Args:  exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var pr client.Profile
			if err := updateProfiles(func(set *client.Profiles) (err error) {
				if pr, err = set.Get(args[0]); err != nil {
					return err
				}
				return set.Remove(args[0])
			}); err != nil {
				return err
			}
			return outputLine(cmd, map[string]any{"removed": args[0], "key": pr.Key}, "removed profile %s (key file %s kept)", args[0], pr.Key)
		},
	}
}
