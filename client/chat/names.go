package chat

import (
	"encoding/json"
	"sort"
	"strings"
	"unicode"

	"github.com/ainb/hive/client/termtext"
	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
	"github.com/nbd-wtf/go-nostr/nip19"
	"golang.org/x/text/unicode/norm"
)

// Names is the directory of names taken from kind 0 profiles, refreshed as
// newer profiles arrive. An agent's or a paired device's profile names its
// owner through its NIP-OA auth tag (verified here); a paired device (its
// attestation holds the device clause) is shown as its owner. Names are
// kept as CleanName leaves them, and a name that looks like another key's
// (the same Fold) is shown with the key's short npub.
type Names struct {
	byKey map[string]*profile
	asked map[string]bool // looked up, with or without a profile
	looks map[string]int  // Fold of an own name -> how many keys (not devices) give it
}

type profile struct {
	name, display string
	bot, device   bool
	owner         string // from a valid auth tag, else ""
	at            nostr.Timestamp
	id            string
	looks         string // the key of looks it counts in, "" for none
}

// NewNames is an empty directory.
func NewNames() *Names {
	return &Names{byKey: map[string]*profile{}, asked: map[string]bool{}, looks: map[string]int{}}
}

// CleanName is a name (a profile's name or display_name, a channel's name)
// as every surface shows it: the characters that show nothing or reorder
// what follows (termtext.Invisible: bidirectional controls, zero-width
// characters, controls) dropped, a control that is white space (a tab, a
// newline) as a space, the ends trimmed. So "MalXSS\u202eecila" reads
// "MalXSSecila", never "MalXSSalice".
func CleanName(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		switch {
		case unicode.IsControl(r) && unicode.IsSpace(r):
			return ' '
		case termtext.Invisible(r):
			return -1
		}
		return r
	}, s))
}

// Fold is how alike two clean names look: the same Fold, the same name to
// a reader (compatibility forms folded, NFKC, then each character in lower
// case, runs of white space as one space).
func Fold(name string) string {
	var b strings.Builder
	space := false
	for _, r := range norm.NFKC.String(name) {
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// Seen records that pk's profile was looked up (it may have none).
func (n *Names) Seen(pk string) { n.asked[pk] = true }

// Known reports whether pk has a profile here or was looked up already.
func (n *Names) Known(pk string) bool { return n.byKey[pk] != nil || n.asked[pk] }

// Apply records a kind 0 profile if it is newer than the one known (NIP-01:
// the later created_at, then the lower id), and reports whether it was.
func (n *Names) Apply(ev *nostr.Event) bool {
	old := n.byKey[ev.PubKey]
	if old != nil && (ev.CreatedAt < old.at || (ev.CreatedAt == old.at && ev.ID >= old.id)) {
		return false
	}
	var meta struct {
		Name        string `json:"name"`
		DisplayName string `json:"display_name"`
		Bot         bool   `json:"bot"`
	}
	json.Unmarshal([]byte(ev.Content), &meta) // a profile that is not JSON has no name
	p := &profile{name: CleanName(meta.Name), display: CleanName(meta.DisplayName), bot: meta.Bot, at: ev.CreatedAt, id: ev.ID}
	for _, t := range ev.Tags {
		if len(t) == 1 && t[0] == "bot" {
			p.bot = true
		}
	}
	if tag, err := identity.FindAuthTag(ev); err == nil {
		if a, err := identity.VerifyAuthTag(tag, ev.PubKey); err == nil {
			p.owner, p.device = a.Owner, a.Device // a ["device"] tag is only a label
		}
	}
	if old != nil && old.looks != "" {
		n.looks[old.looks]--
	}
	if own := p.ownName(); own != "" && !p.device {
		p.looks = Fold(own)
		n.looks[p.looks]++
	}
	n.byKey[ev.PubKey] = p
	return true
}

// ownName is the name a profile gives itself, "" for none.
func (p *profile) ownName() string {
	if p.display != "" {
		return p.display
	}
	return p.name
}

// ShortNpub is the short form of a key shown when it has no name:
// npub1 and 7 more characters, an ellipsis and the last 4.
func ShortNpub(pk string) string {
	npub, err := nip19.EncodePublicKey(pk)
	if err != nil || len(npub) < 20 {
		if len(pk) > 12 {
			return pk[:12] + "…"
		}
		return pk
	}
	return npub[:12] + "…" + npub[len(npub)-4:]
}

// own is the name a key gives itself: display_name, else name, else its
// short npub; a name another key's looks like too is followed by the short
// npub ("alice (npub1abcdefg…wxyz)").
func (n *Names) own(pk string) string {
	if p := n.byKey[pk]; p != nil {
		if own := p.ownName(); own != "" {
			if p.looks != "" && n.looks[p.looks] > 1 {
				return own + " (" + ShortNpub(pk) + ")"
			}
			return own
		}
	}
	return ShortNpub(pk)
}

// Name is how pk is shown: a person by their name, a paired device by its
// owner's, an agent as "claude (alice's agent)".
func (n *Names) Name(pk string) string {
	p := n.byKey[pk]
	switch {
	case p == nil:
		return ShortNpub(pk)
	case p.device:
		return n.own(p.owner)
	case p.owner != "":
		return n.own(pk) + " (" + n.own(p.owner) + "'s agent)"
	case p.bot:
		return n.own(pk) + " (agent)"
	}
	return n.own(pk)
}

// Label is Name with a device's own name where it matters ("alice (laptop)").
func (n *Names) Label(pk string) string {
	if p := n.byKey[pk]; p != nil && p.device {
		return n.own(p.owner) + " (" + n.own(pk) + ")"
	}
	return n.Name(pk)
}

// ActsFor is the member a key acts for: a paired device's owner, else the key.
func (n *Names) ActsFor(pk string) string {
	if p := n.byKey[pk]; p != nil && p.device {
		return p.owner
	}
	return pk
}

// Owner is the owner of an agent or a paired device, "" for anyone else.
func (n *Names) Owner(pk string) string {
	if p := n.byKey[pk]; p != nil {
		return p.owner
	}
	return ""
}

// IsAgent reports whether pk's profile marks it as an agent.
func (n *Names) IsAgent(pk string) bool {
	p := n.byKey[pk]
	return p != nil && !p.device && (p.bot || p.owner != "")
}

// IsDevice reports whether pk is a paired device with a valid attestation.
func (n *Names) IsDevice(pk string) bool {
	p := n.byKey[pk]
	return p != nil && p.device
}

// Lookup lists the keys (sorted) a name may mean: those whose name or
// display_name looks like it (the same Fold of CleanName: case ignored),
// without a leading @. Devices are left out: they act as their owners.
func (n *Names) Lookup(name string) []string {
	name = Fold(CleanName(strings.TrimPrefix(strings.TrimSpace(name), "@")))
	var out []string
	for pk, p := range n.byKey {
		if p.device {
			continue
		}
		if (p.name != "" && Fold(p.name) == name) || (p.display != "" && Fold(p.display) == name) {
			out = append(out, pk)
		}
	}
	sort.Strings(out)
	return out
}

// Render shows text with each mention of a key in it (nostr:npub1..., or
// a bare npub1...) as @name.
func (n *Names) Render(text string, mentions []string) string {
	for _, pk := range mentions {
		npub, err := nip19.EncodePublicKey(pk)
		if err != nil || !strings.Contains(text, npub) {
			continue
		}
		name := "@" + n.own(pk)
		text = strings.ReplaceAll(text, "nostr:"+npub, name)
		text = strings.ReplaceAll(text, npub, name)
	}
	return text
}
