package identity

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// testLogN keeps scrypt cheap in tests.
const testLogN = 4

func TestKeysBasics(t *testing.T) {
	k, err := GenerateKeys()
	if err != nil {
		t.Fatal(err)
	}
	if !isLowerHex(k.SecretHex, 64) || !isLowerHex(k.PublicHex, 64) {
		t.Fatalf("keys %q %q", k.SecretHex, k.PublicHex)
	}
	if !strings.HasPrefix(k.Npub(), "npub1") || !strings.HasPrefix(k.Nsec(), "nsec1") {
		t.Fatalf("bech32 %s %s", k.Npub(), k.Nsec())
	}
	k2, err := ParseSecret(" " + k.Nsec() + "\n")
	if err != nil || k2 != k {
		t.Fatalf("ParseSecret(nsec) = %v, %v", k2, err)
	}
	k3, err := ParseSecret(strings.ToUpper(k.SecretHex))
	if err != nil || k3 != k {
		t.Fatalf("ParseSecret(HEX) = %v, %v", k3, err)
	}
	pub, err := ParsePublicKey(k.Npub())
	if err != nil || pub != k.PublicHex {
		t.Fatalf("ParsePublicKey(npub) = %q, %v", pub, err)
	}
	pub, err = ParsePublicKey(strings.ToUpper(k.PublicHex))
	if err != nil || pub != k.PublicHex {
		t.Fatalf("ParsePublicKey(HEX) = %q, %v", pub, err)
	}
	if _, err := ParsePublicKey(k.Nsec()); err == nil {
		t.Fatal("ParsePublicKey accepted an nsec")
	}
	if _, err := ParsePublicKey(strings.Repeat("f", 64)); err == nil {
		t.Fatal("ParsePublicKey accepted an off-curve key")
	}
	for _, f := range []string{"%v", "%+v", "%#v", "%s"} {
		if out := fmt.Sprintf(f, k); strings.Contains(out, k.SecretHex) || strings.Contains(out, k.Nsec()) {
			t.Errorf("%s leaks the secret: %s", f, out)
		}
	}
	if !strings.Contains(k.String(), k.Npub()) || !strings.Contains(k.String(), k.PublicHex) {
		t.Errorf("String() = %s", k)
	}
	for _, bad := range []string{"", "nsec1xyz", "abc", strings.Repeat("0", 64), "ncryptsec1qqqq"} {
		if _, err := ParseSecret(bad); !errors.Is(err, ErrBadSecretKey) {
			t.Errorf("ParseSecret(%q) = %v", bad, err)
		}
	}
}

func TestKeyFilePlain(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.key")
	k, _ := GenerateKeys()
	if err := SaveKeyFile(path, k, SaveOptions{}); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o", st.Mode().Perm())
	}
	data, _ := os.ReadFile(path)
	if strings.TrimSpace(string(data)) != k.Nsec() {
		t.Fatalf("contents %q", data)
	}
	called := false
	got, err := LoadKeyFile(path, func() ([]byte, error) { called = true; return nil, nil })
	if err != nil || got != k {
		t.Fatalf("LoadKeyFile = %v, %v", got, err)
	}
	if called {
		t.Error("passphrase asked for a plain key file")
	}
	if enc, err := KeyFileEncrypted(path); err != nil || enc {
		t.Errorf("KeyFileEncrypted = %v %v", enc, err)
	}
	// Never overwrite.
	if err := SaveKeyFile(path, k, SaveOptions{}); !errors.Is(err, ErrKeyFileExists) {
		t.Fatalf("overwrite: %v", err)
	}
}

func TestKeyFileEncrypted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "owner.key")
	k, _ := GenerateKeys()
	opts := SaveOptions{Encrypt: true, Passphrase: StaticPassphrase("correct horse"), LogN: testLogN}
	if err := SaveKeyFile(path, k, opts); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(data), "ncryptsec1") {
		t.Fatalf("contents %q", data)
	}
	if enc, err := KeyFileEncrypted(path); err != nil || !enc {
		t.Errorf("KeyFileEncrypted = %v %v", enc, err)
	}
	got, err := LoadKeyFile(path, StaticPassphrase("correct horse"))
	if err != nil || got != k {
		t.Fatalf("LoadKeyFile = %v, %v", got, err)
	}
	_, err = LoadKeyFile(path, StaticPassphrase("wrong"))
	if !errors.Is(err, ErrWrongPassphrase) {
		t.Fatalf("wrong passphrase: %v", err)
	}
	if !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), PassphraseEnv) {
		t.Errorf("message does not name the file and %s: %v", PassphraseEnv, err)
	}
	if _, err := LoadKeyFile(path, nil); !errors.Is(err, ErrPassphraseRequired) {
		t.Fatalf("nil passphrase: %v", err)
	}
	boom := errors.New("boom")
	if _, err := LoadKeyFile(path, func() ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("provider error not passed through: %v", err)
	}
	// Encrypting needs a non-empty passphrase.
	if _, err := EncodeKeyFile(k, SaveOptions{Encrypt: true}); !errors.Is(err, ErrPassphraseRequired) {
		t.Errorf("no provider: %v", err)
	}
	if _, err := EncodeKeyFile(k, SaveOptions{Encrypt: true, Passphrase: StaticPassphrase(""), LogN: testLogN}); !errors.Is(err, ErrPassphraseRequired) {
		t.Errorf("empty passphrase: %v", err)
	}
}

func TestKeyFileNIP49Vector(t *testing.T) {
	// NIP-49 test vector: password "nostr", log_n 16.
	const (
		ncryptsec = "ncryptsec1qgg9947rlpvqu76pj5ecreduf9jxhselq2nae2kghhvd5g7dgjtcxfqtd67p9m0w57lspw8gsq6yphnm8623nsl8xn9j4jdzz84zm3frztj3z7s35vpzmqf6ksu8r89qk5z2zxfmu5gv8th8wclt0h4p"
		secret    = "3501454135014541350145413501453fefb02227e449e57cf4d3a3ce05378683"
	)
	if testing.Short() {
		t.Skip("scrypt log_n 16")
	}
	k, err := DecodeKeyFile([]byte(ncryptsec+"\n"), StaticPassphrase("nostr"))
	if err != nil || k.SecretHex != secret {
		t.Fatalf("DecodeKeyFile = %v, %v", k.SecretHex, err)
	}
}

func TestKeyFileChecks(t *testing.T) {
	dir := t.TempDir()
	k, _ := GenerateKeys()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if runtime.GOOS != "windows" {
		for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o620, 0o660} {
			p := write(fmt.Sprintf("open-%o.key", mode), k.Nsec(), mode)
			_, err := LoadKeyFile(p, nil)
			if !errors.Is(err, ErrKeyFilePermissions) {
				t.Fatalf("mode %o: %v", mode, err)
			}
			if !strings.Contains(err.Error(), "chmod 600 "+p) {
				t.Errorf("mode error does not name the fix: %v", err)
			}
		}
		// 0400 is fine.
		p := write("ro.key", k.Nsec(), 0o400)
		if _, err := LoadKeyFile(p, nil); err != nil {
			t.Fatalf("0400: %v", err)
		}
	}
	// Whitespace and CRLF are trimmed.
	p := write("ws.key", "\n  "+k.Nsec()+" \r\n\n", 0o600)
	if got, err := LoadKeyFile(p, nil); err != nil || got != k {
		t.Fatalf("whitespace: %v %v", got, err)
	}
	// Formats.
	for name, content := range map[string]string{
		"hex.key":    k.SecretHex,
		"npub.key":   k.Npub(),
		"empty.key":  "",
		"junk.key":   "hello",
		"badnsec":    "nsec1qqqqqqqq",
		"badcrypt":   "ncryptsec1qqqqqqqq",
		"twokeys":    k.Nsec() + "\n" + k.Nsec(),
		"bigscrypt1": mustNcryptsecWithLogN(t, k, 60),
	} {
		p := write(name, content, 0o600)
		_, err := LoadKeyFile(p, StaticPassphrase("x"))
		if !errors.Is(err, ErrKeyFormat) {
			t.Errorf("%s: %v", name, err)
		}
	}
	hexErr := func() error {
		_, err := LoadKeyFile(filepath.Join(dir, "hex.key"), nil)
		return err
	}()
	if !strings.Contains(hexErr.Error(), "hive key import") {
		t.Errorf("hex key hint missing: %v", hexErr)
	}
	if _, err := LoadKeyFile(filepath.Join(dir, "missing.key"), nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	if _, err := LoadKeyFile(dir, nil); !errors.Is(err, ErrKeyFormat) {
		t.Errorf("directory: %v", err)
	}
}

// mustNcryptsecWithLogN makes a syntactically valid ncryptsec whose log_n
// byte is patched to logN (its MAC then no longer matches, which does not
// matter: the loader must refuse before running scrypt).
func mustNcryptsecWithLogN(t *testing.T, k Keys, logN byte) string {
	t.Helper()
	data, err := EncodeKeyFile(k, SaveOptions{Encrypt: true, Passphrase: StaticPassphrase("x"), LogN: testLogN})
	if err != nil {
		t.Fatal(err)
	}
	return patchNcryptsecLogN(t, strings.TrimSpace(string(data)), logN)
}

func TestEnvOrPrompt(t *testing.T) {
	env := map[string]string{PassphraseEnv: "from-env"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	prompted := false
	prompt := func() ([]byte, error) { prompted = true; return []byte("typed"), nil }
	p, err := EnvOrPrompt(lookup, prompt)()
	if err != nil || string(p) != "from-env" || prompted {
		t.Fatalf("env: %q %v %v", p, err, prompted)
	}
	delete(env, PassphraseEnv)
	p, err = EnvOrPrompt(lookup, prompt)()
	if err != nil || string(p) != "typed" || !prompted {
		t.Fatalf("prompt: %q %v", p, err)
	}
	if _, err := EnvOrPrompt(lookup, nil)(); !errors.Is(err, ErrPassphraseRequired) || !strings.Contains(err.Error(), PassphraseEnv) {
		t.Fatalf("no prompt: %v", err)
	}
}
