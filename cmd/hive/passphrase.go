package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/ainb/hive/identity"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// passphraseSource is the one source of passphrases: HIVE_PASSPHRASE, else
// the terminal (standard input if it is one, else the controlling terminal).
// confirm asks twice, for a new passphrase.
func passphraseSource(cmd *cobra.Command, confirm bool) identity.PassphraseFunc {
	prompt := func() ([]byte, error) {
		tty, closeTTY, err := terminal(cmd)
		if err != nil {
			return nil, fmt.Errorf("%w: %v; set %s", identity.ErrPassphraseRequired, err, identity.PassphraseEnv)
		}
		defer closeTTY()
		label := "Passphrase: "
		if confirm {
			label = "New passphrase: "
		}
		return terminalPrompt(tty, cmd.ErrOrStderr(), label, confirm)()
	}
	return identity.EnvOrPrompt(os.LookupEnv, prompt)
}

// terminalPrompt returns a PassphraseFunc that writes label to out and reads
// a line from the terminal in without echo. With confirm it asks twice and
// refuses an empty or mismatched passphrase (use it when encrypting). If in
// is not a terminal it fails with identity.ErrPassphraseRequired naming
// identity.PassphraseEnv.
func terminalPrompt(in *os.File, out io.Writer, label string, confirm bool) identity.PassphraseFunc {
	return func() ([]byte, error) {
		fd := int(in.Fd())
		if !term.IsTerminal(fd) {
			return nil, fmt.Errorf("%w: no terminal to ask on; set %s", identity.ErrPassphraseRequired, identity.PassphraseEnv)
		}
		fmt.Fprint(out, label)
		p, err := term.ReadPassword(fd)
		fmt.Fprintln(out)
		if err != nil {
			return nil, fmt.Errorf("reading passphrase: %w", err)
		}
		if !confirm {
			return p, nil
		}
		if len(p) == 0 {
			return nil, fmt.Errorf("%w: empty passphrase refused", identity.ErrPassphraseRequired)
		}
		fmt.Fprint(out, "Repeat passphrase: ")
		p2, err := term.ReadPassword(fd)
		fmt.Fprintln(out)
		if err != nil {
			clear(p)
			return nil, fmt.Errorf("reading passphrase: %w", err)
		}
		defer clear(p2)
		if !bytes.Equal(p, p2) {
			clear(p)
			return nil, fmt.Errorf("%w: the two passphrases differ", identity.ErrPassphraseRequired)
		}
		return p, nil
	}
}

// terminal returns a terminal to prompt on: the command's standard input if
// it is a terminal, else the process's controlling terminal.
func terminal(cmd *cobra.Command) (*os.File, func(), error) {
	if f, ok := cmd.InOrStdin().(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return f, func() {}, nil
	}
	tty, err := os.Open("/dev/tty")
	if err != nil {
		return nil, nil, errors.New("no terminal to ask on")
	}
	if !term.IsTerminal(int(tty.Fd())) {
		tty.Close()
		return nil, nil, errors.New("no terminal to ask on")
	}
	return tty, func() { tty.Close() }, nil
}

// loadKeyFile loads a key file, asking for its passphrase when needed.
func loadKeyFile(cmd *cobra.Command, path string) (identity.Keys, error) {
	k, err := identity.LoadKeyFile(path, passphraseSource(cmd, false))
	if err != nil {
		return k, keyError(err)
	}
	return k, nil
}

// keyError gives key file errors their exit code and the fix.
func keyError(err error) error {
	switch {
	case errors.Is(err, os.ErrNotExist):
		return withHint(exitWith(exitNotFound, err), "create one with `hive key new --out FILE` or `hive profile add NAME --new-key`")
	case errors.Is(err, identity.ErrKeyFormat), errors.Is(err, identity.ErrBadSecretKey):
		return exitWith(exitUsage, err)
	}
	return err
}
