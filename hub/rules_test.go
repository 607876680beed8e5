package hub

import (
	"fmt"
	"maps"
	"regexp"
	"strings"
	"testing"

	"github.com/ainb/hive/identity"
	"github.com/nbd-wtf/go-nostr"
)

type T = nostr.Tag

// othersDeletion is the start of the refusal of a deletion naming another key's event.
const othersDeletion = "restricted: a deletion may name only your own events; "

// step publishes one event of the world's keys and expects a result: "" for
// accepted, else the start of the refusal.
type step struct {
	by      string
	kind    int
	content string
	tags    []nostr.Tag
	want    string
	label   string // names the event for later steps' "#label"
}

func s(by string, kind int, want string, tags ...nostr.Tag) step {
	return step{by: by, kind: kind, tags: tags, want: want}
}

// afterCheck asserts something about the hub once the steps ran.
type afterCheck func(t *testing.T, h *Hub)

// canRead/cannotRead check the live view's read gate.
func canRead(ch, who string, want bool) afterCheck {
	return func(t *testing.T, h *Hub) {
		if got := h.snapshotView().canRead(ch, world.keys[who].PublicHex); got != want {
			t.Errorf("%s can read %s: %v, want %v", who, ch, got, want)
		}
	}
}

func hasRole(ch, who string, want role) afterCheck {
	return func(t *testing.T, h *Hub) {
		if got, _ := h.snapshotView().role(ch, world.keys[who].PublicHex); got != want {
			t.Errorf("%s's role in %s: %q, want %q", who, ch, got, want)
		}
	}
}

func ownerOf(agent, want string) afterCheck {
	return func(t *testing.T, h *Hub) {
		got, _ := h.snapshotView().ownerOf(world.keys[agent].PublicHex)
		if want != "" {
			want = world.keys[want].PublicHex
		}
		if got != want {
			t.Errorf("owner of %s: %q, want %q", agent, got, want)
		}
	}
}

func revoked(owner, agent string) afterCheck {
	return func(t *testing.T, h *Hub) {
		if _, ok := h.snapshotView().revocations[[2]string{world.keys[owner].PublicHex, world.keys[agent].PublicHex}]; !ok {
			t.Errorf("no revocation of %s by %s in the view", agent, owner)
		}
	}
}

func isHubMember(who string, want bool) afterCheck {
	return func(t *testing.T, h *Hub) {
		if _, got := h.snapshotView().members[world.keys[who].PublicHex]; got != want {
			t.Errorf("%s is a hub member: %v, want %v", who, got, want)
		}
	}
}

// TestWriteRules runs every branch of the stored kinds' rules, each case on
// a fresh copy of the world, and checks after each case that the view the
// hub kept up to date change by change equals the one its tables give.
// strangersRevocation is the refusal of a 30450 whose signer never attested the key.
const strangersRevocation = "restricted: only the owner named in an attestation of this key that the hub has seen may revoke it; the hub has seen it attested by another owner, never by you"

func TestWriteRules(t *testing.T) {
	exp := T{"expiration", "9999999999"}
	cases := []struct {
		name  string
		steps []step
		after []afterCheck
	}{
		// every event (checkEvent)
		{"hub-signed kind", []step{s("alice", 39000, "restricted: kind 39000 is signed by the hub only", T{"d", "pub"})}, nil},
		{"required tag missing", []step{s("alice", 9, "invalid: kind 9 needs a \"h\" tag with a value")}, nil},
		{"required tag empty", []step{s("alice", 7, "invalid: kind 7 needs a \"e\" tag with a value", T{"e", ""})}, nil},
		{"either of e|a", []step{s("alice", 5, "invalid: kind 5 needs a \"e|a\" tag with a value", T{"p", "@bob"})}, nil},
		{"state kind with expiration", []step{s("alice", 9007, "invalid: kind 9007 changes hub state and cannot carry a NIP-40 expiration", T{"h", "x"}, T{"name", "x"}, exp)}, nil},
		{"content may expire", []step{s("alice", 9, "", T{"h", "pub"}, exp)}, nil},
		{"two h tags", []step{s("alice", 9, "invalid: an event belongs to at most one channel; this one has 2 h tags", T{"h", "pub"}, T{"h", "priv"})}, nil},
		{"two h on a channel kind", []step{s("alice", 9021, "invalid: an event belongs to at most one channel; this one has 2 h tags", T{"h", "pub"}, T{"h", "priv"})}, nil},
		{"empty h", []step{s("alice", 1, "invalid: the h tag needs a channel id", T{"h", ""})}, nil},
		{"h without value", []step{s("alice", 1, "invalid: the h tag needs a channel id", T{"h"})}, nil},
		{"unknown channel", []step{s("alice", 1, "invalid: channel \"nope\" does not exist (create it with kind 9007)", T{"h", "nope"})}, nil},
		{"archived channel", []step{s("alice", 1, "restricted: channel arch is archived", T{"h", "arch"})}, nil},
		{"private, not a member", []step{s("mallory", 1, "restricted: not a member of channel priv", T{"h", "priv"})}, nil},
		{"private, member", []step{s("carol", 1, "", T{"h", "priv"})}, nil},
		{"dm, not a participant", []step{s("carol", 9, "restricted: not a member of channel dm", T{"h", "dm"})}, nil},
		{"open, not a member", []step{s("mallory", 1, "", T{"h", "pub"})}, nil},
		{"profile into private", []step{s("mallory", 0, "restricted: not a member of channel priv", T{"h", "priv"})}, nil},
		{"unregistered kind, no h", []step{s("mallory", 30023, "", T{"d", "x"})}, nil},

		// hub membership
		{"hub add by non-admin", []step{s("alice", 8000, "restricted: only a hub admin may add or remove hub members", T{"p", "@stranger"})}, []afterCheck{isHubMember("stranger", false)}},
		{"hub add bad key", []step{s("admin", 8000, "invalid: the p tag must be a 64-character hex pubkey", T{"p", "xyz"})}, nil},
		{"hub add bad role", []step{s("admin", 8000, "invalid: hub role must be member or admin", T{"p", "@stranger"}, T{"role", "owner"})}, nil},
		{"hub add admin", []step{s("admin", 8000, "", T{"p", "@stranger"}, T{"role", "admin"}), s("stranger", 8001, "", T{"p", "@mallory"})},
			[]afterCheck{isHubMember("stranger", true), isHubMember("mallory", false)}},
		{"hub remove configured admin", []step{s("admin", 8001, "invalid: the hub's configured admin cannot be removed", T{"p", "@admin"})}, nil},
		{"hub remove non-member", []step{s("admin", 8001, "invalid: … is not a hub member", T{"p", "@stranger"})}, nil},
		{"hub remove", []step{s("admin", 8001, "", T{"p", "@bob"})}, []afterCheck{isHubMember("bob", false)}},
		{"revoke invite by member", []step{s("carol", 30451, "restricted: only a hub admin revokes invites", T{"d", "0123456789abcdef"})}, nil},
		{"revoke invite bad id", []step{s("admin", 30451, "invalid: the d tag must be an invite claim's id (16 hex digits, as hive invite --json shows it)", T{"d", "nope"})}, nil},
		{"revoke invite", []step{s("admin", 30451, "", T{"d", "0123456789abcdef"})}, nil},

		// channel membership
		{"add to missing channel", []step{s("alice", 9000, "invalid: channel \"nope\" does not exist (create it with kind 9007)", T{"h", "nope"}, T{"p", "@mallory"})}, nil},
		{"add to archived", []step{s("alice", 9000, "restricted: channel arch is archived", T{"h", "arch"}, T{"p", "@mallory"})}, nil},
		{"add to dm", []step{s("alice", 9000, "restricted: a DM's participants are fixed; open a new DM", T{"h", "dm"}, T{"p", "@carol"})}, nil},
		{"add by member", []step{s("carol", 9000, "restricted: only a channel owner or admin may add members to priv", T{"h", "priv"}, T{"p", "@mallory"})}, nil},
		{"add bad key", []step{s("alice", 9000, "invalid: the p tag must be a 64-character hex pubkey", T{"h", "priv"}, T{"p", "abc"})}, nil},
		{"add bad role", []step{s("alice", 9000, "invalid: role must be owner, admin, member, guest or bot", T{"h", "priv"}, T{"p", "@mallory", "boss"})}, nil},
		{"admin grants admin", []step{s("bob", 9000, "restricted: only a channel owner may grant the admin role", T{"h", "priv"}, T{"p", "@mallory", "admin"})}, nil},
		{"admin adds guest by role tag", []step{s("bob", 9000, "", T{"h", "priv"}, T{"p", "@mallory"}, T{"role", "guest"})},
			[]afterCheck{hasRole("priv", "mallory", roleGuest), canRead("priv", "mallory", true)}},
		{"owner grants owner", []step{s("alice", 9000, "", T{"h", "priv"}, T{"p", "@bob", "owner"})}, []afterCheck{hasRole("priv", "bob", roleOwner)}},
		{"admin demotes owner", []step{s("bob", 9000, "restricted: only an owner may remove or demote an owner", T{"h", "priv"}, T{"p", "@alice", "member"})}, nil},
		{"last owner demotes self", []step{s("alice", 9000, "invalid: … is the last owner of priv; make someone else owner first", T{"h", "priv"}, T{"p", "@alice", "admin"})}, []afterCheck{hasRole("priv", "alice", roleOwner)}},
		{"owner demoted when not the last", []step{
			s("alice", 9000, "", T{"h", "priv"}, T{"p", "@bob", "owner"}),
			s("bob", 9000, "", T{"h", "priv"}, T{"p", "@alice", "member"})}, []afterCheck{hasRole("priv", "alice", roleMember)}},
		{"remove by member", []step{s("carol", 9001, "restricted: only a channel owner or admin may remove members from priv", T{"h", "priv"}, T{"p", "@bob"})}, nil},
		{"remove self", []step{s("carol", 9001, "", T{"h", "priv"}, T{"p", "@carol"})}, []afterCheck{canRead("priv", "carol", false)}},
		{"remove non-member", []step{s("alice", 9001, "invalid: … is not a member of priv", T{"h", "priv"}, T{"p", "@mallory"})}, nil},
		{"admin removes owner", []step{s("bob", 9001, "restricted: only an owner may remove or demote an owner", T{"h", "priv"}, T{"p", "@alice"})}, nil},
		{"owner removes owner", []step{
			s("alice", 9000, "", T{"h", "priv"}, T{"p", "@bob", "owner"}),
			s("alice", 9001, "", T{"h", "priv"}, T{"p", "@bob"})}, []afterCheck{hasRole("priv", "bob", noRole)}},
		{"last owner removes self", []step{s("alice", 9001, "invalid: … is the last owner of priv; make someone else owner first", T{"h", "priv"}, T{"p", "@alice"})}, nil},
		{"join private", []step{s("mallory", 9021, "restricted: channel priv is private; ask one of its admins to add you", T{"h", "priv"})}, nil},
		// flotilla's "create room" sends 9007, 9002, then 9021 and shows any
		// answer without "already" as an error.
		{"join private as member", []step{s("carol", 9021, "duplicate: already a member of priv", T{"h", "priv"})}, nil},
		{"join twice", []step{s("mallory", 9021, "", T{"h", "pub"}), s("mallory", 9021, "duplicate: already a member of pub", T{"h", "pub"}, T{"alt", "again"})},
			[]afterCheck{hasRole("pub", "mallory", roleMember)}},
		{"join archived", []step{s("mallory", 9021, "restricted: channel arch is archived", T{"h", "arch"})}, nil},
		{"leave as non-member", []step{s("mallory", 9022, "invalid: not a member of priv", T{"h", "priv"})}, nil},
		{"leave", []step{s("carol", 9022, "", T{"h", "priv"})}, []afterCheck{canRead("priv", "carol", false)}},
		{"last owner leaves", []step{s("alice", 9022, "invalid: … is the last owner of pub; make someone else owner first", T{"h", "pub"})}, nil},

		// channels
		{"create bad id", []step{s("mallory", 9007, "invalid: channel id must be 1-64 characters of A-Z a-z 0-9 _ . -", T{"h", "a b"}, T{"name", "x"})}, nil},
		{"create existing", []step{s("mallory", 9007, "duplicate: channel priv already exists", T{"h", "priv"}, T{"name", "x"})}, nil},
		{"create bad visibility", []step{s("mallory", 9007, "invalid: visibility must be open or private", T{"h", "x"}, T{"name", "x"}, T{"visibility", "secret"})}, nil},
		{"create bad type", []step{s("mallory", 9007, "invalid: type must be stream or dm", T{"h", "x"}, T{"name", "x"}, T{"type", "forum"})}, nil},
		{"create with only h (NIP-29)", []step{s("mallory", 9007, "", T{"h", "x"}), s("bob", 9, "", T{"h", "x"})},
			[]afterCheck{hasRole("x", "mallory", roleOwner), canRead("x", "bob", true)}},
		{"create private (NIP-29 flag)", []step{s("mallory", 9007, "", T{"h", "x"}, T{"private"}, T{"closed"}), s("bob", 9, "restricted: not a member of channel x", T{"h", "x"}), s("bob", 9021, "restricted: channel x is private", T{"h", "x"})},
			[]afterCheck{canRead("x", "bob", false)}},
		// NIP-29 9002 flags (spec/channels.md, "NIP-29 as clients send it")
		{"9002 private makes it private", []step{s("alice", 9002, "", T{"h", "pub"}, T{"name", "pub"}, T{"private"}, T{"closed"}), s("mallory", 9, "restricted: not a member of channel pub", T{"h", "pub"})},
			[]afterCheck{canRead("pub", "mallory", false)}},
		{"9002 private wins over a copied visibility", []step{s("alice", 9002, "", T{"h", "pub"}, T{"d", "pub"}, T{"visibility", "open"}, T{"type", "stream"}, T{"private"}, T{"hidden"}, T{"restricted"})},
			[]afterCheck{canRead("pub", "mallory", false)}},
		{"9002 public opens a private channel", []step{s("alice", 9002, "", T{"h", "priv"}, T{"public"})},
			[]afterCheck{canRead("priv", "mallory", true)}},
		{"9002 without flags keeps it private", []step{s("alice", 9002, "", T{"h", "priv"}, T{"name", "still"})},
			[]afterCheck{canRead("priv", "mallory", false)}},
		{"9002 closed on an open channel", []step{s("alice", 9002, "invalid: hive cannot make an open channel closed: every hub member reads, writes and may join an open channel", T{"h", "pub"}, T{"closed"})},
			[]afterCheck{canRead("pub", "mallory", true)}},
		{"9002 hidden on an open channel", []step{s("alice", 9002, "invalid: hive cannot make an open channel hidden", T{"h", "pub"}, T{"hidden"})}, nil},
		{"9002 restricted on an open channel", []step{s("alice", 9002, "invalid: hive cannot make an open channel restricted", T{"h", "pub"}, T{"restricted"})}, nil},
		{"9002 open on a private channel", []step{s("alice", 9002, "invalid: a private channel takes no join requests", T{"h", "priv"}, T{"open"})},
			[]afterCheck{canRead("priv", "mallory", false)}},
		{"9002 private and public", []step{s("alice", 9002, "invalid: a channel is either private or public, not both", T{"h", "pub"}, T{"private"}, T{"public"})}, nil},
		{"9002 public on a DM", []step{s("alice", 9002, "invalid: a DM stays private", T{"h", "dm"}, T{"public"})}, nil},
		{"9002 livekit", []step{s("alice", 9002, `invalid: "livekit": hive has no live audio or video rooms`, T{"h", "pub"}, T{"livekit"})}, nil},
		{"9002 another d", []step{s("alice", 9002, `invalid: the d tag "priv" names another channel than h "pub"`, T{"h", "pub"}, T{"d", "priv"})}, nil},
		{"9002 another type", []step{s("alice", 9002, "invalid: channel pub is a stream; its type cannot change", T{"h", "pub"}, T{"type", "dm"})}, nil},
		{"9002 picture", []step{s("alice", 9002, "", T{"h", "pub"}, T{"picture", "https://example.org/p.png"})}, nil},
		{"dm without participants", []step{s("mallory", 9007, "invalid: a DM needs 1 to 8 other participants as p tags", T{"h", "x"}, T{"type", "dm"})}, nil},
		{"dm with a bad key", []step{s("mallory", 9007, "invalid: DM participants must be 64-character hex pubkeys", T{"h", "x"}, T{"type", "dm"}, T{"p", "zz"})}, nil},
		{"dm with too many", []step{s("mallory", 9007, "invalid: a DM needs 1 to 8 other participants as p tags", append([]nostr.Tag{{"h", "x"}, {"type", "dm"}}, manyP(9)...)...)}, nil},
		{"dm is private", []step{s("mallory", 9007, "", T{"h", "x"}, T{"type", "dm"}, T{"visibility", "open"}, T{"p", "@carol"})},
			[]afterCheck{canRead("x", "bob", false), hasRole("x", "carol", roleMember), hasRole("x", "mallory", roleOwner)}},
		{"dm names a participant twice", []step{s("mallory", 9007, "", T{"h", "x"}, T{"type", "dm"}, T{"p", "@carol"}, T{"p", "@carol"}, T{"p", "@mallory"})},
			[]afterCheck{hasRole("x", "carol", roleMember), hasRole("x", "mallory", roleOwner)}},
		{"rename", []step{s("alice", 9002, "", T{"h", "priv"}, T{"name", "renamed"}), s("alice", 9002, "", T{"h", "priv"}, T{"about", ""})}, nil},
		{"edit by member", []step{s("carol", 9002, "restricted: only a channel owner or admin may edit channel priv", T{"h", "priv"}, T{"name", "mine"})}, nil},
		{"edit bad visibility", []step{s("alice", 9002, "invalid: visibility must be open or private", T{"h", "priv"}, T{"visibility", "hidden"})}, nil},
		{"edit dm to open", []step{s("alice", 9002, "invalid: a DM stays private", T{"h", "dm"}, T{"visibility", "open"})}, nil},
		{"edit archived", []step{s("alice", 9002, "restricted: channel arch is archived", T{"h", "arch"}, T{"name", "back"})}, nil},
		{"visibility edit opens a channel", []step{s("bob", 9002, "", T{"h", "priv"}, T{"visibility", "open"}, T{"about", "now open"}), s("mallory", 9, "", T{"h", "priv"})},
			[]afterCheck{canRead("priv", "mallory", true)}},
		{"visibility edit closes a channel", []step{s("alice", 9002, "", T{"h", "pub"}, T{"visibility", "private"}), s("mallory", 9, "restricted: not a member of channel pub", T{"h", "pub"})},
			[]afterCheck{canRead("pub", "mallory", false)}},
		{"archive by admin", []step{s("bob", 9008, "restricted: only a channel owner may archive channel priv", T{"h", "priv"})}, nil},
		{"archive", []step{s("alice", 9008, "", T{"h", "priv"}), s("carol", 9, "restricted: channel priv is archived", T{"h", "priv"}), s("alice", 9008, "", T{"h", "priv"}, T{"alt", "again"})},
			[]afterCheck{canRead("priv", "carol", true), canRead("priv", "mallory", false)}},

		// threads
		{"e without marker", []step{s("alice", 9, "invalid: thread e tags need a NIP-10 root or reply marker", T{"h", "pub"}, T{"e", "#m"})}, nil},
		{"parent missing", []step{s("alice", 9, "invalid: thread parent … is not on this hub", T{"h", "pub"}, T{"e", strings.Repeat("0", 64), "", "root"})}, nil},
		{"parent in another channel", []step{s("alice", 9, "invalid: thread parent … is not in channel pub", T{"h", "pub"}, T{"e", "#pm", "", "root"})}, nil},
		{"reply to top level", []step{s("bob", 9, "", T{"h", "pub"}, T{"e", "#m", "", "reply"})}, nil},
		{"reply to a reply needs the root", []step{labelled("r", s("bob", 9, "", T{"h", "pub"}, T{"e", "#m", "", "reply"})),
			s("carol", 9, "invalid: a reply to a reply needs a root-marked e tag for …", T{"h", "pub"}, T{"e", "#r", "", "reply"}),
			s("carol", 9, "", T{"h", "pub"}, T{"e", "#m", "", "root"}, T{"e", "#r", "", "reply"}),
			s("carol", 9, "invalid: thread root … does not match the parent's root …", T{"h", "pub"}, T{"e", "#r", "", "root"})}, nil},
		{"root mismatch", []step{s("bob", 9, "invalid: thread root … does not match the parent's root …", T{"h", "pub"}, T{"e", "#am", "", "root"}, T{"e", "#m", "", "reply"})}, nil},

		// overlays
		{"react to missing", []step{s("bob", 7, "invalid: target event … is not on this hub", T{"e", strings.Repeat("0", 64)})}, nil},
		{"react with wrong h", []step{s("bob", 7, "invalid: target event is in channel \"pub\", not \"priv\"", T{"h", "priv"}, T{"e", "#m"})}, nil},
		{"react into private", []step{s("mallory", 7, "restricted: not a member of channel priv", T{"e", "#pm"})}, nil},
		{"react twice, delete, react again", []step{labelled("r", s("bob", 7, "", T{"e", "#m"})), s("bob", 7, `duplicate: you already reacted "" to this event`, T{"e", "#m"}, T{"k", "9"}),
			s("bob", 5, "", T{"e", "#r"}), s("bob", 7, "", T{"e", "#m"}, T{"alt", "again"})}, nil},
		{"react to an event of no channel", []step{labelled("n", s("mallory", 1, "")), s("bob", 7, "", T{"e", "#n"})}, nil},
		{"author edits own", []step{s("alice", 40003, "", T{"h", "pub"}, T{"e", "#m"})}, nil},
		{"edit with no channel", []step{labelled("n", s("mallory", 1, "")), s("mallory", 40003, "invalid: target event is in channel \"\", not \"pub\"", T{"h", "pub"}, T{"e", "#n"})}, nil},
		{"author deletes own in channel", []step{s("agent", 9005, "", T{"h", "pub"}, T{"e", "#am"})}, nil},
		{"edit others'", []step{s("bob", 40003, "restricted: only the author or the author's owner may edit this message", T{"h", "pub"}, T{"e", "#m"})}, nil},
		{"owner edits agent's", []step{s("alice", 40003, "", T{"h", "pub"}, T{"e", "#am"})}, nil},
		{"edit into private as non-member", []step{s("mallory", 40003, "restricted: not a member of channel priv", T{"h", "priv"}, T{"e", "#pm"})}, nil},
		{"delete others' in channel", []step{s("mallory", 9005, "restricted: only the author, the author's owner or a channel admin may delete this message", T{"h", "pub"}, T{"e", "#m"})}, nil},
		{"admin deletes in channel", []step{s("bob", 9005, "", T{"h", "priv"}, T{"e", "#pm"})}, nil},
		{"owner deletes agent's in channel", []step{s("alice", 9005, "", T{"h", "pub"}, T{"e", "#am"})}, nil},
		{"delete lasting state by e", []step{s("alice", 5, "invalid: kind 9007 is hub state and cannot be deleted; undo it with its own kind instead", T{"e", "#create-pub"})}, nil},
		{"delete by malformed a", []step{s("alice", 5, "invalid: address \"+30023:…:x\": the kind must be plain decimal digits without sign or leading zero", T{"a", "+30023:@alice:x"})}, nil},
		{"delete lasting state by a", []step{s("alice", 5, "invalid: kind 30450 is hub state and cannot be deleted; undo it with its own kind instead", T{"a", "30450:@alice:@agent"})}, nil},
		{"delete profile by e", []step{s("agent", 5, "", T{"e", "#profile"})}, []afterCheck{ownerOf("agent", "")}},
		{"delete profile by a", []step{s("agent", 5, "", T{"a", "0:@agent:"})}, []afterCheck{ownerOf("agent", "")}},
		{"delete profile by a with a d", []step{s("agent", 5, "", T{"a", "0:@agent:x"})}, []afterCheck{ownerOf("agent", "alice")}},
		{"delete others' profile by a", []step{s("alice", 5, othersDeletion, T{"a", "0:@agent:"})}, []afterCheck{ownerOf("agent", "alice")}},
		{"delete others' message by e", []step{s("bob", 5, othersDeletion, T{"e", "#m"})}, nil},
		{"delete others' reaction by e", []step{labelled("r", s("bob", 7, "", T{"e", "#m"})), s("mallory", 5, othersDeletion, T{"e", "#r"}),
			// a second reaction (another id, whatever the second) finds the first still there
			s("bob", 7, `duplicate: you already reacted "" to this event`, T{"e", "#m"}, T{"k", "9"}), s("bob", 5, "", T{"e", "#r"})}, nil},
		{"owner deletes agent's by e", []step{s("alice", 5, othersDeletion, T{"e", "#am"})}, nil},
		{"delete own and others' at once", []step{s("alice", 5, othersDeletion, T{"e", "#m"}, T{"e", "#am"}),
			s("alice", 40003, "", T{"h", "pub"}, T{"e", "#m"})}, nil},
		{"delete an id the hub does not have", []step{s("bob", 5, "", T{"e", strings.Repeat("0", 64)})}, nil},

		// agents
		{"profile with a bad auth tag", []step{s("mallory", 0, "invalid: profile auth tag: invalid auth tag signature: must be 128 lowercase hex characters, got 2 characters", T{"auth", "@alice", "", "00"})}, nil},
		{"profile without auth drops the owner", []step{s("agent", 0, "")}, []afterCheck{ownerOf("agent", "")}},
		{"revocation without a valid d", []step{s("alice", 30450, "invalid: invalid revocation event: d tag: must be 64 lowercase hex characters, got \"xyz\"", T{"d", "xyz"})}, nil},
		{"revocation", []step{s("alice", 30450, "", T{"d", "@agent"}, T{"p", "@agent"})}, []afterCheck{revoked("alice", "agent")}},
		{"revocation with another p", []step{s("alice", 30450, "invalid: invalid revocation event: p tag does not match the d tag agent …", T{"d", "@agent"}, T{"p", "@bob"})}, nil},
		{"revocation by another than the owner", []step{s("mallory", 30450, strangersRevocation, T{"d", "@agent"}, T{"p", "@agent"})}, nil},
		{"revocation of a key never attested", []step{s("mallory", 30450, "", T{"d", "@stranger"})}, []afterCheck{revoked("mallory", "stranger")}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := worldHub(t)
			labels := maps.Clone(world.labels)
			for i, st := range c.steps {
				ev := signAs(labels, st.by, st.kind, st.content, st.tags...)
				if st.label != "" {
					labels[st.label] = ev
				}
				got := publish(h, ev)
				if !refusedAs(t, got, st.want) {
					t.Fatalf("step %d (kind %d by %s): got %q, want %q", i, st.kind, st.by, got, orOK(st.want))
				}
			}
			for _, check := range c.after {
				check(t, h)
			}
			checkViewMatchesTables(t, h)
		})
	}
}

// bareRefusal is a want naming only a refusal's prefix.
var bareRefusal = regexp.MustCompile(`^[a-z-]+:$`)

// refusedAs reports whether got is the answer want pins: "" is OK, else the
// refusal's message from its start, with "…" where it names a key, an id
// or a time. A prefix alone ("invalid:") pins nothing (a refusal by another
// rule would pass) and fails the test.
func refusedAs(t testing.TB, got, want string) bool {
	t.Helper()
	if bareRefusal.MatchString(want) {
		t.Errorf("want %q names only the prefix: pin the reason (got %q)", want, got)
	}
	if want == "" {
		return got == ""
	}
	parts := strings.Split(want, "…")
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	rest := got[len(parts[0]):]
	for _, p := range parts[1:] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return true
}

func labelled(label string, st step) step {
	st.label = label
	return st
}

func orOK(s string) string {
	if s == "" {
		return "accepted"
	}
	return s + "..."
}

func manyP(n int) []nostr.Tag {
	var out []nostr.Tag
	for i := 0; i < n; i++ {
		k, _ := identity.GenerateKeys()
		out = append(out, nostr.Tag{"p", k.PublicHex})
	}
	return out
}

// TestEphemeralRules: ephemeral kinds are never stored, so the same rules run
// against the in-memory view before fan-out.
func TestEphemeralRules(t *testing.T) {
	h := worldHub(t)
	cases := []struct {
		name, by, owner string // owner: the sender's attested owner
		kind            int
		tags            []nostr.Tag
		want            string
	}{
		{"typing in open", "mallory", "", 20002, []nostr.Tag{{"h", "pub"}}, ""},
		{"typing needs h", "mallory", "", 20002, nil, "invalid: kind 20002 needs a \"h\" tag with a value"},
		{"typing in private, non-member", "mallory", "", 20002, []nostr.Tag{{"h", "priv"}}, "restricted: not a member of channel priv"},
		{"typing in private, member", "carol", "", 20002, []nostr.Tag{{"h", "priv"}}, ""},
		{"typing in dm, participant", "bob", "", 20002, []nostr.Tag{{"h", "dm"}}, ""},
		{"typing in archived", "alice", "", 20002, []nostr.Tag{{"h", "arch"}}, "restricted: channel arch is archived"},
		{"typing in two channels", "alice", "", 20002, []nostr.Tag{{"h", "pub"}, {"h", "priv"}}, "invalid: an event belongs to at most one channel; this one has 2 h tags"},
		{"typing in unknown channel", "alice", "", 20002, []nostr.Tag{{"h", "nope"}}, "invalid: channel \"nope\" does not exist (create it with kind 9007)"},
		{"presence, no channel", "mallory", "", 20001, nil, ""},
		{"frame agent to owner", "agent", "alice", 24200, []nostr.Tag{{"p", "@alice"}}, ""},
		{"frame owner to agent", "alice", "", 24200, []nostr.Tag{{"p", "@agent"}}, ""},
		{"frame to a stranger", "agent", "alice", 24200, []nostr.Tag{{"p", "@bob"}}, "restricted: observer frames go only between an agent and its owner, or the owner's paired devices"},
		{"frame member to member", "bob", "", 24200, []nostr.Tag{{"p", "@alice"}}, "restricted: observer frames go only between an agent and its owner, or the owner's paired devices"},
		{"frame to two", "agent", "alice", 24200, []nostr.Tag{{"p", "@alice"}, {"p", "@bob"}}, "invalid: kind 24200 goes to exactly one recipient: one p tag with a 64-character hex pubkey"},
		{"frame to owner twice", "agent", "alice", 24200, []nostr.Tag{{"p", "@alice"}, {"p", "@alice"}}, "invalid: kind 24200 goes to exactly one recipient: one p tag with a 64-character hex pubkey"},
		{"frame to none", "agent", "alice", 24200, nil, "invalid: kind 24200 needs a \"p\" tag with a value"},
		{"frame p without value", "agent", "alice", 24200, []nostr.Tag{{"p"}, {"p", "@alice"}}, "invalid: kind 24200 goes to exactly one recipient: one p tag with a 64-character hex pubkey"},
		{"frame to a bad key", "agent", "alice", 24200, []nostr.Tag{{"p", "ALICE"}}, "invalid: kind 24200 goes to exactly one recipient: one p tag with a 64-character hex pubkey"},
		{"pairing to one", "stranger", "", 24134, []nostr.Tag{{"p", "@alice"}}, ""},
		{"pairing to two", "stranger", "", 24134, []nostr.Tag{{"p", "@alice"}, {"p", "@bob"}}, "invalid: kind 24134 goes to exactly one recipient: one p tag with a 64-character hex pubkey"},
	}
	for _, c := range cases {
		ev := signAs(world.labels, c.by, c.kind, "", c.tags...)
		from := sender{pubkey: ev.PubKey}
		if c.owner != "" {
			from.owner = world.keys[c.owner].PublicHex
		}
		got := ""
		if err := checkEvent(h.snapshotView(), ev, from); err != nil {
			got = err.Error()
		}
		if !refusedAs(t, got, c.want) {
			t.Errorf("%s: got %q, want %s", c.name, got, orOK(c.want))
		}
	}
}

// TestCommittedChannelsCached: once a reaction or deletion commits, its
// channel is cached before its fan-out, so the live read check needs no query.
func TestCommittedChannelsCached(t *testing.T) {
	h := worldHub(t)
	for _, c := range []struct {
		ev   *nostr.Event
		want string
	}{
		{signAs(world.labels, "bob", 7, "+", T{"e", "#pm"}), "priv"},
		{signAs(world.labels, "bob", 7, "+", T{"e", "#m"}), "pub"},
		{signAs(world.labels, "alice", 5, "", T{"e", "#pm"}), "priv"},
	} {
		if got := publish(h, c.ev); got != "" {
			t.Fatalf("kind %d refused: %s", c.ev.Kind, got)
		}
		if ch, ok := h.targets.get(c.ev.ID); !ok || ch != c.want {
			t.Errorf("kind %d: cached channel %q (%v), want %q", c.ev.Kind, ch, ok, c.want)
		}
	}
}

// An entry of the channel cache survives at least max/2 later puts, and the
// cache never holds more than max entries.
func TestChannelCacheGenerations(t *testing.T) {
	c := newChannelCache(8)
	c.put("a", "pub")
	for i := 0; i < 4; i++ {
		c.put(fmt.Sprint(i), "x")
		if ch, ok := c.get("a"); !ok || ch != "pub" {
			t.Fatalf("entry lost after %d puts", i+1)
		}
	}
	for i := 0; i < 100; i++ {
		c.put(fmt.Sprint("n", i), "x")
	}
	if n := len(c.cur) + len(c.old); n > 8 {
		t.Fatalf("cache holds %d entries, max 8", n)
	}
	if _, ok := c.get("a"); ok {
		t.Fatal("an old entry was never dropped")
	}
}
