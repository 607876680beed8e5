package client

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"

	"github.com/BurntSushi/toml"
)

// HomeEnv names the environment variable that overrides the config directory.
const HomeEnv = "HIVE_HOME"

// Profile is how one identity reaches one hub.
type Profile struct {
	Name        string   `toml:"-" json:"name"`
	Hubs        []string `toml:"hubs" json:"hubs"`                                   // ws:// or wss:// URLs, tried in order
	Pin         string   `toml:"pin,omitempty" json:"pin,omitempty"`                 // sha256/<base64> of the hub's key
	Key         string   `toml:"key" json:"key"`                                     // key file
	Attestation string   `toml:"attestation,omitempty" json:"attestation,omitempty"` // owner's NIP-OA tag (JSON) for an agent or device key
}

// Profiles is the config file: the profiles by name and the one in use.
type Profiles struct {
	Current  string              `toml:"current"`
	Profiles map[string]*Profile `toml:"profiles"`
}

var profileName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// Home returns the config directory: $HIVE_HOME, else hive under the user's
// config directory.
func Home(lookupEnv func(string) (string, bool)) (string, error) {
	if h, ok := lookupEnv(HomeEnv); ok && h != "" {
		return h, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("no config directory (%v): set %s", err, HomeEnv)
	}
	return filepath.Join(dir, "hive"), nil
}

// ProfilesFile is the config file in home.
func ProfilesFile(home string) string { return filepath.Join(home, "profiles.toml") }

// LoadProfiles reads the profiles of home; a missing file is an empty set.
func LoadProfiles(home string) (*Profiles, error) {
	p := &Profiles{Profiles: map[string]*Profile{}}
	b, err := os.ReadFile(ProfilesFile(home))
	if errors.Is(err, os.ErrNotExist) {
		return p, nil
	}
	if err != nil {
		return nil, err
	}
	if _, err := toml.Decode(string(b), p); err != nil {
		return nil, wrap(ErrInvalid, fmt.Errorf("%s: %w", ProfilesFile(home), err))
	}
	if p.Profiles == nil {
		p.Profiles = map[string]*Profile{}
	}
	for name, pr := range p.Profiles {
		pr.Name = name
	}
	return p, nil
}

// Save writes the profiles to home (mode 0600, replaced atomically).
func (p *Profiles) Save(home string) error {
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(p); err != nil {
		return err
	}
	tmp := ProfilesFile(home) + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, ProfilesFile(home))
}

// Put adds or replaces a profile; the first profile becomes the current one.
func (p *Profiles) Put(pr Profile) error {
	if !profileName.MatchString(pr.Name) {
		return wrap(ErrInvalid, fmt.Errorf("profile name %q: use 1-64 letters, digits, _ . -", pr.Name))
	}
	if len(pr.Hubs) == 0 {
		return wrap(ErrInvalid, fmt.Errorf("profile %s: no hub URL (--hub wss://HOST:PORT)", pr.Name))
	}
	if pr.Key == "" {
		return wrap(ErrInvalid, fmt.Errorf("profile %s: no key file (--key FILE or --new-key)", pr.Name))
	}
	p.Profiles[pr.Name] = &pr
	if p.Current == "" {
		p.Current = pr.Name
	}
	return nil
}

// Get returns the named profile, or the current one for "".
func (p *Profiles) Get(name string) (Profile, error) {
	if name == "" {
		name = p.Current
	}
	if name == "" {
		return Profile{}, wrap(ErrNotFound, errors.New("no profile: add one with `hive profile add NAME --hub URL --key FILE`, or give --hub and --key"))
	}
	pr, ok := p.Profiles[name]
	if !ok {
		return Profile{}, wrap(ErrNotFound, fmt.Errorf("no profile %q (see `hive profile list`)", name))
	}
	return *pr, nil
}

// Use makes name the current profile.
func (p *Profiles) Use(name string) error {
	if _, err := p.Get(name); err != nil {
		return err
	}
	p.Current = name
	return nil
}

// Remove deletes a profile (not its key file).
func (p *Profiles) Remove(name string) error {
	if _, err := p.Get(name); err != nil || name == "" {
		return wrap(ErrNotFound, fmt.Errorf("no profile %q (see `hive profile list`)", name))
	}
	delete(p.Profiles, name)
	if p.Current == name {
		p.Current = ""
	}
	return nil
}

// List returns the profiles sorted by name.
func (p *Profiles) List() []Profile {
	out := make([]Profile, 0, len(p.Profiles))
	for _, pr := range p.Profiles {
		out = append(out, *pr)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
