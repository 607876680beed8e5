package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// jsonOutput reports whether --json was given.
func jsonOutput(cmd *cobra.Command) bool {
	v, err := cmd.Flags().GetBool("json")
	return err == nil && v
}

// output is how every command prints a result: with --json one compact JSON
// line (NDJSON: a stream calls it once per item), else the text human
// writes. human may be nil when the JSON is all there is.
func output(cmd *cobra.Command, v any, human func(w io.Writer) error) error {
	w := cmd.OutOrStdout()
	if jsonOutput(cmd) || human == nil {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	return human(w)
}

// outputLine is output with a one-line human form.
func outputLine(cmd *cobra.Command, v any, format string, args ...any) error {
	return output(cmd, v, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, format+"\n", args...)
		return err
	})
}

// usageErrors makes flag parsing errors of cmd and its subcommands bad input.
func usageErrors(cmd *cobra.Command) {
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitWith(exitUsage, fmt.Errorf("%w (see %s --help)", err, c.CommandPath()))
	})
}

func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usageErrorf("%s takes no arguments, got %q (see %s --help)", cmd.CommandPath(), args, cmd.CommandPath())
	}
	return nil
}

func exactArgs(n int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usageErrorf("usage: %s %s (got %d arguments)", cmd.CommandPath(), names, len(args))
		}
		return nil
	}
}

func rangeArgs(lo, hi int, names string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || len(args) > hi {
			return usageErrorf("usage: %s %s (got %d arguments)", cmd.CommandPath(), names, len(args))
		}
		return nil
	}
}
