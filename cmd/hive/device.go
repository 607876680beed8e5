package main

import (
	"context"
	"time"

	"github.com/spf13/cobra"
)

func newDeviceCmd() *cobra.Command {
	return commandGroup("device", "Your paired devices (see hive pair / hive join): list and revoke", "",
		newDeviceListCmd(), newDeviceRevokeCmd())
}

func newDeviceListCmd() *cobra.Command {
	cmd := hubCmd(&cobra.Command{
		Use:   "list",
		Short: "List your paired devices known to the hub, with expiry and revocation state",
		Args:  noArgs,
	}, func(ctx context.Context, s *hubConn, cmd *cobra.Command, _ []string) error {
		rows, err := s.Devices(ctx, time.Now())
		if err != nil {
			return err
		}
		return printAttested(cmd, "devices", rows)
	})
	return cmd
}

func newDeviceRevokeCmd() *cobra.Command {
	return revokeCmd("device", "Revoke a paired device's attestation; the hub closes its connections at once and refuses it from then on",
		"device public key (npub or hex), from `hive device list`")
}
