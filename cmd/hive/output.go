package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ainb/hive/client/termtext"
	"github.com/spf13/cobra"
)

// jsonOutput reports whether --json was given.
func jsonOutput(cmd *cobra.Command) bool {
	v, err := cmd.Flags().GetBool("json")
	return err == nil && v
}

// output is how every command prints a result: with --json one compact JSON
// line (NDJSON: a stream calls it once per item), else the text human
// writes, through a termtext.Writer (spec/cli.md, "Untrusted text"). human
// may be nil when the JSON is all there is.
func output(cmd *cobra.Command, v any, human func(w io.Writer) error) error {
	if jsonOutput(cmd) || human == nil {
		return writeJSON(cmd.OutOrStdout(), v)
	}
	return human(humanOut(cmd))
}

// humanOut is the command's stdout for text a person reads: every control
// character but newline and tab shown visibly, whatever wrote it.
func humanOut(cmd *cobra.Command) io.Writer { return termtext.NewWriter(cmd.OutOrStdout()) }

// writeJSON writes v as one compact JSON line, with what a terminal could
// act on escaped (termtext.JSON: DEL, C1 and bidirectional controls as \u
// escapes; encoding/json escapes the C0 controls).
func writeJSON(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(termtext.JSON(b.Bytes()))
	return err
}

// line is hub-supplied text for a one-line field, shown safely.
func line(s string) string { return termtext.Line(s) }

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
