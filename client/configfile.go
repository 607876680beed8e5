package client

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/BurntSushi/toml"
)

// DecodeConfig reads a TOML config file into v, refusing a key v does not
// have (keys tells which there are), and returns the file's directory, which
// relative paths in it are read against (hive bridge, hive workflow serve).
func DecodeConfig(path string, v any, keys string) (dir string, err error) {
	md, err := toml.DecodeFile(path, v)
	if err != nil {
		if os.IsNotExist(err) {
			return "", fmt.Errorf("config file %s does not exist", path)
		}
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return "", fmt.Errorf("%s: unknown key %q (%s)", path, und[0].String(), keys)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	return filepath.Dir(abs), nil
}

// LoadConfig decodes the config file at path into v (as DecodeConfig does),
// stores the file's directory in *dir and checks v with check; check's
// error is prefixed with path.
func LoadConfig(path string, v any, dir *string, keys string, check func() error) error {
	d, err := DecodeConfig(path, v, keys)
	if err != nil {
		return err
	}
	*dir = d
	if err := check(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// ResolveIn makes p absolute relative to dir (a config file's directory);
// "" and an absolute p stay as they are.
func ResolveIn(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}
