package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ainb/hive/identity"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func newKeyCmd() *cobra.Command {
	return commandGroup("key", "Create, import and inspect key files (nsec or NIP-49 ncryptsec, mode 0600)",
		`Key files hold one line: a bech32 nsec1... secret, or with --encrypt a NIP-49
ncryptsec1... secret encrypted with a passphrase. They are created with mode
0600 and refused when group or others can access them.

The passphrase is read from the `+identity.PassphraseEnv+` environment variable, or
asked for on the terminal when that variable is unset.`,
		newKeyNewCmd(), newKeyShowCmd(), newKeyImportCmd())
}

// keyOutput is what key new / import / show print.
type keyOutput struct {
	Npub      string `json:"npub"`
	Pubkey    string `json:"pubkey"`
	File      string `json:"file,omitempty"`
	Encrypted bool   `json:"encrypted"`
	// Secret is printed only when no --out file was given (otherwise the
	// new key would be lost): nsec1... or, with --encrypt, ncryptsec1....
	Secret string `json:"secret,omitempty"`
}

func printKey(cmd *cobra.Command, o keyOutput) error {
	if jsonOutput(cmd) {
		return output(cmd, o, nil)
	}
	w := cmd.OutOrStdout()
	fmt.Fprintf(w, "npub:   %s\n", o.Npub)
	fmt.Fprintf(w, "pubkey: %s\n", o.Pubkey)
	if o.File != "" {
		fmt.Fprintf(w, "file:   %s (encrypted: %v)\n", o.File, o.Encrypted)
	}
	if o.Secret != "" {
		fmt.Fprintf(w, "secret: %s\n", o.Secret)
		fmt.Fprintln(cmd.ErrOrStderr(), "hive: the secret key above is not stored anywhere; use --out FILE to write a key file instead")
	}
	return nil
}

type keySaveFlags struct {
	out     string
	encrypt bool
	logN    uint8
}

func (f *keySaveFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.out, "out", "", "write the key to this new file (mode 0600; an existing file is never overwritten)")
	cmd.Flags().BoolVar(&f.encrypt, "encrypt", false, "encrypt the key with a passphrase (NIP-49 ncryptsec; passphrase from "+identity.PassphraseEnv+" or the terminal)")
	cmd.Flags().Uint8Var(&f.logN, "scrypt-log-n", identity.DefaultScryptLogN, "NIP-49 scrypt cost (log2 N)")
	_ = cmd.Flags().MarkHidden("scrypt-log-n")
}

// store writes or prints k according to the flags.
func (f *keySaveFlags) store(cmd *cobra.Command, k identity.Keys) error {
	if f.out != "" {
		if _, err := os.Lstat(f.out); err == nil {
			return exitWith(exitConflict, fmt.Errorf("%s already exists; refusing to overwrite it: choose another --out or move the old file away", f.out))
		}
	}
	opts := identity.SaveOptions{Encrypt: f.encrypt, LogN: f.logN}
	if f.encrypt {
		opts.Passphrase = passphraseSource(cmd, true)
	}
	o := keyOutput{Npub: k.Npub(), Pubkey: k.PublicHex, File: f.out, Encrypted: f.encrypt}
	if f.out == "" {
		data, err := identity.EncodeKeyFile(k, opts)
		if err != nil {
			return keyError(err)
		}
		o.Secret = strings.TrimSpace(string(data))
		return printKey(cmd, o)
	}
	if err := identity.SaveKeyFile(f.out, k, opts); err != nil {
		return keyError(err)
	}
	return printKey(cmd, o)
}

func newKeyNewCmd() *cobra.Command {
	var f keySaveFlags
	cmd := &cobra.Command{
		Use:   "new [--out FILE] [--encrypt]",
		Short: "Generate a new key; prints its npub and hex public key",
		Example: `  hive key new --out owner.key
  HIVE_PASSPHRASE=... hive key new --out owner.key --encrypt`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			k, err := identity.GenerateKeys()
			if err != nil {
				return err
			}
			return f.store(cmd, k)
		},
	}
	f.register(cmd)
	return cmd
}

func newKeyImportCmd() *cobra.Command {
	var f keySaveFlags
	cmd := &cobra.Command{
		Use:   "import [--out FILE] [--encrypt]",
		Short: "Read a secret key (nsec1... or 64 hex) from standard input and write it as a key file",
		Example: `  hive key import --out agent.key            # type or paste the secret (not echoed)
  printf '%s' "$NSEC" | hive key import --out agent.key`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			secret, err := readSecret(cmd)
			if err != nil {
				return err
			}
			k, err := identity.ParseSecret(secret)
			if err != nil {
				return exitWith(exitUsage, fmt.Errorf("%w: pass one nsec1... or 64 hex characters on standard input", err))
			}
			return f.store(cmd, k)
		},
	}
	f.register(cmd)
	return cmd
}

func newKeyShowCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "show FILE",
		Short: "Print the public key (npub and hex) of a key file; never prints the secret",
		Args:  exactArgs(1, "FILE"),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			enc, err := identity.KeyFileEncrypted(path)
			if err != nil {
				return keyError(err)
			}
			k, err := identity.LoadKeyFile(path, passphraseSource(cmd, false))
			if err != nil {
				return keyError(err)
			}
			return printKey(cmd, keyOutput{Npub: k.Npub(), Pubkey: k.PublicHex, File: path, Encrypted: enc})
		},
	}
	return cmd
}

// readSecret reads a secret key from standard input: without echo when it
// is a terminal, else the whole (small) input.
func readSecret(cmd *cobra.Command) (string, error) {
	in := cmd.InOrStdin()
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(cmd.ErrOrStderr(), "Secret key (nsec1... or hex): ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(cmd.ErrOrStderr())
		if err != nil {
			return "", fmt.Errorf("reading the secret key: %w", err)
		}
		return string(b), nil
	}
	b, err := io.ReadAll(io.LimitReader(in, 4096))
	if err != nil {
		return "", fmt.Errorf("reading the secret key from standard input: %w", err)
	}
	if strings.TrimSpace(string(b)) == "" {
		return "", usageErrorf("no secret key on standard input: pipe an nsec1... or 64 hex secret into hive key import")
	}
	return string(b), nil
}
