package identity

import "fmt"

// PassphraseEnv names the environment variable read for the key file
// passphrase before falling back to an interactive prompt (which is the
// caller's: the CLI asks on the terminal).
const PassphraseEnv = "HIVE_PASSPHRASE"

// PassphraseFunc supplies a key file passphrase. It is called only when a
// passphrase is needed. The caller wipes the returned slice after use.
type PassphraseFunc func() ([]byte, error)

// StaticPassphrase returns a PassphraseFunc that always yields p.
func StaticPassphrase(p string) PassphraseFunc {
	return func() ([]byte, error) { return []byte(p), nil }
}

// EnvOrPrompt returns a PassphraseFunc that uses the environment variable
// PassphraseEnv when it is set (looked up through lookupEnv, normally
// os.LookupEnv) and otherwise calls prompt. prompt may be nil, in which case
// an unset variable is an ErrPassphraseRequired error.
func EnvOrPrompt(lookupEnv func(string) (string, bool), prompt PassphraseFunc) PassphraseFunc {
	return func() ([]byte, error) {
		if lookupEnv != nil {
			if v, ok := lookupEnv(PassphraseEnv); ok {
				return []byte(v), nil
			}
		}
		if prompt == nil {
			return nil, fmt.Errorf("%w: set %s", ErrPassphraseRequired, PassphraseEnv)
		}
		return prompt()
	}
}
