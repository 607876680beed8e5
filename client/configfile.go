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
