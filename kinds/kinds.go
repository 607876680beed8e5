// Package kinds is the single source of truth for every event kind hive knows:
// its partition, how it is stored, which tags it needs and who may read it.
// spec/kinds.md is generated from this table and a test keeps the two equal.
package kinds

import (
	"fmt"
	"sort"
	"strings"
)

// Partition says how a kind takes part in a conversation.
type Partition string

const (
	Content           Partition = "content"            // timeline rows that count as unread
	AuxOverlay        Partition = "aux-overlay"        // modifies an existing row, fetched by #e
	NonConversational Partition = "non-conversational" // everything else
	NoPartition       Partition = "-"                  // never stored, not part of any timeline
)

// Storage is the NIP-01 storage class of a kind.
type Storage string

const (
	Regular     Storage = "regular"
	Replaceable Storage = "replaceable"
	Addressable Storage = "addressable"
	Ephemeral   Storage = "ephemeral"
	NeverStored Storage = "never-stored"
)

// Gate says who may read events of a kind.
type Gate string

const (
	Members        Gate = "members"         // any hub member (channel-members when the event carries an h)
	ChannelMembers Gate = "channel-members" // members of the channel named by h (open channels: any hub member)
	AuthorOnly     Gate = "author-only"     // only the event's author
	RecipientOnly  Gate = "recipient-only"  // only the pubkey named in its one p tag
)

// Kind is one row of the registry.
type Kind struct {
	Num          int
	Name         string
	Partition    Partition
	Storage      Storage
	RequiredTags []string // tag names that must be present
	Gate         Gate
	HubSigned    bool // only the hub's own key may sign it
	Effect       Effect
	Notes        string
}

// Effect says whether events of a kind change hub state (the projection
// tables rebuilt from the log) and whether a NIP-09 deletion may undo them.
type Effect string

const (
	NoEffect Effect = "-"
	// State kinds are replayed into the projections; a deletion of one undoes
	// its effect (a reaction frees its slot, a profile drops its owner link).
	State Effect = "state"
	// Lasting state kinds are replayed too, but kind 5 cannot delete them,
	// whatever the spelling of its e or a tag: undo them with their own kinds.
	Lasting Effect = "state, undeletable"
)

// IsState reports whether events of this kind change hub state. State events
// refuse a NIP-40 expiration: their effect must not outlive them.
func (k Kind) IsState() bool { return k.Effect == State || k.Effect == Lasting }

// Undeletable reports whether a NIP-09 deletion naming this kind is refused.
func (k Kind) Undeletable() bool { return k.Effect == Lasting }

// Numbers of the kinds hive gives meaning to.
const (
	Profile          = 0
	Deletion         = 5
	Reaction         = 7
	Message          = 9
	AddUser          = 9000
	RemoveUser       = 9001
	EditMetadata     = 9002
	DeleteInChannel  = 9005
	CreateGroup      = 9007
	DeleteGroup      = 9008
	JoinRequest      = 9021
	LeaveRequest     = 9022
	Presence         = 20001
	Typing           = 20002
	Auth             = 22242
	PairingMessage   = 24134
	ObserverFrame    = 24200
	ReadState        = 30078
	AgentRevocation  = 30450
	InviteRevocation = 30451
	WorkflowDef      = 30460
	HubInfo          = 30461
	WorkflowHook     = 30462
	WorkflowStatus   = 30463
	RunClaim         = 40460
	RunRecord        = 40461
	RunRequest       = 40462
	WebhookDelivery  = 40463
	GroupMetadata    = 39000
	GroupAdmins      = 39001
	GroupMembers     = 39002
	Edit             = 40003
	Receipt          = 40010
	AgentStatus      = 10451
	SystemRow        = 40099
	HubMemberAdd     = 8000
	HubMemberRemove  = 8001
	HubMemberList    = 13534
	CreatePermission = 19004
	RelayJoin        = 28934
	RelayInvite      = 28935
	RelayLeave       = 28936
)

// AgentStatusMaxLifetime bounds an agent status's NIP-40 expiration: at
// most this many seconds after its created_at (spec/agents.md, "Status"),
// so that a bridge that died stops showing as connected within minutes.
const AgentStatusMaxLifetime = 600

// table is read-only after package init; Lookup hands out copies.
var table = []Kind{
	{Profile, "profile", NonConversational, Replaceable, nil, Members, false, State, "agents add their NIP-OA `auth` tag and a bot marker"},
	{Deletion, "deletion (NIP-09)", AuxOverlay, Regular, []string{"e|a"}, ChannelMembers, false, State, "author's own events only; channel derived from the target; undeletable kinds refused by `e` or `a`"},
	{Reaction, "reaction", AuxOverlay, Regular, []string{"e"}, ChannelMembers, false, State, "`e` = target; channel derived from the target"},
	{Message, "message", Content, Regular, []string{"h"}, ChannelMembers, false, NoEffect, "`h` = channel id; NIP-10 `e` root/reply markers for threads; `p` mentions"},
	{HubMemberAdd, "hub member added (NIP-43)", NonConversational, Regular, []string{"p"}, Members, false, Lasting, "signed by a hub admin, or by the hub on an admin's NIP-86 allowpubkey (with its `nip98` authorization and `nip86` body)"},
	{HubMemberRemove, "hub member removed (NIP-43)", NonConversational, Regular, []string{"p"}, Members, false, Lasting, "signed by a hub admin, or by the hub on an admin's NIP-86 disallowpubkey (as 8000); cascades to the member's agents"},
	{AddUser, "add member / set role", NonConversational, Regular, []string{"h", "p"}, ChannelMembers, false, Lasting, "NIP-29 style; role in the `p` tag's third element"},
	{RemoveUser, "remove member", NonConversational, Regular, []string{"h", "p"}, ChannelMembers, false, Lasting, "NIP-29 style"},
	{EditMetadata, "channel edit", NonConversational, Regular, []string{"h"}, ChannelMembers, false, Lasting, "NIP-29 style"},
	{DeleteInChannel, "delete in channel", AuxOverlay, Regular, []string{"h", "e"}, ChannelMembers, false, NoEffect, "by the author, the author's owner or a channel admin"},
	{CreateGroup, "channel create", NonConversational, Regular, []string{"h"}, ChannelMembers, false, Lasting, "NIP-29 style"},
	{DeleteGroup, "channel delete", NonConversational, Regular, []string{"h"}, ChannelMembers, false, Lasting, "NIP-29 style"},
	{JoinRequest, "join", NonConversational, Regular, []string{"h"}, ChannelMembers, false, Lasting, "open channels only"},
	{LeaveRequest, "leave", NonConversational, Regular, []string{"h"}, ChannelMembers, false, Lasting, "the last owner cannot leave"},
	{HubMemberList, "hub member list (NIP-43)", NonConversational, Replaceable, nil, Members, true, NoEffect, "hub-signed: `-` and one `member` tag per hub member, the admin included; re-signed on every 8000/8001 and at start"},
	{CreatePermission, "who may create channels", NonConversational, Replaceable, nil, Members, true, NoEffect, "hub-signed: one `p` tag per key that may create channels (every hub member), as NIP-29 clients read it to offer \"create room\"; re-signed with 13534"},
	{RelayJoin, "join request (NIP-43)", NonConversational, Ephemeral, nil, AuthorOnly, false, NoEffect, "a `claim` tag: an invite claim (28935); the one EVENT a key that is not a member may send after AUTH; judged by the hub (a member: OK true `duplicate:`), never stored or relayed; admits the key with a hub-signed 8000"},
	{RelayInvite, "invite claim (NIP-43)", NonConversational, Ephemeral, nil, AuthorOnly, true, NoEffect, "hub-signed: `-`, `claim`, `u` (uses), `x` (lifetime, seconds), `expiration`; made for the member whose REQ for 28935 asks (`#u` uses, `#x` lifetime in seconds); never stored or relayed"},
	{RelayLeave, "leave request (NIP-43)", NonConversational, Ephemeral, nil, AuthorOnly, false, NoEffect, "from a member; judged by the hub, never relayed; the member is removed with a hub-signed 8001 (the configured admin, an agent or a device refused with the reason)"},
	{Presence, "presence", NonConversational, Ephemeral, nil, Members, false, NoEffect, ""},
	{Typing, "typing", NonConversational, Ephemeral, []string{"h"}, ChannelMembers, false, NoEffect, ""},
	{Auth, "AUTH (NIP-42)", NoPartition, NeverStored, []string{"relay", "challenge"}, AuthorOnly, false, NoEffect, "only inside an AUTH message"},
	{PairingMessage, "pairing message (NIP-AB)", NonConversational, Ephemeral, []string{"p"}, RecipientOnly, false, NoEffect, "exactly one `p`"},
	{ObserverFrame, "agent observer frame", NonConversational, Ephemeral, []string{"p"}, RecipientOnly, false, NoEffect, "NIP-44; exactly one `p`: the sender's owner or one of its agents, the only reader"},
	{ReadState, "read-state", NonConversational, Addressable, []string{"d"}, AuthorOnly, false, NoEffect, "`d` = read-state:<context>; content = position (unix seconds, then optionally the ids of the rows read in that second); readable by the member's keys; never moves backwards"},
	{AgentRevocation, "agent revocation", NonConversational, Addressable, []string{"d"}, Members, false, Lasting, "owner-signed; `d` = agent pubkey"},
	{InviteRevocation, "invite revocation", NonConversational, Addressable, []string{"d"}, Members, false, Lasting, "by a hub admin (their devices act as them): `d` = an invite claim's id (`hive invite --json` shows it); the claim admits no key after it, the keys it admitted stay members"},
	{WorkflowDef, "workflow definition", NonConversational, Addressable, []string{"d", "h", "p"}, ChannelMembers, false, NoEffect, "by a channel owner or admin (their devices act as them); `d` = the workflow's name, `p` = its runner, content = the YAML, which must validate (spec/workflows.md)"},
	{HubInfo, "hub information (NIP-11)", NonConversational, Addressable, []string{"d"}, Members, false, Lasting, "written by the hub on a hub admin's NIP-86 call (changerelayname, ...): `d` = name, description or icon, content = its value, with the call's NIP-98 authorization (`nip98`) and body (`nip86`); the NIP-11 document serves the newest of each"},
	{WorkflowHook, "workflow webhook", NonConversational, Addressable, []string{"d", "h", "a"}, ChannelMembers, false, NoEffect, "by a channel owner or admin: `d` = `a` = the definition's address, `w` = the hook id (the URL's /hook/<id>), content = the secret NIP-44-encrypted to the hub's key; without `w` and content the hook is deleted; the newest per address counts (spec/workflows.md)"},
	{WorkflowStatus, "workflow status", NonConversational, Addressable, []string{"d", "h", "a"}, ChannelMembers, false, NoEffect, "by the workflow's runner (its definition's `p`): `d` = the definition's address (30460:author:name), content = JSON: status (`active`, `paused`), reason, the definition version it is about, the newest schedule slot settled (spec/workflows.md)"},
	{RunClaim, "workflow run claim", NonConversational, Regular, []string{"h", "a", "trigger"}, ChannelMembers, false, NoEffect, "by the runner (the `p` of the definition `a` names, in its `h`): deterministic (created_at = the trigger's time, `trigger` = [type, ref], no content), so a second claim of one trigger is the same event; its id is the run's id"},
	{RunRecord, "workflow run record", AuxOverlay, Regular, []string{"h", "e", RunTag, "status", "a"}, ChannelMembers, false, NoEffect, "by the runner (as for 40460), on the run card `e`, `R` = the run (its claim's id; a single letter, so readers filter by it), (or the trigger, for a run skipped before it had a card): `status` started, step, waiting, finished, failed, cancelled, skipped, approved, denied, ignored; `step` = [id, n, of], `outcome` for a step; content = JSON; the newest by the card's author (an ignored one aside) is the card's badge"},
	{WebhookDelivery, "workflow webhook delivery", NonConversational, Regular, []string{"h", "a", "w", "i"}, ChannelMembers, true, NoEffect, "hub-signed, on a verified POST /hook/<id>: `a` = the workflow, `w` = the hook id, `i` = the sender's delivery id (one event per hook and delivery id), `scheme` standard or github; content = JSON {event, headers, body} (spec/workflows.md)"},
	{RunRequest, "workflow run request", NonConversational, Regular, []string{"h", "a"}, ChannelMembers, false, NoEffect, "by a channel writer: content = {\"inputs\": {...}} starts a manual run; with a `cancel` tag (the run id) asks the runner to cancel that run"},
	{GroupMetadata, "channel metadata", NonConversational, Addressable, []string{"d"}, ChannelMembers, true, NoEffect, "hub-signed; `d` = channel id"},
	{GroupAdmins, "channel admins", NonConversational, Addressable, []string{"d"}, ChannelMembers, true, NoEffect, "hub-signed; `d` = channel id"},
	{GroupMembers, "channel members", NonConversational, Addressable, []string{"d"}, ChannelMembers, true, NoEffect, "hub-signed; `d` = channel id"},
	{Edit, "edit", AuxOverlay, Regular, []string{"h", "e"}, ChannelMembers, false, NoEffect, "content is the full new text"},
	{Receipt, "agent receipt", AuxOverlay, Regular, []string{"h", "e", "status"}, ChannelMembers, false, NoEffect, "signed by an agent: where its answer to the mention `e` stands (`status` queued, working, answered, failed, not-answered; content = the reason); the newest per agent and mention counts"},
	{AgentStatus, "agent status", NonConversational, Replaceable, []string{"expiration"}, Members, false, NoEffect, "signed by an agent: its bridge's state as JSON (connected, idle or working, queue, breaker, last error, deaf), renewed every 30 s, expiring at most 10 minutes after its created_at; no channel ids or message text"},
	{SystemRow, "system row", NonConversational, Regular, []string{"h"}, ChannelMembers, true, NoEffect, "hub-signed: channel created, member joined or left, agent failure"},
}

var index = func() map[int]int {
	m := make(map[int]int, len(table))
	for i, k := range table {
		if _, dup := m[k.Num]; dup {
			panic(fmt.Sprintf("kinds: %d registered twice", k.Num))
		}
		m[k.Num] = i
	}
	return m
}()

// All returns a copy of the registry, ordered by kind number.
func All() []Kind {
	out := make([]Kind, len(table))
	copy(out, table)
	sort.Slice(out, func(i, j int) bool { return out[i].Num < out[j].Num })
	return out
}

// StateKinds lists the kinds that change hub state, ascending: the hub
// replays these, and only these, to rebuild its projections.
func StateKinds() []int { return nums(Kind.IsState) }

// InPartition lists the kinds of partition p, ascending.
func InPartition(p Partition) []int {
	return nums(func(k Kind) bool { return k.Partition == p })
}

// nums lists, ascending, the kinds for which keep holds.
func nums(keep func(Kind) bool) []int {
	var out []int
	for _, k := range All() {
		if keep(k) {
			out = append(out, k.Num)
		}
	}
	return out
}

// Lookup returns the registry row for n, if hive knows it.
func Lookup(n int) (Kind, bool) {
	i, ok := index[n]
	if !ok {
		return Kind{}, false
	}
	return table[i], true
}

// Classify returns the registry row for n, or for an unknown kind a row
// derived from its NIP-01 range: non-conversational and readable by members.
func Classify(n int) Kind {
	if k, ok := Lookup(n); ok {
		return k
	}
	return Kind{Num: n, Name: "unregistered", Partition: NonConversational, Storage: RangeStorage(n), Gate: Members, Effect: NoEffect}
}

// RangeStorage is the storage class NIP-01 assigns to a kind number.
func RangeStorage(n int) Storage {
	switch {
	case n == 0 || n == 3 || (n >= 10000 && n < 20000):
		return Replaceable
	case n >= 20000 && n < 30000:
		return Ephemeral
	case n >= 30000 && n < 40000:
		return Addressable
	default:
		return Regular
	}
}

// MarkdownTable renders the registry as the table in spec/kinds.md.
func MarkdownTable() string {
	var b strings.Builder
	b.WriteString("| kind | name | partition | storage | required tags | readable by | hub-signed | hub state | notes |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, k := range All() {
		tags := "-"
		if len(k.RequiredTags) > 0 {
			tags = "`" + strings.ReplaceAll(strings.Join(k.RequiredTags, "`, `"), "|", "` or `") + "`"
		}
		signed := "no"
		if k.HubSigned {
			signed = "yes"
		}
		fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s | %s | %s | %s |\n", k.Num, k.Name, k.Partition, k.Storage, tags, k.Gate, signed, k.Effect, k.Notes)
	}
	return b.String()
}

// ReadStatePrefix starts the d tag of a read position (kind ReadState):
// "read-state:<context>" (spec/channels.md, "Read state").
const ReadStatePrefix = "read-state:"
