package main

import "github.com/spf13/cobra"

// commandGroup is a command that only holds subs (hive agent, hive key, ...):
// run bare it shows its help; its flag errors are bad input, as the root's.
func commandGroup(use, short, long string, subs ...*cobra.Command) *cobra.Command {
	cmd := &cobra.Command{Use: use, Short: short, Long: long}
	usageErrors(cmd)
	cmd.AddCommand(subs...)
	return cmd
}
