package identity

// Key files: a secret as nsec1... or NIP-49 ncryptsec1..., written once
// with mode 0600 and refused when others can read it.

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strings"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/nbd-wtf/go-nostr/nip49"
)

// Key file constants.
const (
	// DefaultScryptLogN is the NIP-49 scrypt cost used when SaveOptions.LogN
	// is zero (2^16 rounds, about 64 MiB of memory).
	DefaultScryptLogN = 16
	// MaxScryptLogN bounds the cost accepted when reading a key file, so a
	// hostile file cannot make the loader allocate gigabytes (2^22 = 4 GiB).
	MaxScryptLogN = 22
	// KeyFileMode is the mode key files are created with.
	KeyFileMode fs.FileMode = 0o600
)

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
