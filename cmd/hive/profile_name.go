package main

import (
	"context"
	"strings"
	"time"

	"github.com/ainb/hive/client"
	"github.com/spf13/cobra"
)

func newProfileNameCmd() *cobra.Command {
	var about string
	cmd := &cobra.Command{
		Use:   "name NAME [--about TEXT]",
		Short: "Publish NAME as your name on the hub (kind 0), shown instead of your key and accepted wherever a key is",
		Args:  exactArgs(1, "NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := strings.TrimSpace(args[0])
			if name == "" || strings.ContainsAny(name, "@\n") || len(name) > 64 {
				return usageErrorf("NAME %q: give 1 to 64 characters, without @ or a line break", args[0])
			}
			return withHub(cmd, func(ctx context.Context, s *hubConn) error {
				if s.t.authTag != nil {
					return usageErrorf("this key is an agent's or a paired device's: a device is shown with its owner's name (set it from the owner's profile); an agent's name is set with `hive agent profile`")
				}
				ev, err := s.Publish(ctx, client.MemberProfile(name, about))
				if err != nil {
					return err
				}
				return outputLine(cmd, map[string]any{"pubkey": ev.PubKey, "name": name, "event": ev.ID}, "you are %s", name)
			})
		},
	}
	cmd.Flags().StringVar(&about, "about", "", "a line about you")
	addTimeoutFlag(cmd, 10*time.Second)
	return cmd
}
