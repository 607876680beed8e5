package client

import (
	"fmt"
	"slices"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

// TargetSpec is what a surface was told about where and as whom to
// connect (flags, environment, config); empty fields were not given.
type TargetSpec struct {
	Profile string // a profile name ("" for the current one, when one is needed)
	Hub     string // a ws:// or wss:// URL
	Key     string // a key file
	Pin     string // sha256/<base64>
	AuthTag string // the owner's NIP-OA tag (JSON)
	// OwnKey: the surface has its own key (the bridge's agents): a
	// profile gives only hubs and pin.
	OwnKey bool
}

// Target is how one identity reaches one hub, resolved.
type Target struct {
	Profile string // the profile used ("" when none was)
	Hubs    []string
	Pin     string
	KeyFile string
	AuthTag nostr.Tag
	// PinProfile names the profile the pin came from ("" when the spec gave it)
	PinProfile string
}

// ResolveTarget is the one rule every surface uses: what the spec gives
// wins; the rest comes from the profile (the named one, else the current
// one), which is read when a profile is named or the hub or key is
// missing. A profile's pin belongs to the profile's hubs: it applies only
// when the hub used is one of them. A missing profile is an error only when
// something is still missing (wrapping ErrNotFound).
func ResolveTarget(spec TargetSpec, lookupEnv func(string) (string, bool)) (Target, error) {
	t := Target{KeyFile: spec.Key, Pin: spec.Pin}
	if spec.Hub != "" {
		t.Hubs = []string{spec.Hub}
	}
	tag := spec.AuthTag
	hasKey := spec.Key != "" || spec.OwnKey
	if spec.Profile != "" || spec.Hub == "" || !hasKey {
		home, err := Home(lookupEnv)
		if err != nil {
			return t, err
		}
		profs, err := LoadProfiles(home)
		if err != nil {
			return t, err
		}
		pr, err := profs.Get(spec.Profile)
		if err != nil && (spec.Hub == "" || !hasKey) {
			return t, err
		}
		if err == nil {
			t.Profile = pr.Name
			if spec.Hub == "" {
				t.Hubs = pr.Hubs
			}
			if !hasKey {
				t.KeyFile = pr.Key
			}
			if t.Pin == "" && len(t.Hubs) > 0 && slices.Contains(pr.Hubs, t.Hubs[0]) {
				t.Pin, t.PinProfile = pr.Pin, pr.Name
			}
			if tag == "" && !spec.OwnKey {
				tag = pr.Attestation
			}
		}
	}
	if tag != "" {
		var err error
		if t.AuthTag, err = identity.ParseTagJSON(tag); err != nil {
			return t, wrap(ErrInvalid, fmt.Errorf("auth tag: %w", err))
		}
	}
	return t, nil
}
