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
	cmd := sessionCmd(&cobra.Command{
		Use:   "list",
		Short: "List your paired devices known to the hub, with expiry and revocation state",
		Args:  noArgs,
	}, func(ctx context.Context, s *session, cmd *cobra.Command, _ []string) error {
		rows, err := s.Devices(ctx, time.Now())
		if err != nil {
			return err
		}
		return printAttested(cmd, "devices", rows)
	})
	return cmd
}

func newDeviceRevokeCmd() *cobra.Command {
	var device, reason string
	cmd := &cobra.Command{
		Use:   "revoke --device NPUB|HEX",
		Short: "Revoke a paired device's attestation; the hub closes its connections at once and refuses it from then on",
		Args:  noArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return revokeAttested(cmd, "--device", device, reason) },
	}
	addTimeoutFlag(cmd, 10*time.Second)
	cmd.Flags().StringVar(&device, "device", "", "device public key (npub or hex), from `hive device list`")
	cmd.Flags().StringVar(&reason, "reason", "", "free-text reason stored with the revocation")
	return cmd
}
