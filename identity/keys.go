// Package identity holds hive's key handling and NIP-OA owner attestations:
// key files (nsec / NIP-49 ncryptsec, mode 0600), the ["auth", owner,
// conditions, sig] tag, its conditions language, and owner-signed
// revocations (kind 30450). It has no network code and no global state.
package identity

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"github.com/btcsuite/btcd/btcec/v2"
	"github.com/btcsuite/btcd/btcec/v2/schnorr"
	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
	"github.com/nbd-wtf/go-nostr/nip49"
	"golang.org/x/term"
)

// Key file and passphrase constants.
const (
	// PassphraseEnv names the environment variable read for the key file
	// passphrase before falling back to an interactive prompt.
	PassphraseEnv = "HIVE_PASSPHRASE"
	// DefaultScryptLogN is the NIP-49 scrypt cost used when SaveOptions.LogN
	// is zero (2^16 rounds, about 64 MiB of memory).
	DefaultScryptLogN = 16
	// MaxScryptLogN bounds the cost accepted when reading a key file, so a
	// hostile file cannot make the loader allocate gigabytes (2^22 = 4 GiB).
	MaxScryptLogN = 22
	// KeyFileMode is the mode key files are created with.
	KeyFileMode fs.FileMode = 0o600
)

// Key errors. Returned errors wrap one of these (errors.Is) and carry a
// message that names the file and the fix.
var (
	ErrBadSecretKey       = errors.New("invalid secret key")
	ErrKeyFormat          = errors.New("unrecognised key file format")
	ErrKeyFilePermissions = errors.New("key file is accessible by group or others")
	ErrKeyFileExists      = errors.New("key file already exists")
	ErrWrongPassphrase    = errors.New("wrong passphrase")
	ErrPassphraseRequired = errors.New("passphrase required")
)

// Keys is a secp256k1 key pair in Nostr's hex form. Its String and GoString
// never show the secret.
type Keys struct {
	SecretHex string // 64 lowercase hex
	PublicHex string // 64 lowercase hex, BIP-340 x-only
}

// GenerateKeys makes a new random key pair.
func GenerateKeys() (Keys, error) {
	sk, err := btcec.NewPrivateKey()
	if err != nil {
		return Keys{}, fmt.Errorf("generating key: %w", err)
	}
	b := sk.Key.Bytes()
	return KeysFromSecretHex(hex.EncodeToString(b[:]))
}

// KeysFromSecretHex derives the key pair from a 64 character hex secret
// (either case). The secret must be in 1..n-1.
func KeysFromSecretHex(secretHex string) (Keys, error) {
	sk, err := parseSecretHex(strings.ToLower(secretHex))
	if err != nil {
		return Keys{}, err
	}
	b := sk.Key.Bytes()
	return Keys{
		SecretHex: hex.EncodeToString(b[:]),
		PublicHex: hex.EncodeToString(schnorr.SerializePubKey(sk.PubKey())),
	}, nil
}

// ParseSecret reads a secret given as nsec1... or as 64 hex characters;
// surrounding whitespace is ignored.
func ParseSecret(s string) (Keys, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(strings.ToLower(s), "nsec1") {
		prefix, v, err := nip19.Decode(s)
		if err != nil || prefix != "nsec" {
			return Keys{}, fmt.Errorf("%w: cannot decode nsec: %v", ErrBadSecretKey, err)
		}
		return KeysFromSecretHex(v.(string))
	}
	if strings.HasPrefix(strings.ToLower(s), "ncryptsec1") {
		return Keys{}, fmt.Errorf("%w: this is an encrypted ncryptsec key; load it as a key file instead", ErrBadSecretKey)
	}
	if len(s) == 64 {
		return KeysFromSecretHex(s)
	}
	return Keys{}, fmt.Errorf("%w: want nsec1... or 64 hex characters", ErrBadSecretKey)
}

// ParsePublicKey reads a public key given as npub1... or 64 hex characters
// (either case) and returns it as 64 lowercase hex. The key must be a valid
// x-only secp256k1 point.
func ParsePublicKey(s string) (string, error) {
	s = strings.TrimSpace(s)
	var h string
	switch {
	case strings.HasPrefix(strings.ToLower(s), "npub1"):
		prefix, v, err := nip19.Decode(s)
		if err != nil || prefix != "npub" {
			return "", fmt.Errorf("invalid public key: cannot decode npub: %v", err)
		}
		h = v.(string)
	case strings.HasPrefix(strings.ToLower(s), "nsec1"):
		return "", errors.New("invalid public key: this is a secret key (nsec); pass the npub or hex public key")
	default:
		h = strings.ToLower(s)
	}
	if err := checkPubHex(h); err != nil {
		return "", fmt.Errorf("invalid public key: %v (want npub1... or 64 hex characters)", err)
	}
	return h, nil
}

// Npub returns the public key as bech32 npub1....
func (k Keys) Npub() string {
	s, _ := nip19.EncodePublicKey(k.PublicHex)
	return s
}

// Nsec returns the secret key as bech32 nsec1....
func (k Keys) Nsec() string {
	s, _ := nip19.EncodePrivateKey(k.SecretHex)
	return s
}

// String shows the public key as npub and hex, never the secret.
func (k Keys) String() string { return k.Npub() + " (" + k.PublicHex + ")" }

// GoString keeps %#v from printing the secret.
func (k Keys) GoString() string {
	return "identity.Keys{PublicHex:" + fmt.Sprintf("%q", k.PublicHex) + "}"
}

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

// TerminalPrompt returns a PassphraseFunc that writes label to out and reads
// a line from the terminal in without echo. With confirm it asks twice and
// refuses an empty or mismatched passphrase (use it when encrypting). If in
// is not a terminal it fails with ErrPassphraseRequired naming
// PassphraseEnv.
func TerminalPrompt(in *os.File, out io.Writer, label string, confirm bool) PassphraseFunc {
	return func() ([]byte, error) {
		fd := int(in.Fd())
		if !term.IsTerminal(fd) {
			return nil, fmt.Errorf("%w: no terminal to ask on; set %s", ErrPassphraseRequired, PassphraseEnv)
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
			return nil, fmt.Errorf("%w: empty passphrase refused", ErrPassphraseRequired)
		}
		fmt.Fprint(out, "Repeat passphrase: ")
		p2, err := term.ReadPassword(fd)
		fmt.Fprintln(out)
		if err != nil {
			wipe(p)
			return nil, fmt.Errorf("reading passphrase: %w", err)
		}
		defer wipe(p2)
		if !bytes.Equal(p, p2) {
			wipe(p)
			return nil, fmt.Errorf("%w: the two passphrases differ", ErrPassphraseRequired)
		}
		return p, nil
	}
}

// SaveOptions controls how a key file is written.
type SaveOptions struct {
	// Encrypt writes a NIP-49 ncryptsec1... instead of a plain nsec1....
	Encrypt bool
	// Passphrase is required when Encrypt is set.
	Passphrase PassphraseFunc
	// LogN is the NIP-49 scrypt cost (log2 of N); 0 means DefaultScryptLogN.
	LogN uint8
}

// EncodeKeyFile returns the key file contents: nsec1... or ncryptsec1...,
// followed by a newline.
func EncodeKeyFile(k Keys, opts SaveOptions) ([]byte, error) {
	if _, err := KeysFromSecretHex(k.SecretHex); err != nil {
		return nil, err
	}
	if !opts.Encrypt {
		return []byte(k.Nsec() + "\n"), nil
	}
	if opts.Passphrase == nil {
		return nil, fmt.Errorf("%w: encrypting a key file needs a passphrase (set %s)", ErrPassphraseRequired, PassphraseEnv)
	}
	logN := opts.LogN
	if logN == 0 {
		logN = DefaultScryptLogN
	}
	if logN > MaxScryptLogN {
		return nil, fmt.Errorf("scrypt log_n %d too large (maximum %d)", logN, MaxScryptLogN)
	}
	pass, err := opts.Passphrase()
	if err != nil {
		return nil, err
	}
	defer wipe(pass)
	if len(pass) == 0 {
		return nil, fmt.Errorf("%w: empty passphrase refused for encryption", ErrPassphraseRequired)
	}
	enc, err := nip49.Encrypt(k.SecretHex, string(pass), logN, nip49.ClientDoesNotTrackThisData)
	if err != nil {
		return nil, fmt.Errorf("encrypting key: %w", err)
	}
	return []byte(enc + "\n"), nil
}

// DecodeKeyFile parses key file contents (surrounding whitespace ignored).
// pass is called only for an ncryptsec file.
func DecodeKeyFile(data []byte, pass PassphraseFunc) (Keys, error) {
	s := strings.TrimSpace(string(data))
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "nsec1"):
		k, err := ParseSecret(s)
		if err != nil {
			return Keys{}, fmt.Errorf("%w: %v", ErrKeyFormat, err)
		}
		return k, nil
	case strings.HasPrefix(lower, "ncryptsec1"):
		return decryptNcryptsec(s, pass)
	default:
		hint := ""
		if len(s) == 64 && isHex(s) {
			hint = " (this looks like a raw hex secret: convert it with `hive key import`)"
		}
		return Keys{}, fmt.Errorf("%w: want one line holding nsec1... or ncryptsec1...%s", ErrKeyFormat, hint)
	}
}

func decryptNcryptsec(s string, pass PassphraseFunc) (Keys, error) {
	// Check the structure first so that a damaged file is not reported as
	// a wrong passphrase, and bound the scrypt cost.
	prefix, bits5, err := bech32.DecodeNoLimit(s)
	if err != nil || prefix != "ncryptsec" {
		return Keys{}, fmt.Errorf("%w: damaged ncryptsec string: %v", ErrKeyFormat, err)
	}
	data, err := bech32.ConvertBits(bits5, 5, 8, false)
	if err != nil || len(data) != 91 {
		return Keys{}, fmt.Errorf("%w: damaged ncryptsec string (wrong length)", ErrKeyFormat)
	}
	if data[0] != 0x02 {
		return Keys{}, fmt.Errorf("%w: unsupported ncryptsec version %d (want 2)", ErrKeyFormat, data[0])
	}
	if data[1] == 0 || data[1] > MaxScryptLogN {
		return Keys{}, fmt.Errorf("%w: ncryptsec scrypt log_n %d outside 1..%d", ErrKeyFormat, data[1], MaxScryptLogN)
	}
	if pass == nil {
		return Keys{}, fmt.Errorf("%w: the key is encrypted; set %s or run interactively", ErrPassphraseRequired, PassphraseEnv)
	}
	p, err := pass()
	if err != nil {
		return Keys{}, err
	}
	defer wipe(p)
	secret, err := nip49.DecryptToBytes(strings.ToLower(s), string(p))
	if err != nil {
		return Keys{}, fmt.Errorf("%w: cannot decrypt the key (check %s or the passphrase typed)", ErrWrongPassphrase, PassphraseEnv)
	}
	defer wipe(secret)
	if len(secret) != 32 {
		return Keys{}, fmt.Errorf("%w: decrypted secret has %d bytes, want 32", ErrKeyFormat, len(secret))
	}
	return KeysFromSecretHex(hex.EncodeToString(secret))
}

// SaveKeyFile writes a new key file with mode 0600. It never overwrites: an
// existing path gives ErrKeyFileExists.
func SaveKeyFile(path string, k Keys, opts SaveOptions) error {
	data, err := EncodeKeyFile(k, opts)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, KeyFileMode)
	if err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("%w: %s; refusing to overwrite it (choose another path or move the old file away)", ErrKeyFileExists, path)
		}
		return fmt.Errorf("creating key file: %w", err)
	}
	fail := func(err error) error {
		f.Close()
		os.Remove(path)
		return fmt.Errorf("writing key file %s: %w", path, err)
	}
	if err := f.Chmod(KeyFileMode); err != nil && runtime.GOOS != "windows" {
		return fail(err)
	}
	if _, err := f.Write(data); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return fmt.Errorf("writing key file %s: %w", path, err)
	}
	return nil
}

// CheckKeyFileMode fails with ErrKeyFilePermissions when the file can be
// read, written or executed by group or others (any bit of 0o077).
func CheckKeyFileMode(path string) error {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("key file %s does not exist (create one with `hive key new --out %s`): %w", path, path, err)
	}
	if err != nil {
		return fmt.Errorf("key file: %w", err)
	}
	if !st.Mode().IsRegular() {
		return fmt.Errorf("%w: %s is not a regular file", ErrKeyFormat, path)
	}
	if runtime.GOOS == "windows" {
		return nil
	}
	if perm := st.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("%w: %s has mode %04o; fix it with: chmod 600 %s", ErrKeyFilePermissions, path, perm, path)
	}
	return nil
}

// LoadKeyFile checks the file mode (see CheckKeyFileMode) and decodes the
// key file. pass is called only when the file is encrypted.
func LoadKeyFile(path string, pass PassphraseFunc) (Keys, error) {
	if err := CheckKeyFileMode(path); err != nil {
		return Keys{}, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Keys{}, fmt.Errorf("key file: %w", err)
	}
	defer wipe(data)
	k, err := DecodeKeyFile(data, pass)
	if err != nil {
		return Keys{}, fmt.Errorf("key file %s: %w", path, err)
	}
	return k, nil
}

// KeyFileEncrypted reports whether the key file holds an ncryptsec key,
// without decrypting it. It applies the same mode check as LoadKeyFile.
func KeyFileEncrypted(path string) (bool, error) {
	if err := CheckKeyFileMode(path); err != nil {
		return false, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false, fmt.Errorf("key file: %w", err)
	}
	defer wipe(data)
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(string(data))), "ncryptsec1"), nil
}

// parseSecretHex parses a 64 lowercase hex secret in 1..n-1.
func parseSecretHex(s string) (*btcec.PrivateKey, error) {
	if !isLowerHex(s, 64) {
		return nil, fmt.Errorf("%w: want 64 hex characters", ErrBadSecretKey)
	}
	b, _ := hex.DecodeString(s)
	var scalar btcec.ModNScalar
	if overflow := scalar.SetByteSlice(b); overflow || scalar.IsZero() {
		return nil, fmt.Errorf("%w: not in the secp256k1 range 1..n-1", ErrBadSecretKey)
	}
	return btcec.PrivKeyFromScalar(&scalar), nil
}

// checkPubHex checks 64 lowercase hex forming a valid x-only point.
func checkPubHex(s string) error {
	if !isLowerHex(s, 64) {
		return fmt.Errorf("must be 64 lowercase hex characters, got %q", truncate(s, 80))
	}
	if !nostr.IsValidPublicKey(s) {
		return fmt.Errorf("%s is not a valid secp256k1 x-only public key", s)
	}
	return nil
}

func isLowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

func isHex(s string) bool {
	_, err := hex.DecodeString(s)
	return err == nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

func wipe(b []byte) {
	for i := range b {
		b[i] = 0
	}
}
