// Package runner is `hive workflow serve`: a key of its own, attested by an
// owner, that runs the workflows bound to it. Every run is events in the
// workflow's channel: a claim whose id is the run's (deterministic, so a
// trigger starts at most one run whatever crashes), a card, and records on
// the card that every surface shows as its badge. The log is the run state:
// the state directory holds only a cursor and the lock (spec/workflows.md).
package runner

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ainb/hive/client"
)

// Config is the runner's TOML file (spec/workflows.md, "The runner").
type Config struct {
	Hub         string            `toml:"hub"`
	Pin         string            `toml:"pin"`
	Key         string            `toml:"key"`
	Attestation string            `toml:"attestation"`
	StateDir    string            `toml:"state_dir"`
	Secrets     map[string]Secret `toml:"secrets"`
	HTTP        HTTPConfig        `toml:"http"`

	dir string // the file's directory: relative paths are read against it
}

// Secret is where one secret's value comes from: an environment variable
// or a file.
type Secret struct {
	Env  string `toml:"env"`
	File string `toml:"file"`
}

// HTTPConfig bounds the http steps: the hosts (optionally host:port) they
// may call.
type HTTPConfig struct {
	AllowHosts []string `toml:"allow_hosts"`
}

// LoadConfig reads and checks a runner config. Errors name the key and the fix.
func LoadConfig(path string) (*Config, error) {
	var c Config
	if err := client.LoadConfig(path, &c, &c.dir, "the keys are hub, pin, key, attestation, state_dir, [secrets] and [http] allow_hosts", c.check); err != nil {
		return nil, err
	}
	return &c, nil
}

func (c *Config) resolve(p string) string { return client.ResolveIn(c.dir, p) }

func (c *Config) check() error {
	if c.Hub == "" {
		return errors.New(`hub is required: the hub URL, e.g. hub = "ws://127.0.0.1:7447", or a profile name`)
	}
	if c.Key == "" {
		return errors.New("key is required: the runner's own key file (create it with: hive key new --out runner.key)")
	}
	if c.Attestation == "" {
		return errors.New("attestation is required: the owner's tag file (hive agent attest --key OWNER.key --agent <runner npub> --expires 30d > runner.tag)")
	}
	if c.StateDir == "" {
		c.StateDir = "workflow-state"
	}
	c.Key, c.Attestation, c.StateDir = c.resolve(c.Key), c.resolve(c.Attestation), c.resolve(c.StateDir)
	for name, s := range c.Secrets {
		if (s.Env == "") == (s.File == "") {
			return fmt.Errorf("secrets.%s: give exactly one of env = \"VAR\" or file = \"path\"", name)
		}
		if s.File != "" {
			s.File = c.resolve(s.File)
			c.Secrets[name] = s
		}
	}
	_, err := parseAllowList(c.HTTP.AllowHosts)
	return err
}

// secretValues reads every secret (an env variable unset or a file missing
// is an error naming it).
func (c *Config) secretValues() (map[string]string, error) {
	out := map[string]string{}
	for name, s := range c.Secrets {
		if s.Env != "" {
			v, ok := os.LookupEnv(s.Env)
			if !ok {
				return nil, fmt.Errorf("secrets.%s: the environment variable %s is not set", name, s.Env)
			}
			out[name] = v
			continue
		}
		b, err := os.ReadFile(s.File)
		if err != nil {
			return nil, fmt.Errorf("secrets.%s: %w", name, err)
		}
		out[name] = strings.TrimRight(string(b), "\r\n")
	}
	return out, nil
}
